// The page as first-time users meet it (issue 18): a student's LoRA run on a small budget, an
// engineer comparing 8xA100 and 8xH100 across AWS and Lambda, and a link with one bad field;
// numbers typed as people type them, the wheel, Escape, "Copy link", and a phone's width.
// Screenshots at 1366x800 and 390x844 go to test-artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, waitForState, screenshot, widget, clickWidget, cliJson } from './harness.mjs';

let server, browser;

useBrowser(null, (s) => ({ server, browser } = s));

async function open(hash, width = 1366, height = 800) {
  const ctx = await browser.newContext({ viewport: { width, height }, locale: 'en-US' });
  const page = await ctx.newPage();
  await page.goto(`${server.url}/index.html#${hash}`);
  await waitForState(page, 's.estimate !== null || s.error !== ""');
  return { ctx, page };
}

test('a link with one bad field keeps every good field, names the bad one and what it fell back to', async () => {
  const { ctx, page } = await open('model=llama-2-7b&precision=bf16&gpu=h100-sxm5-80gb&gpus=8&zero=3&batch=-5');
  const s = await waitForState(page, 's.estimate !== null && s.link_problems.length > 0');
  assert.equal(s.link_problems.length, 1);
  assert.equal(s.link_problems[0].key, 'batch');
  assert.match(s.link_problems[0].shown, /^Global batch: -5/, 'the message names the page control, not a flag');
  assert.ok(s.link_problems[0].used !== '', 'it says what the page uses instead');
  assert.equal(s.gpu, 'h100-sxm5-80gb');
  assert.equal(s.estimate.num_gpus, 8);
  const cli = await cliJson(['estimate', '--model', 'llama-2-7b', '--precision', 'bf16', '--gpu', 'h100-sxm5-80gb', '--gpus', '8',
                              '--zero', '3']);
  assert.equal(s.estimate.params, cli.params, 'the model of the link is kept');
  await page.waitForTimeout(300);
  await screenshot(page, 'firstuse-bad-field-1366x800');
  // Editing any field takes over from the link: the mark goes away.
  await clickWidget(page, 'batch');
  await page.keyboard.type('32', { delay: 50 });
  await page.keyboard.press('Enter', { delay: 100 });
  const after = await waitForState(page, 's.estimate.global_batch === 32');
  assert.deepEqual(after.link_problems, []);
  await ctx.close();
});

test('a link names a model as the CLI does; an unknown name lists the nearest ids', async () => {
  let { ctx, page } = await open('model=meta-llama/Llama-2-7b-hf&gpu=a100-sxm4-80gb');
  let s = await waitForState(page, 's.estimate !== null');
  assert.deepEqual(s.link_problems, []);
  assert.equal(s.estimate.model, 'llama-2-7b');
  await ctx.close();
  ({ ctx, page } = await open('model=llama-9-7b&gpu=a100-sxm4-80gb'));
  s = await waitForState(page, 's.link_problems.length > 0');
  assert.equal(s.link_problems[0].key, 'model');
  assert.match(s.link_problems[0].message, /Did you mean: llama-2-7b/);
  assert.ok(s.estimate !== null, 'the page still shows an estimate (of the default model)');
  await ctx.close();
});

test('"50M" typed into Tokens is read as 5e7 and shown with separators', async () => {
  const { ctx, page } = await open('model=gpt2-small&batch=8');
  await clickWidget(page, 'tokens');
  await page.keyboard.type('50M', { delay: 50 });
  await page.keyboard.press('Enter', { delay: 100 });
  const s = await waitForState(page, 's.query.includes("tokens=50000000")');
  assert.match(s.query, /tokens=50000000(&|$)/);
  await ctx.close();
});

test('the wheel scrolls down on a positive deltaY, by a step, in pixel and line modes', async () => {
  const { ctx, page } = await open('model=gpt2-small&batch=8', 1366, 420);
  const before = await widget(page, 'pricing');
  const [x0, y0] = await widget(page, 'batch');
  await page.mouse.move(x0 + 5, y0 + 5);
  await page.mouse.wheel(0, 100);  // one notch down, DOM_DELTA_PIXEL
  // Waits for the frame that applies it (however long a loaded machine takes), then for the
  // layout to settle.
  await waitForState(page, `s.widgets && s.widgets.pricing && s.widgets.pricing[1] !== ${before[1]}`);
  const mid = await widget(page, 'pricing');
  const moved = before[1] - mid[1];
  assert.ok(moved > 0, `content must move up when scrolling down (moved ${moved})`);
  assert.ok(moved < 150, `one notch is one step, not a jump to the end (moved ${moved})`);
  // A line-mode wheel (Firefox-style, deltaMode 1): three lines down is one step.
  await page.evaluate(([x, y]) => {
    document.getElementById('canvas').dispatchEvent(new WheelEvent('wheel', { deltaY: 3, deltaMode: 1, clientX: x,
                                                                                clientY: y, bubbles: true }));
  }, [x0 + 5, y0 + 5]);
  await waitForState(page, `s.widgets && s.widgets.pricing && s.widgets.pricing[1] !== ${mid[1]}`);
  const last = await widget(page, 'pricing');
  assert.ok(last[1] < mid[1], 'line-mode wheel scrolls down too');
  await ctx.close();
});

test('Escape closes an open dropdown; "Copy link" confirms', async () => {
  const { ctx, page } = await open('model=gpt2-small&batch=8');
  await clickWidget(page, 'precision');
  await waitForState(page, 's.popup_open === true');
  await page.keyboard.press('Escape', { delay: 100 });
  await waitForState(page, 's.popup_open === false');
  await clickWidget(page, 'copy-link', 10);
  await waitForState(page, 's.link_copied === true');
  await ctx.close();
});

test('student: LoRA on LLaMA-2-7B with a small budget finds plans; assumed prices are flagged', async () => {
  const hash = 'model=llama-2-7b&lora-rank=16&precision=bf16&batch=16&seq=2048&tokens=2e8&tab=plans&budget-usd=200';
  for (const [w, h] of [[1366, 800], [390, 844]]) {
    const { ctx, page } = await open(hash, w, h);
    const s = await waitForState(page, 's.plans && (s.plans.top || s.plans.error)');
    assert.ok(s.plans.top && s.plans.top.length > 0, JSON.stringify(s.plans));
    for (const p of s.plans.top) {
      assert.ok(p.usd_total <= 200, `plan ${p.instance} costs ${p.usd_total} USD, over the budget`);
      assert.equal(typeof p.price_assumed, 'boolean', 'every plan says whether its price is assumed');
    }
    await page.waitForTimeout(400);
    await screenshot(page, `firstuse-student-${w}x${h}`);
    await ctx.close();
  }
});

test('engineer: 8xA100 and 8xH100 on AWS and Lambda, loading a plan switches to Results', async () => {
  const base = 'model=llama-2-7b&precision=bf16&batch=64&seq=2048&zero=3&checkpointing=full&tokens=1e9';
  const totals = {};
  for (const provider of ['aws', 'lambda']) {
    const gpu = provider === 'aws' ? 'a100-sxm4-80gb' : 'h100-sxm5-80gb';
    const { ctx, page } = await open(`${base}&tab=plans&provider=${provider}&plan-gpu=${gpu}`);
    const s = await waitForState(page, 's.plans && s.plans.top && s.plans.top.length > 0');
    totals[provider] = s.plans.top[0].usd_total;
    assert.ok(s.plans.top.every((p) => p.gpu === gpu), 'the GPU filter on Plans applies');
    await page.waitForTimeout(300);
    // Two plans side by side: ticking them puts them in the link.
    await clickWidget(page, 'compare-0', 6);
    await waitForState(page, 's.query.includes("compare=") && s.plans && s.plans.top');
    await clickWidget(page, 'compare-1', 6);
    const both = await waitForState(page, '/compare=[^&]*%2C|compare=[^&]*,/.test(s.query) && s.plans && s.plans.top');
    assert.ok(both.plans.top[0].memory_headroom_bytes > 0, 'a plan that fits has headroom');
    await page.waitForTimeout(300);
    await screenshot(page, `firstuse-engineer-${provider}-1366x800`);
    await clickWidget(page, 'plan-0', 10);
    const loaded = await waitForState(page, 's.tab === "results" && s.instance !== null');
    assert.equal(loaded.instance, s.plans.top[0].instance);
    // The first click on another tab works right away.
    await clickWidget(page, 'tab-hardware', 20);
    await waitForState(page, 's.tab === "hardware"');
    await ctx.close();
  }
  assert.ok(totals.aws > 0 && totals.lambda > 0);
});

test('below 900 px the inputs are the first tab: the tabs stay at the top of a phone', async () => {
  const { ctx, page } = await open('model=gpt2-small&batch=8', 390, 844);
  // Stacked above the tabs, the inputs put them 1,070 px down (issue 31).
  const tab = await widget(page, 'tab-results');
  const inputs = await widget(page, 'tab-inputs');
  assert.ok(tab[3] < 844 / 4, `tabs (y=${tab[1]}) must be at the top of the screen`);
  assert.ok(inputs[2] <= tab[0], 'the inputs come first');
  await clickWidget(page, 'tab-inputs', 10);
  const batch = await widget(page, 'batch');
  assert.ok(batch[1] > tab[3], 'the inputs are under the tabs');
  assert.ok(batch[2] <= 390, 'fields fit the phone width');
  await screenshot(page, 'firstuse-phone-390x844');
  await ctx.close();
});

test('micro-batch "auto" picks the largest micro-batch that fits and says so', async () => {
  const { ctx, page } = await open('model=gpt2-medium&batch=512&precision=amp-bf16&gpu=a100-sxm4-80gb');
  const s = await waitForState(page, 's.estimate !== null');
  assert.equal(s.estimate.global_batch, 512);
  assert.ok(s.estimate.micro_batch < 512, `micro-batch ${s.estimate.micro_batch} should be below the batch`);
  assert.equal(s.fits, true, 'the chosen micro-batch fits');
  assert.equal(512 % s.estimate.micro_batch, 0);
  assert.equal(s.estimate.grad_accum_steps * s.estimate.micro_batch, 512);
  // The next larger divisor would not fit: the CLI with that micro-batch says so.
  const larger = s.estimate.micro_batch * 2;
  const cli = await cliJson(['estimate', '--model', 'gpt2-medium', '--batch', '512', '--precision', 'amp-bf16',
                             '--gpu', 'a100-sxm4-80gb', '--micro-batch', String(larger)]);
  assert.equal(cli.fits, false, `micro-batch ${larger} (${cli.memory_bytes.total} bytes) fits, so it was not the largest`);
  await ctx.close();
});

test('a long planner search runs in slices with a progress bar and the page stays live', async () => {
  const { ctx, page } = await open('model=llama-2-7b&precision=amp-bf16&batch=512&seq=4096&tokens=1e11&max-nodes=128');
  await clickWidget(page, 'tab-plans', 20);
  const s = await waitForState(page, 's.plans && s.plans.top');
  assert.ok(s.plans.candidates >= 1e5, `${s.plans.candidates} candidates`);
  // The page counts what its frames did (web/model/slices.h): each frame evaluates at most its
  // share of configurations, then draws. That spread is a property of the search, not of the
  // machine's speed: a fast machine cannot swallow the search in one frame, a slow one only adds
  // frames. Every frame but the last drew the progress bar.
  const run = s.plan_search;
  console.log(`planner search: ${run.work} configurations, ${run.slices} slices in ${run.frames} frames, ` +
              `at most ${run.largest_frame} in one`);
  assert.equal(run.work, s.plans.candidates, 'the frames did the whole search');
  assert.ok(run.frames >= 3, `the search ran in ${run.frames} frames`);
  assert.ok(run.largest_frame < run.work, `one frame did ${run.largest_frame} of ${run.work}`);
  assert.ok(run.slices >= run.frames, `${run.slices} slices in ${run.frames} frames`);
  assert.equal(s.plan_progress, 1, 'no search under way');
  // The page drew on after the search: the plans are shown and a click still works.
  await clickWidget(page, 'tab-results', 20);
  await waitForState(page, 's.tab === "results"');
  await ctx.close();
});
