// The Serving tab in real headless Chromium: a link with `gpuplan serve`'s options opens it,
// the simulation runs in slices while the page keeps drawing, and the replicas and monthly
// costs it shows equal the native CLI's for the same options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, waitForState, openLink, cliJson, screenshot, widget, clickWidget, settled } from './harness.mjs';

let server, page;

useBrowser({ width: 1280, height: 900 }, (s) => ({ server, page } = s));

const example = {
  model: 'llama-3-8b', rate: '30', 'load-curve': 'diurnal', 'prompt-tokens': '1500',
  'output-tokens': '300', 'ttft-ms': '1000', 'tpot-ms': '50',
};

for (const [name, extra] of [['every instance', {}], ['one GPU', { gpu: 'h100-sxm5-80gb' }],
                              ['hybrid linear attention', { model: 'qwen3-next-80b-a3b', gpu: 'h200-sxm-141gb' }]]) {
  test(`a serving link (${name}) shows the replicas and monthly costs of gpuplan serve --json, without freezing`, async () => {
    const keys = { ...example, ...extra };
    const hash = new URLSearchParams(keys).toString();
    await openLink(page, `${server.url}/index.html#${hash}`, 's.tab === "serving"');
    const t0 = Date.now();
    // Every instance is seconds of simulation on a 2-core machine with software WebGL.
    const s = await waitForState(page, 's.serving.progress === 1 && s.serving.latency.length > 0', 120000);
    console.log(`${name}: served in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    assert.equal(s.serving.error, '');
    // The job runs one slice a frame (web/model/slices.h): a replica's rate search, the ranking,
    // or a point of the latency curve, then the page draws. Counted in slices, not in frames
    // drawn or milliseconds, so the verdict is the same on a fast or a loaded machine.
    const run = s.serving.search;
    console.log(`${name}: ${run.slices} slices in ${run.frames} frames`);
    assert.equal(run.largest_frame, 1, 'no frame ran more than one slice');
    assert.equal(run.frames, run.slices);
    if (name === 'every instance') {
      // Every instance of the catalog: many replicas, so many frames with the progress bar.
      assert.ok(run.slices > 5, `only ${run.slices} slices`);
    }
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
      // The band of held-out serving error is the CLI's, around the rate.
      assert.deepEqual(p.replica_max_rate_per_s_range, c.band.replica_max_rate_per_s_range, `#${i} ${c.instance}`);
      assert.equal(p.rate_band_pool, c.band.rate_band.pool, `#${i} ${c.instance}`);
      const [low, high] = p.replica_max_rate_per_s_range;
      assert.ok(low < p.replica_max_rate_per_s && p.replica_max_rate_per_s < high, `#${i} ${c.instance}`);
    }
    assert.deepEqual(s.serving.load_curve_per_s, cli.load_curve_per_s);
    // The link the page writes back is the same options (and the tab).
    const written = new URLSearchParams(s.query);
    for (const [k, v] of Object.entries(keys)) assert.equal(written.get(k), v, k);
    assert.equal(written.get('tab'), 'serving');
    // The charts are drawn.
    for (const w of ['serve-ranking', 'serve-band', 'serve-band-link', 'serve-load-chart', 'serve-replicas-chart', 'serve-ttft-chart',
                     'serve-tpot-chart', 'serve-cost-chart']) {
      const [x0, y0, x1, y1] = await widget(page, w);
      assert.ok(x1 > x0 && y1 > y0, w);
    }
    if (name === 'one GPU') {
      // The band's line links the Benchmarks rows of the serving pool it came from (the CLI's).
      const slug = (pool) => pool.toLowerCase().replace(/\*/g, '').replace(/[^a-z0-9._]+/g, '-').replace(/^-+|-+$/g, '');
      // It is below the ranking: tall enough to have it on screen without scrolling.
      await page.setViewportSize({ width: 1280, height: 1400 });
      try {
        await page.evaluate(() => { window.gpuplanLastOpened = undefined; });
        await clickWidget(page, 'serve-band-link', 20);
        await page.waitForFunction(() => window.gpuplanLastOpened !== undefined, null, { timeout: 10000 });
        assert.equal(await page.evaluate(() => window.gpuplanLastOpened),
                     `../benchmarks/#band-serving-${slug(cli.options[0].band.rate_band.pool)}`);
      } finally {
        // The link opened the Benchmarks page in a new tab, which took the keyboard: close it.
        for (const other of page.context().pages()) if (other !== page) await other.close();
        await page.bringToFront();
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    }
    const drawn = await screenshot(page, `serving-${name.replace(/ /g, '-')}`);
    assert.ok(drawn > 0.01, 'the Serving tab is not blank');
  });
}

// The comparison: two GPUs picked in the Serving tab's multi-select, one run, one table whose
// rows are `gpuplan serve --gpu ID`'s first option each (run here), sorted by a header's click.
test('comparing two GPUs side by side: each row is gpuplan serve --gpu ID, and a header click sorts', async () => {
  const picked = ['a100-sxm4-80gb', 'h100-sxm5-80gb'];
  const keys = { ...example, gpu: 'h100-sxm5-80gb' };
  // Tall enough that the comparison below the ranking is on screen without scrolling.
  await page.setViewportSize({ width: 1280, height: 1800 });
  try {
    await page.goto('about:blank');
    await page.goto(`${server.url}/index.html#${new URLSearchParams(keys).toString()}`);
    await waitForState(page, 's.tab === "serving" && s.serving.progress === 1 && s.serving.options.length > 0', 120000);
    await clickWidget(page, 'serve-compare');
    // Each pick once the page has taken the last and compared it: a second pick clicked while
    // the first one's run was busy in its frames was seen lost (the link kept only the first).
    const picks = [];
    for (const id of picked) {
      await clickWidget(page, `serve-compare-item-${id}`);
      picks.push(id);
      await waitForState(page, `new URLSearchParams(s.query).get("serve-compare") === "${picks.join(',')}" && ` +
                               `s.serving.compare.rows.length === ${picks.length} && s.serving.compare.progress === 1`, 120000);
    }
    await page.keyboard.press('Escape', { delay: 100 });  // held over a frame, as a hand does
    await waitForState(page, '!s.popup_open');
    let s = await waitForState(page, `s.serving.compare.rows.length === ${picked.length} && s.serving.compare.progress === 1`, 120000);
    // The set is the link's: reopening it is the same comparison.
    const written = new URLSearchParams(s.query);
    assert.equal(written.get('serve-compare'), picked.join(','));
    for (const [k, v] of Object.entries(keys)) assert.equal(written.get(k), v, k);
    // Run in slices as the tab's own plan (one replica search a frame), so the page stayed live.
    const run = s.serving.compare.search;
    assert.equal(run.largest_frame, 1, 'no frame ran more than one slice');
    assert.ok(run.slices > picked.length, `only ${run.slices} slices`);
    // The run over, the page rests (draws no frame until something changes).
    await settled(page);
    const base = ['serve'];
    for (const [k, v] of Object.entries(example)) base.push(`--${k}`, v);
    const byGpu = {};
    for (const row of s.serving.compare.rows) byGpu[row.target] = row;
    assert.deepEqual(Object.keys(byGpu).sort(), [...picked].sort());
    for (const id of picked) {
      const [p, c] = [byGpu[id], (await cliJson([...base, '--gpu', id])).options[0]];
      console.log(`compare ${id}: page ${p.instance} tp ${p.tp} x${p.fixed_replicas} ` +
                  `${p.usd_per_month_autoscaled} USD/month; cli ${c.instance} tp ${c.tp} x${c.fixed_replicas} ` +
                  `${c.costs[0].usd_per_month_autoscaled} USD/month`);
      assert.equal(p.error, '', id);
      assert.equal(p.gpu, id);
      assert.equal(p.instance, c.instance, id);
      assert.equal(p.tp, c.tp, id);
      assert.equal(p.fixed_replicas, c.fixed_replicas, id);
      assert.equal(p.replica_max_rate_per_s, c.replica_max_rate_per_s, id);
      assert.equal(p.ttft_s, c.at_max_rate.ttft_s.p90, id);
      assert.equal(p.tpot_s, c.at_max_rate.tpot_s.p90, id);
      assert.equal(p.usd_per_month_fixed, c.costs[0].usd_per_month_fixed, id);
      assert.equal(p.usd_per_month_autoscaled, c.costs[0].usd_per_month_autoscaled, id);
      assert.equal(p.usd_per_million_output_tokens, c.costs[0].usd_per_million_output_tokens, id);
      // The targets of `example`: 1,000 ms to the first token, 50 ms per token after (p90).
      assert.equal(p.meets_targets, c.at_max_rate.ttft_s.p90 <= 1 && c.at_max_rate.tpot_s.p90 <= 0.05, id);
    }
    const costs = (st) => st.serving.compare.rows.map((r) => r.usd_per_month_autoscaled);
    assert.notEqual(costs(s)[0], costs(s)[1], 'two GPUs at the same cost cannot show an order');
    // By GPU, then by cost (a new column sorts ascending), then by cost again (descending).
    await clickWidget(page, 'serve-compare-col-gpu', 10);
    s = await waitForState(page, 's.serving.compare.sort.column === "gpu"');
    assert.deepEqual(s.serving.compare.rows.map((r) => r.gpu), [...picked].sort());
    await clickWidget(page, 'serve-compare-col-month', 10);
    s = await waitForState(page, 's.serving.compare.sort.column === "month" && !s.serving.compare.sort.descending');
    assert.deepEqual(costs(s), [...costs(s)].sort((a, b) => a - b));
    await clickWidget(page, 'serve-compare-col-month', 10);
    s = await waitForState(page, 's.serving.compare.sort.column === "month" && s.serving.compare.sort.descending');
    assert.deepEqual(costs(s), [...costs(s)].sort((a, b) => b - a));
    const [x0, y0, x1, y1] = await widget(page, 'serve-compare-table');
    assert.ok(x1 > x0 && y1 > y0, 'the comparison table is drawn');
    await screenshot(page, 'serving-compare');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

test('the Serving tab in Chinese, and a bad serve key named in page words', async () => {
  const s = await openLink(page, `${server.url}/index.html#model=llama-3-8b&rate=5&tp=99&gpu=h100-sxm5-80gb&lang=zh`,
                           's.tab === "serving" && s.serving.progress === 1 && s.serving.options.length > 0');
  assert.equal(s.lang, 'zh');
  assert.equal(s.link_problems.length, 1);
  assert.equal(s.link_problems[0].key, 'tp');
  assert.match(s.link_problems[0].message, /--tp: 99 is out of range \[1, 64\]/);
  assert.ok(!new URLSearchParams(s.query).has('tp'));
});

test('prefix caching and speculative decoding from a link: their fields are drawn and the plan is gpuplan serve\'s', async () => {
  const keys = {
    model: 'llama-3.1-8b', rate: '2', gpu: 'h100-sxm5-80gb', tp: '1', 'prefix-hit-rate': '0.5',
    'spec-method': 'eagle', 'spec-tokens': '4', 'spec-acceptance': '0.8',
  };
  const s = await openLink(page, `${server.url}/index.html#${new URLSearchParams(keys).toString()}`,
                           's.tab === "serving" && s.serving.progress === 1 && s.serving.options.length > 0', 120000);
  assert.equal(s.serving.error, '');
  for (const w of ['serve-prefix-hit', 'serve-spec-method', 'serve-spec-tokens', 'serve-spec-acceptance']) {
    const [x0, y0, x1, y1] = await widget(page, w);
    assert.ok(x1 > x0 && y1 > y0, w);
  }
  const args = ['serve'];
  for (const [k, v] of Object.entries(keys)) args.push(`--${k}`, v);
  const cli = await cliJson(args);
  assert.equal(cli.speculative_decoding.tokens_per_step, 3.3616);
  assert.equal(s.serving.options.length, cli.options.length);
  const [p, c] = [s.serving.options[0], cli.options[0]];
  assert.equal(p.replica_max_rate_per_s, c.replica_max_rate_per_s);
  assert.equal(p.costs[0].usd_per_month_fixed, c.costs[0].usd_per_month_fixed);
  const written = new URLSearchParams(s.query);
  for (const [k, v] of Object.entries(keys)) assert.equal(written.get(k), v, k);
});

test('a speculative method without its measured acceptance rate is named, in page words', async () => {
  const s = await openLink(page, `${server.url}/index.html#model=llama-3.1-8b&rate=2&gpu=h100-sxm5-80gb&spec-method=eagle&spec-tokens=4&lang=zh`,
                           's.tab === "serving" && s.serving.error !== ""', 60000);
  assert.match(s.serving.error, /^--spec-acceptance: --spec-method eagle needs the measured per-token acceptance rate/);
  assert.match(s.serving.error_shown, /--spec-acceptance：--spec-method eagle 需要实测的逐 token 接受率/);
  // The link keeps what was written: the page shows the fields to fill in.
  assert.equal(new URLSearchParams(s.query).get('spec-tokens'), '4');
  const [x0, , x1] = await widget(page, 'serve-spec-acceptance');
  assert.ok(x1 > x0);
});

// The labels the page cut with an ellipsis: it names each in the mirror as "cut-label-ID".
const cutLabels = (s) => Object.keys(s.widgets).filter((k) => k.startsWith('cut-label-'));

// A fresh document each time: a header or tree node opened by a click stays open across hashes.
async function openFresh(hash, lang) {
  await page.goto('about:blank');
  await page.goto(`${server.url}/index.html#${hash}&lang=${lang}`);
  return waitForState(page, `s.lang === "${lang}" && (s.lang === "en" || s.cjk_font === true)`);
}

// Every input label of the Serving tab and of the sidebar is shown whole at this window size, in
// English and in Chinese: a language model's serving link with the parallelism section open, its
// training setup with a mixed recipe and every-k-layers checkpointing (which show their own
// fields), then an image model on an instance (resolution, memory format, nodes, epochs, dataset
// size).
test('no input label of the Serving tab or the sidebar is cut, in English or Chinese', async () => {
  for (const lang of ['en', 'zh']) {
    await openFresh('model=llama-3-8b&rate=5&gpu=h100-sxm5-80gb', lang);
    await widget(page, 'serve-curve');  // the layout has settled
    await clickWidget(page, 'section-parallel');
    await widget(page, 'zero');
    let s = await waitForState(page, 's.tab === "serving" && s.widgets["serve-curve"] !== undefined');
    assert.deepEqual(cutLabels(s), [], `${lang}: labels cut`);
    await screenshot(page, `serving-labels-${lang}`);
    await openFresh('model=llama-3-8b&precision=mixed-bf16&checkpointing=every-k-layers' +
                    '&gpu=h100-sxm5-80gb', lang);
    await widget(page, 'pytorch');
    s = await waitForState(page, 's.estimate !== null && s.widgets["pytorch"] !== undefined');
    assert.deepEqual(s.link_problems, [], `${lang}: the link's keys were not all read`);
    assert.deepEqual(cutLabels(s), [], `${lang}: training setup labels cut`);
    await screenshot(page, `sidebar-labels-training-${lang}`);
    await openFresh('model=resnet50&instance=aws-p4d.24xlarge&epochs=90', lang);
    await widget(page, 'pricing');
    s = await waitForState(page, 's.estimate !== null && s.widgets["pricing"] !== undefined');
    assert.deepEqual(cutLabels(s), [], `${lang}: sidebar labels cut`);
    await screenshot(page, `sidebar-labels-image-${lang}`);
    // The Plans tab's limits (deadline and budget say what 0 means).
    await openFresh('model=llama-2-7b&tokens=2e8&tab=plans', lang);
    await widget(page, 'plan-provider');
    s = await waitForState(page, 's.tab === "plans" && s.widgets["plan-provider"] !== undefined');
    assert.deepEqual(cutLabels(s), [], `${lang}: Plans tab labels cut`);
    await screenshot(page, `plans-labels-${lang}`);
  }
  // The check itself sees cuts: in a 920 px window, the narrowest that keeps the inputs beside
  // the tabs, the Serving tab's label column is held to half its room, which cuts its longest
  // English labels (the TTFT and TPOT targets) with an ellipsis, their whole text in a tooltip.
  try {
    await page.setViewportSize({ width: 920, height: 800 });
    await openFresh('model=llama-3-8b&rate=5&gpu=h100-sxm5-80gb', 'en');
    await widget(page, 'serve-curve');
    const s = await waitForState(page, 's.widgets["cut-label-serve_ttft"] !== undefined');
    assert.ok(cutLabels(s).length > 0, 'no cut label recorded (is the mirror still written?)');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

// The custom model editors, opened by a click on their tree node, fit their own (indented) label
// column: at the page's usual window sizes (at 1366x800 the open editor adds a scrollbar beside
// the sidebar, less room; at 1920x1080 not), in English and in Chinese, no label is cut and each
// field sits beside its label (with under 14 em left for the field it would go under it).
test('no label of the custom transformer or CNN editor is cut, and each field sits beside its label', async () => {
  const editors = [
    ['transformer', 'custom-transformer',
     'custom=transformer&c-layers=2&c-hidden=64&c-heads=4&c-ffn=256&c-vocab=100&c-experts=8&c-experts-per-token=2',
     ['c-layers', 'c-hidden', 'c-heads', 'c-kv-heads', 'c-ffn', 'c-vocab', 'c-max-positions',
      'c-experts', 'c-experts-per-token']],
    ['yolov5', 'custom-cnn', 'custom=cnn&cnn=yolov5', ['cnn', 'cnn-width', 'cnn-depth-multiple', 'cnn-classes']],
    ['resnet', 'custom-cnn', 'custom=cnn&cnn=resnet&cnn-depth=50', ['cnn', 'cnn-depth', 'cnn-classes']],
  ];
  try {
    for (const [width, height] of [[1366, 800], [1920, 1080]]) {
      await page.setViewportSize({ width, height });
      for (const lang of ['en', 'zh']) {
        for (const [name, node, hash, fields] of editors) {
          const where = `${name}, ${lang}, ${width}x${height}`;
          await openFresh(hash, lang);
          await clickWidget(page, node);
          await widget(page, fields.at(-1));  // open, its layout settled
          const s = await waitForState(page);
          assert.deepEqual(cutLabels(s), [], `${where}: labels cut`);
          const [x0] = s.widgets[node];
          for (const f of fields) {
            assert.ok(s.widgets[f][0] > x0 + 100, `${where}: the field ${f} is under its label, not beside it`);
          }
          await screenshot(page, `editor-labels-${name}-${lang}-${width}x${height}`);
        }
      }
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});
