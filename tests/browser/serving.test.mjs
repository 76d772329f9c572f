// The Serving tab in real headless Chromium: a link with `gpuplan serve`'s options opens it,
// the simulation runs in slices while the page keeps drawing, and the replicas and monthly
// costs it shows equal the native CLI's for the same options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, waitForState, cliJson, screenshot, widget, clickWidget } from './harness.mjs';

let server, page;

useBrowser({ width: 1280, height: 900 }, (s) => ({ server, page } = s));

// Counts animation frames until the Serving tab has a result, and the longest gap between two:
// a page frozen by the simulation would draw few frames with a long gap.
function framesUntilServed() {
  return page.evaluate(() => new Promise((resolve) => {
    let n = 0;
    let sawProgress = false;
    let last = performance.now();
    let longest = 0;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      n++;
      const s = window.gpuplanState;
      if (s && s.serving && s.serving.progress < 1) sawProgress = true;
      if (s && s.serving && s.serving.progress === 1 && (s.serving.options.length || s.serving.error)) {
        resolve({ n, sawProgress, longest });
      } else {
        requestAnimationFrame(tick);
      }
    };
    requestAnimationFrame(tick);
  }));
}

const example = {
  model: 'llama-3-8b', rate: '30', 'load-curve': 'diurnal', 'prompt-tokens': '1500',
  'output-tokens': '300', 'ttft-ms': '1000', 'tpot-ms': '50',
};

for (const [name, extra] of [['every instance', {}], ['one GPU', { gpu: 'h100-sxm5-80gb' }]]) {
  test(`a serving link (${name}) shows the replicas and monthly costs of gpuplan serve --json, without freezing`, async () => {
    const keys = { ...example, ...extra };
    const hash = new URLSearchParams(keys).toString();
    await page.goto(`${server.url}/index.html#${hash}`);
    await waitForState(page, 's.tab === "serving"');
    const t0 = Date.now();
    const frames = await framesUntilServed();
    // Every instance is seconds of simulation on a 2-core machine with software WebGL.
    const s = await waitForState(page, 's.serving.progress === 1 && s.serving.latency.length > 0', 60000);
    console.log(`${name}: served in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    assert.equal(s.serving.error, '');
    console.log(`${name}: ${frames.n} frames, the longest ${frames.longest.toFixed(0)} ms`);
    if (name === 'every instance') {
      // Every instance of the catalog: seconds of simulation, drawn as a progress bar.
      assert.ok(frames.sawProgress, 'the progress bar was shown');
      assert.ok(frames.n > 5, `only ${frames.n} frames drawn during the simulation`);
    }
    assert.ok(frames.longest < 2000, `a frame took ${frames.longest.toFixed(0)} ms: the page froze`);
    const args = ['serve'];
    for (const [k, v] of Object.entries(keys)) args.push(`--${k}`, v);
    const cli = await cliJson(args);
    assert.equal(s.serving.options.length, cli.options.length);
    for (let i = 0; i < cli.options.length; ++i) {
      const [p, c] = [s.serving.options[i], cli.options[i]];
      assert.equal(p.instance, c.instance, `#${i}`);
      assert.equal(p.tp, c.tp, `#${i} ${c.instance}`);
      assert.equal(p.fixed_replicas, c.fixed_replicas, `#${i} ${c.instance}`);
      assert.deepEqual(p.replicas_per_hour, c.replicas_per_hour, `#${i} ${c.instance}`);
      assert.equal(p.costs[0].usd_per_month_fixed, c.costs[0].usd_per_month_fixed, `#${i} ${c.instance}`);
      assert.equal(p.costs[0].usd_per_month_autoscaled, c.costs[0].usd_per_month_autoscaled,
                   `#${i} ${c.instance}`);
    }
    assert.deepEqual(s.serving.load_curve_per_s, cli.load_curve_per_s);
    // The link the page writes back is the same options (and the tab).
    const written = new URLSearchParams(s.query);
    for (const [k, v] of Object.entries(keys)) assert.equal(written.get(k), v, k);
    assert.equal(written.get('tab'), 'serving');
    // The charts are drawn.
    for (const w of ['serve-ranking', 'serve-load-chart', 'serve-replicas-chart', 'serve-ttft-chart',
                     'serve-tpot-chart', 'serve-cost-chart']) {
      const [x0, y0, x1, y1] = await widget(page, w);
      assert.ok(x1 > x0 && y1 > y0, w);
    }
    const drawn = await screenshot(page, `serving-${name.replace(/ /g, '-')}`);
    assert.ok(drawn > 0.01, 'the Serving tab is not blank');
  });
}

test('the Serving tab in Chinese, and a bad serve key named in page words', async () => {
  await page.goto(`${server.url}/index.html#model=llama-3-8b&rate=5&tp=99&gpu=h100-sxm5-80gb&lang=zh`);
  const s = await waitForState(page, 's.tab === "serving" && s.serving.progress === 1 && s.serving.options.length > 0');
  assert.equal(s.lang, 'zh');
  assert.equal(s.link_problems.length, 1);
  assert.equal(s.link_problems[0].key, 'tp');
  assert.match(s.link_problems[0].message, /--tp: 99 is out of range \[1, 64\]/);
  assert.ok(!new URLSearchParams(s.query).has('tp'));
});

// Every input label of the Serving tab and of the sidebar is shown whole at this window size (the
// page names a label it cut with an ellipsis in the mirror, as "cut-label-ID"), in English and in
// Chinese: a language model's training setup with the parallelism section open, then an image
// model on an instance (resolution, memory format, nodes, epochs, dataset size).
test('no input label of the Serving tab or the sidebar is cut, in English or Chinese', async () => {
  const cutLabels = (s) => Object.keys(s.widgets).filter((k) => k.startsWith('cut-label-'));
  // A fresh document each time: a header or tree node opened by a click stays open across hashes.
  const open = async (hash, lang) => {
    await page.goto('about:blank');
    await page.goto(`${server.url}/index.html#${hash}&lang=${lang}`);
    return waitForState(page, `s.lang === "${lang}" && (s.lang === "en" || s.cjk_font === true)`);
  };
  for (const lang of ['en', 'zh']) {
    await open('model=llama-3-8b&rate=5&gpu=h100-sxm5-80gb', lang);
    await widget(page, 'serve-curve');  // the layout has settled
    await clickWidget(page, 'section-parallel');
    await widget(page, 'zero');
    let s = await waitForState(page, 's.tab === "serving" && s.widgets["serve-curve"] !== undefined');
    assert.deepEqual(cutLabels(s), [], `${lang}: labels cut`);
    await screenshot(page, `serving-labels-${lang}`);
    await open('model=resnet50&instance=aws-p4d.24xlarge&epochs=90', lang);
    await widget(page, 'pricing');
    s = await waitForState(page, 's.estimate !== null && s.widgets["pricing"] !== undefined');
    assert.deepEqual(cutLabels(s), [], `${lang}: sidebar labels cut for an image model`);
    await screenshot(page, `sidebar-labels-image-${lang}`);
    // The check itself sees cuts: the custom transformer editor's longest label (its maximum
    // positions, with what 0 means) is cut, its whole text in a tooltip.
    await open('custom=transformer&c-layers=2&c-hidden=64&c-heads=4&c-ffn=256&c-vocab=100', lang);
    await clickWidget(page, 'custom-transformer');
    s = await waitForState(page, 's.widgets["cut-label-max_positions"] !== undefined');
    assert.ok(cutLabels(s).length > 0, `${lang}: no cut label recorded (is the mirror still written?)`);
  }
});
