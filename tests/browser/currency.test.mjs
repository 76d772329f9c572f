// The currency switch (issue 31): the Chinese page shows CNY when its link names no currency, every
// cost of the Plans table and its budget follow the switch at one sourced rate (that of
// data/pricing_rules.json, read here from the file), a budget typed in CNY keeps the plans the same
// budget in USD keeps, the order of the plans is the same in both currencies, and the switch
// round-trips through the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useBrowser, waitForState, clickWidget, frames, screenshot } from './harness.mjs';

let server, browser;
useBrowser(null, (s) => ({ server, browser } = s));

const rules = JSON.parse(readFileSync(fileURLToPath(new URL('../../data/pricing_rules.json', import.meta.url))));
const usdPerCny = rules.usd_per_cny.value;
const plansLink = 'model=gpt2-medium&batch=64&precision=amp-bf16&tokens=2000000000&provider=aws&tab=plans';

async function open(search, hash) {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale: 'en-US' });
  const page = await ctx.newPage();
  await page.goto(`${server.url}/index.html${search}#${hash}`);
  return { ctx, page };
}

const plansReady = 's.plans && s.plans.top && s.plans.top.length > 0 && s.plan_progress === 1';
// "¥1,234", "1,234 CNY" -> 1234
const amount = (text) => Number(text.replace(/[^\d.]/g, ''));
const order = (s) => s.plans.top.map((p) => `${p.instance}*${p.nodes}`);

// Each shown cost is its USD total at the one rate, rounded as shown (whole units from 100 up).
// `unit` is the currency's sign before the number ("¥") or its word after it ("CNY", "美元").
function assertShownIn(s, unit, perUnit) {
  for (const p of s.plans.top) {
    const inUnit = unit === '¥' ? p.cost_shown.startsWith(unit) : p.cost_shown.endsWith(` ${unit}`);
    assert.ok(inUnit, `${p.instance}: ${p.cost_shown} is not in ${unit}`);
    const want = p.usd_total / perUnit;
    assert.ok(Math.abs(amount(p.cost_shown) - want) <= (want >= 100 ? 0.5 : 0.005) + 1e-9,
              `${p.instance}: shown ${p.cost_shown}, ${p.usd_total} USD / ${perUnit} = ${want}`);
  }
}

test('the Chinese page without a currency key shows CNY in the Plans table and its budget', async () => {
  const { ctx, page } = await open('?lang=zh', plansLink);
  const s = await waitForState(page, `s.lang === "zh" && ${plansReady}`);
  assert.equal(s.money.currency, 'CNY');
  assert.equal(s.money.usd_per_unit, usdPerCny, 'the rate is data/pricing_rules.json usd_per_cny');
  assert.ok(s.money.rate_source.length > 0, 'the rate names its source');
  // Chinese writes an amount in CNY as ¥1,234 and the unit of a column or a field as 元.
  assert.equal(s.money.cost_header, '元');
  assert.match(s.money.budget_label, /（元，/);
  assertShownIn(s, '¥', usdPerCny);
  await page.waitForTimeout(300);
  await screenshot(page, 'currency-zh-plans-cny');
  // A Chinese link that states USD stays USD.
  await page.goto(`${server.url}/index.html?lang=zh#${plansLink}&currency=usd`);
  await page.reload();
  const u = await waitForState(page, `s.lang === "zh" && s.money.currency === "USD" && ${plansReady}`);
  assertShownIn(u, '美元', 1);
  assert.deepEqual(order(u), order(s), 'the ranking does not change with the currency');
  await ctx.close();
});

test('a budget typed in CNY keeps the plans the same budget in USD keeps', async () => {
  // A USD budget halfway between two plans' costs, so rounding the CNY figure cannot move a plan.
  const probe = await open('?lang=en', `${plansLink}&top=50`);
  const all = await waitForState(probe.page, plansReady);
  await probe.ctx.close();
  const costs = [...new Set(all.plans.top.map((p) => p.usd_total))].sort((a, b) => a - b);
  assert.ok(costs.length >= 3, `need plans of three costs, got ${costs.length}`);
  const k = Math.floor(costs.length / 2);
  const budgetUsd = (costs[k - 1] + costs[k]) / 2;
  const budgetCny = (budgetUsd / usdPerCny).toFixed(2);

  const usd = await open('?lang=en', `${plansLink}&top=50&budget-usd=${budgetUsd}`);
  const inUsd = await waitForState(usd.page, plansReady);
  await usd.ctx.close();
  assert.ok(inUsd.plans.top.every((p) => p.usd_total <= budgetUsd));
  assert.ok(inUsd.plans.top.length < all.plans.top.length, 'the budget leaves plans out');

  const cny = await open('?lang=zh', `${plansLink}&top=50`);
  await waitForState(cny.page, `s.money.currency === "CNY" && ${plansReady}`);
  await clickWidget(cny.page, 'budget-usd');
  await cny.page.keyboard.type(budgetCny, { delay: 50 });
  await cny.page.keyboard.press('Enter', { delay: 100 });
  const inCny = await waitForState(cny.page, `Math.abs(s.money.budget_shown - ${budgetCny}) < 1e-6 && ${plansReady}`);
  assert.deepEqual(order(inCny), order(inUsd), 'the same plans, in the same order');
  // The link keeps the budget in USD (the CLI's --budget-usd), converted at the same rate.
  const hash = await cny.page.evaluate(() => location.hash);
  const linked = Number(new URLSearchParams(hash.slice(1)).get('budget-usd'));
  assert.ok(Math.abs(linked - Number(budgetCny) * usdPerCny) <= 1e-6 * linked, `${hash}`);
  await cny.ctx.close();
});

test('the currency switch round-trips through the link', async () => {
  const { ctx, page } = await open('?lang=zh', plansLink);
  const cny = await waitForState(page, `s.money.currency === "CNY" && ${plansReady}`);
  await clickWidget(page, 'currency-usd', 6);
  const usd = await waitForState(page, `s.money.currency === "USD" && ${plansReady}`);
  assert.match(await page.evaluate(() => location.hash), /currency=usd/);
  assertShownIn(usd, '美元', 1);
  assert.deepEqual(order(usd), order(cny), 'the ranking does not change with the currency');
  await page.reload();
  await waitForState(page, `s.money.currency === "USD" && ${plansReady}`);
  await clickWidget(page, 'currency-cny', 6);
  await waitForState(page, `s.money.currency === "CNY" && ${plansReady}`);
  assert.match(await page.evaluate(() => location.hash), /currency=cny/);
  await page.reload();
  await frames(page, 3);
  const back = await waitForState(page, `s.money.currency === "CNY" && ${plansReady}`);
  assertShownIn(back, '¥', usdPerCny);
  // On the English page the link's CNY holds too.
  const en = await open('?lang=en', `${plansLink}&currency=cny`);
  const e = await waitForState(en.page, `s.money.currency === "CNY" && ${plansReady}`);
  assertShownIn(e, 'CNY', usdPerCny);
  await en.ctx.close();
  await ctx.close();
});
