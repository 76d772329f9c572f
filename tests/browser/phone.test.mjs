// The page on a phone (issue 31): Chromium's touch emulation at 390x844 CSS px. A tap on a
// number field focuses a real <input> (so a phone opens its keyboard) and what is typed there,
// keys or an IME's composition, reaches the field once; a swipe scrolls the panel under the
// finger and keeps going after the finger lifts; the tabs are at the top; the Plans table
// scrolls sideways with its rank and instance columns pinned. Positions are the page's own
// widget rectangles (window.gpuplanState.widgets, CSS px); no verdict depends on speed (swipes
// carry their own event timestamps).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, waitForState, widget, settled, screenshot, PHONE, tapWidget, swipe } from './harness.mjs';

let server, browser;
useBrowser(null, (s) => ({ server, browser } = s));

const LINK = 'model=gpt2-small&batch=8&precision=amp-bf16&tokens=1e9';

async function phone(query = '') {
  const ctx = await browser.newContext(PHONE);
  const page = await ctx.newPage();
  await page.goto(`${server.url}/index.html${query}#${LINK}`);
  await waitForState(page, 's.estimate !== null');
  return { ctx, page, cdp: await ctx.newCDPSession(page) };
}

async function rect(page, name) {
  return (await waitForState(page, `s.widgets && s.widgets[${JSON.stringify(name)}]`)).widgets[name];
}

test('phone: tabs at the top; a tapped field takes keys and an IME through a real <input>', async () => {
  const { ctx, page, cdp } = await phone();
  // Stacked above the tabs, the inputs put them 1,070 px down this page (issue 31).
  const tabs = await widget(page, 'tab-results');
  const inputsTab = await widget(page, 'tab-inputs');
  console.log(`tabs at y ${tabs[1]}-${tabs[3]} CSS px of 844`);
  assert.ok(tabs[3] < 844 / 4, `the Results tab ends at y ${tabs[3]}`);
  assert.equal(inputsTab[1], tabs[1], 'the inputs are a tab beside the results');

  await tapWidget(page, 'tab-inputs');
  await tapWidget(page, 'custom-transformer', 10);  // a tap opens the editor: more inputs than the screen holds
  await tapWidget(page, 'batch', 40);
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'text-input');
  // Placed at the field's caret (the page moves it there; a phone scrolls the field into view).
  const [bx0, by0, bx1, by1] = await widget(page, 'batch');
  const box = await page.locator('#text-input').boundingBox();
  assert.ok(box.x >= bx0 && box.x <= bx1 && box.y >= by0 - 1 && box.y <= by1, JSON.stringify({ box, batch: [bx0, by0, bx1, by1] }));
  await page.keyboard.type('16', { delay: 50 });
  await page.keyboard.press('Enter', { delay: 100 });
  let s = await waitForState(page, 's.estimate && s.estimate.global_batch !== 8');
  assert.equal(s.estimate.global_batch, 16, 'each typed digit arrives once');
  // Enter ended the editing (the <input> let go); a tap edits again, the text selected.
  await page.waitForFunction(() => document.activeElement.id !== 'text-input');
  await tapWidget(page, 'batch', 40);
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'text-input');
  // An IME composes in the <input> and commits: the composed text arrives once, at the end.
  await cdp.send('Input.imeSetComposition', { text: '32', selectionStart: 2, selectionEnd: 2 });
  await cdp.send('Input.insertText', { text: '32' });
  await page.keyboard.press('Enter', { delay: 100 });
  s = await waitForState(page, 's.estimate && s.estimate.global_batch !== 16');
  assert.equal(s.estimate.global_batch, 32, 'the composition arrives once');
  // A tap on a label ends the editing too: the <input> lets go (the keyboard closes).
  await tapWidget(page, 'batch', 40);
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'text-input');
  await page.touchscreen.tap(20, (by0 + by1) / 2);
  await page.waitForFunction(() => document.activeElement.id !== 'text-input');
  await screenshot(page, 'phone-en-inputs');

  await ctx.close();
});

test('phone: the Plans tab is a tap away; its table scrolls sideways with the instance column pinned; swipes scroll with momentum', async () => {
  const { ctx, page, cdp } = await phone();
  await tapWidget(page, 'tab-plans');
  const s = await waitForState(page, 's.tab === "plans" && s.plans && s.plans.top && s.plan_progress === 1');
  assert.ok(s.plans.top.length > 0 && s.plans.top[0].instance.length > 0, JSON.stringify(s.plans).slice(0, 300));
  const table = await widget(page, 'plans-table');
  const name = await widget(page, 'plan-instance-0');
  console.log(`plans table ${JSON.stringify(table)}, first instance name ${JSON.stringify(name)}`);
  // The whole name is drawn inside the table (it was cut to nothing in a squeezed column).
  assert.ok(name[2] - name[0] > 0 && name[0] >= table[0] && name[2] <= table[2], 'the instance name fits');
  await screenshot(page, 'phone-en-plans');
  // A sideways swipe on a row moves the unpinned columns, not the instance names, and clicks no plan.
  const tick = await widget(page, 'compare-0');
  await swipe(cdp, 300, (name[1] + name[3]) / 2, -200, 0);
  await settled(page);
  const moved = await widget(page, 'compare-0');
  console.log(`compare tick at x ${tick[0]}, ${moved[0]} after a swipe left`);
  assert.ok(moved[0] < tick[0], 'the table scrolled sideways');
  assert.deepEqual(await widget(page, 'plan-instance-0'), name, 'the instance column is pinned');
  assert.equal((await waitForState(page)).tab, 'plans', 'the swipe loaded no plan');

  // A swipe up on the labels above the table (nothing a drag works) scrolls the panel; it goes
  // on after the lift.
  const query = (await waitForState(page)).query;
  const before = await widget(page, 'plans-table');
  await swipe(cdp, 20, 450, 0, -50);
  const lifted = await rect(page, 'plans-table');
  await settled(page);
  const after = await widget(page, 'plans-table');
  console.log(`plans table at y ${before[1]}, ${lifted[1]} at the lift, ${after[1]} at rest`);
  assert.ok(lifted[1] < before[1], 'the swipe scrolled the panel');
  assert.ok(after[1] < lifted[1], 'the fling carried on after the lift');
  assert.equal((await waitForState(page)).query, query, 'the swipe clicked nothing');
  // A finger that stops before lifting throws nothing: the panel stays where the finger left it.
  await swipe(cdp, 20, 300, 0, 40, { hold_ms: 200 });
  const held = await rect(page, 'plans-table');
  await settled(page);
  assert.ok(held[1] > after[1], 'the second swipe scrolled back');
  assert.deepEqual(await widget(page, 'plans-table'), held, 'no fling after a finger that stopped');
  await ctx.close();
});

test('phone: the Chinese page at 390x844', async () => {
  const { ctx, page } = await phone('?lang=zh');
  await waitForState(page, 's.lang === "zh" && s.cjk_font === true');
  await settled(page);
  assert.ok(await screenshot(page, 'phone-zh-results') > 0.01, 'the results are drawn');
  await tapWidget(page, 'tab-inputs');
  await widget(page, 'batch');
  await settled(page);
  assert.ok(await screenshot(page, 'phone-zh-inputs') > 0.01, 'the inputs are drawn');
  await tapWidget(page, 'tab-plans');
  await waitForState(page, 's.tab === "plans" && s.plans && s.plans.top && s.plan_progress === 1');
  await settled(page);
  assert.ok(await screenshot(page, 'phone-zh-plans') > 0.01, 'the plans are drawn');
  await ctx.close();
});

test('phone: the instance table of the Hardware tab scrolls sideways with the instance column pinned', async () => {
  const { ctx, page, cdp } = await phone('?lang=zh');
  await waitForState(page, 's.lang === "zh" && s.cjk_font === true');
  await tapWidget(page, 'tab-hardware');
  await waitForState(page, 's.tab === "hardware"');
  const table = await widget(page, 'instances-table');
  const name = await widget(page, 'hw-instance-0');
  console.log(`instances table ${JSON.stringify(table)}, first instance ${JSON.stringify(name)}`);
  // Drawn whole and inside the table: a squeezed column cut every id to '...' (3 glyphs, about
  // 20 CSS px); the shortest instance id of the catalog has 9 characters.
  assert.ok(name[2] - name[0] > 40 && name[0] >= table[0] && name[2] <= table[2], 'the instance name fits');
  await settled(page);
  assert.ok(await screenshot(page, 'phone-zh-hardware') > 0.01, 'the hardware tab is drawn');
  const basis = await widget(page, 'hw-basis-0');
  const query = (await waitForState(page)).query;
  await swipe(cdp, 300, (name[1] + name[3]) / 2, -200, 0);
  await settled(page);
  const moved = await widget(page, 'hw-basis-0');
  console.log(`last column at x ${basis[0]}, ${moved[0]} after a swipe left`);
  assert.ok(moved[0] < basis[0], 'the table scrolled sideways');
  assert.deepEqual(await widget(page, 'hw-instance-0'), name, 'the instance column is pinned');
  assert.equal((await waitForState(page)).query, query, 'the swipe chose no instance');
  await ctx.close();
});
