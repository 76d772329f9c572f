// The page rests when nothing happens (issue 31: it redrew every animation frame, and four open
// tabs brought a machine to 6.5 frames per second). It draws on input, on a change from outside
// (the link) and while work is in flight (a planner search), and no frame otherwise; the canvas
// keeps its last image meanwhile. Counts of frames drawn (window.gpuplanFrames), 0 against more
// than 0: no verdict depends on the machine's speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, waitForState, screenshot, clickWidget, frames, framesDrawn, settled } from './harness.mjs';

let server, page;

useBrowser({ width: 1100, height: 720 }, (s) => ({ server, page } = s));

// Frames drawn over 2 s with no input, and at least 30 animation frames however slow the machine.
async function idleFrames(p) {
  const before = await framesDrawn(p);
  const ticks = await p.evaluate(() => new Promise((resolve) => {
    const t0 = performance.now();
    let n = 0;
    const tick = () => (++n >= 30 && performance.now() - t0 >= 2000 ? resolve(n) : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  }));
  return { drawn: (await framesDrawn(p)) - before, ticks };
}

test('an idle page draws no frame and keeps its image; input wakes it, typing works, then it rests again', async () => {
  await page.goto(`${server.url}/index.html#model=gpt2-small&batch=8&precision=amp-bf16`);
  await waitForState(page, 's.estimate !== null');
  const drawnAtRest = await settled(page);
  assert.ok(drawnAtRest > 0, 'the page drew its first frames');
  const shown = await page.screenshot();

  let idle = await idleFrames(page);
  assert.equal(idle.drawn, 0, `${idle.drawn} frames drawn in ${idle.ticks} animation frames without input`);
  // The canvas still shows the last frame drawn: not cleared, not blank.
  const nonBackground = await screenshot(page, 'idle-after-2s');
  assert.ok(nonBackground > 0.01, `only ${(nonBackground * 100).toFixed(2)}% of pixels differ from the background`);
  assert.ok(shown.equals(await page.screenshot()), 'the page looks as it did before idling');

  // A mouse move draws frames (hover follows the mouse).
  let before = await framesDrawn(page);
  await page.mouse.move(200, 200);
  await frames(page, 5);
  assert.ok(await framesDrawn(page) > before, 'a mouse move draws');
  // A key draws frames.
  await settled(page);
  before = await framesDrawn(page);
  await page.keyboard.press('Shift', { delay: 50 });
  await frames(page, 5);
  assert.ok(await framesDrawn(page) > before, 'a key draws');

  // Typing a value changes the result.
  await clickWidget(page, 'batch');
  await page.keyboard.type('16', { delay: 50 });
  await page.keyboard.press('Enter', { delay: 100 });
  await waitForState(page, 's.estimate && s.estimate.global_batch === 16');
  assert.match(await page.evaluate(() => location.hash), /batch=16/);

  // Then it rests again, the text field keeping the focus (its caret does not blink).
  await settled(page);
  idle = await idleFrames(page);
  assert.equal(idle.drawn, 0, `${idle.drawn} frames drawn in ${idle.ticks} animation frames after typing`);
});

test('a link set from JavaScript wakes the page; a planner search runs to its end without input', async () => {
  await settled(page);
  const before = await framesDrawn(page);
  // More than 1e5 configurations, at most 1e4 a frame (web/model/slices.h): many frames, each
  // drawn because the search is in flight, not because of input (none comes).
  await page.evaluate(() => {
    location.hash = 'model=llama-2-7b&precision=amp-bf16&batch=512&seq=4096&tokens=1e11&max-nodes=128&tab=plans';
  });
  const s = await waitForState(page, 's.tab === "plans" && s.plans && s.plans.top && s.plan_progress === 1');
  assert.ok(s.plans.candidates >= 1e5, `${s.plans.candidates} candidates`);
  const run = s.plan_search;
  console.log(`planner search without input: ${run.work} configurations in ${run.frames} frames`);
  assert.equal(run.work, s.plans.candidates, 'the search ran to its end');
  // A wake draws 3 frames (main.cpp, kSettleFrames); the search took more.
  assert.ok(run.frames > 3, `the search ran in ${run.frames} frames`);
  assert.ok(await framesDrawn(page) - before >= run.frames, 'each of its frames was drawn');
  // Done, the page rests with the plans on screen.
  await settled(page);
  const idle = await idleFrames(page);
  assert.equal(idle.drawn, 0, `${idle.drawn} frames drawn in ${idle.ticks} animation frames after the search`);
  const nonBackground = await screenshot(page, 'idle-plans-after-search');
  assert.ok(nonBackground > 0.01, 'the plans are still shown');
});

test('resizing the window wakes the page and the canvas follows', async () => {
  await settled(page);
  const before = await framesDrawn(page);
  await page.setViewportSize({ width: 900, height: 640 });
  await page.waitForFunction(() => document.getElementById('canvas').width === 900 * devicePixelRatio);
  assert.ok(await framesDrawn(page) > before, 'a resize draws');
  await settled(page);
  assert.ok(await screenshot(page, 'idle-after-resize') > 0.01, 'the resized page is drawn');
});
