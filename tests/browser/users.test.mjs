// New users' tasks end to end (issues 31 and 26), the page driven as each of them drives it: clicks
// and taps on the canvas at the page's own widget rectangles, keys and an IME's composition
// through the page's <input>, an upload through its file input. Each ends on the numbers the
// native CLI gives for the same inputs:
// - a graduate student who reads Chinese only fine-tunes Qwen2.5-7B with LoRA from its
//   config.json, in CNY (1366x800);
// - a platform engineer sizes Llama-3-70B serving for a rate and latency targets and compares two
//   GPUs (1366x800);
// - a founder on a phone pretrains a 1.3B model on a budget: the cheapest plan under it, and its
//   launch config (390x844);
// - an MoE trainer sets expert parallelism and Megatron's partial CUDA graphs for Qwen3-30B-A3B on
//   a GB200 tray (1366x800).
// Screenshots of each (and of the founder's plan in the other language) go to test-artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useBrowser, waitForState, openLink, clickWidget, tapWidget, reveal, settled, screenshot, cliJson,
         cliArgsOf, widget, swipe, PHONE } from './harness.mjs';

let server, browser;
useBrowser(null, (s) => ({ server, browser } = s));

const repoFile = (path) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
// Qwen/Qwen2.5-7B's config.json as published (tests/fixtures/hf/README.md names the source).
const qwenConfig = repoFile('tests/fixtures/hf/qwen2.5-7b.json');
const usdPerCny = JSON.parse(readFileSync(repoFile('data/pricing_rules.json'))).usd_per_cny.value;

const plansReady = 's.plans && s.plans.top && s.plans.top.length > 0 && s.plan_progress === 1';
// "¥1,234" -> 1234
const amount = (text) => Number(text.replace(/[^\d.]/g, ''));
const query = (s) => new URLSearchParams(s.query);

async function open(search, options) {
  const ctx = await browser.newContext(options);
  const page = await ctx.newPage();
  await page.goto(`${server.url}/index.html${search}`);
  await waitForState(page, 's.estimate !== null');
  return { ctx, page, cdp: await ctx.newCDPSession(page) };
}

// Edits a number or text field as a user does: a click (a tap with `touch`) on it, then `text`
// typed once the page's <input> has the focus, through an IME's composition with `ime` (Chinese
// numerals), and Enter.
async function typeInto(u, name, text, { touch = false, ime = false, enter = true } = {}) {
  const { page, cdp } = u;
  await reveal(page, name, touch ? cdp : null);
  if (touch) await tapWidget(page, name, 40);
  else await clickWidget(page, name);
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'text-input');
  if (ime) {
    await cdp.send('Input.imeSetComposition', { text, selectionStart: text.length, selectionEnd: text.length });
    await cdp.send('Input.insertText', { text });
  } else {
    await page.keyboard.type(text, { delay: 50 });
  }
  if (enter) await page.keyboard.press('Enter', { delay: 100 });
}

// Picks a zoo model in the sidebar as a user does: its id (or `typed`, a name as people write
// it) typed into the search field, the model list opened, the one entry left clicked (tapped).
async function pickModel(u, id, touch = false, typed = id) {
  const { page } = u;
  await typeInto(u, 'model-filter', typed, { touch, enter: false });
  const press = touch ? tapWidget : clickWidget;
  await press(page, 'model', 40);
  await waitForState(page, `s.popup_open && s.widgets[${JSON.stringify('model-item-' + id)}]`);
  await press(page, 'model-item-' + id, 20);
  return waitForState(page, `new URLSearchParams(s.query).get("model") === ${JSON.stringify(id)} && !s.popup_open`);
}

// The CLI's estimate for the page's link, costs also in CNY.
async function cliEstimate(s) {
  const args = cliArgsOf(s.query);
  if (!query(s).has('currency')) args.push('--currency', 'cny');
  return cliJson(['estimate', ...args]);
}

// `gpuplan plan`'s options for the Plans tab of a page link. The tab searches every GPU (or the
// one plan-gpu names) and chooses the layout itself (web/model/page_model.cpp plan_query): the
// sidebar's hardware and layout are the estimate's, which `gpuplan plan` refuses or would fix.
function planArgsOf(link) {
  const q = new URLSearchParams(link);
  for (const k of ['gpu', 'gpus', 'instance', 'nodes', 'dp', 'tp', 'pp', 'zero', 'micro-batch']) q.delete(k);
  return cliArgsOf(q.toString());
}

// The plans shown are `gpuplan plan`'s for the page's link, in the same order, each cost in CNY at
// the one rate, rounded as shown (whole units from 100 up).
async function assertPlansAreTheClis(s) {
  const cli = await cliJson(['plan', ...planArgsOf(s.query)]);
  assert.deepEqual(s.plans.top.map((p) => `${p.instance}*${p.nodes}`), cli.plans.map((p) => `${p.instance}*${p.nodes}`));
  s.plans.top.forEach((p, i) => {
    assert.equal(p.usd_total, cli.plans[i].cost.usd_total, `#${i} ${p.instance}`);
    assert.ok(p.cost_shown.startsWith('¥'), `${p.instance}: ${p.cost_shown}`);
    const want = p.usd_total / usdPerCny;
    assert.ok(Math.abs(amount(p.cost_shown) - want) <= (want >= 100 ? 0.5 : 0.005) + 1e-9,
              `${p.instance}: shown ${p.cost_shown}, ${p.usd_total} USD at ${usdPerCny} USD/CNY is ${want}`);
  });
  return cli;
}

// Loads plan `i` with a click (tap) on its row: the Results tab shows its cost, the CLI's for the
// link it leaves, in CNY as the CLI gives it with --currency cny.
async function loadPlan(u, i, touch = false) {
  const { page } = u;
  const plan = (await waitForState(page, plansReady)).plans.top[i];
  if (touch) await tapWidget(page, `plan-${i}`, 10);
  else await clickWidget(page, `plan-${i}`, 10);
  const s = await waitForState(page, `s.tab === "results" && s.instance === ${JSON.stringify(plan.instance)} && ` +
                                     's.cost && s.cost.total_shown');
  assert.equal(s.cost.usd_total, plan.usd_total, 'the loaded plan costs what the Plans tab said');
  const cli = await cliEstimate(s);
  assert.equal(s.cost.usd_total, cli.cost.usd_total);
  assert.match(s.cost.total_shown, /^¥[\d,.]+$/);
  const cny = cli.cost.total_in_shown_currency;
  assert.ok(Math.abs(amount(s.cost.total_shown) - cny) <= (cny >= 100 ? 0.5 : 0.005) + 1e-9,
            `shown ${s.cost.total_shown}, the CLI's ${cny} CNY`);
  return s;
}

// The Results tab's launch config on a phone: the box and its Copy button lie within the screen,
// and swipes along the box (its longest torchrun line is wider than a phone) bring the end of
// that line into view.
async function launchOnThePhone(u) {
  const { page, cdp } = u;
  const width = page.viewportSize().width;
  await reveal(page, 'launch-text', cdp);
  await settled(page);
  assert.ok(await screenshot(page, 'users-founder-zh-launch-390x844') > 0.01);
  const box = await widget(page, 'launch-text');
  for (const name of ['launch-text', 'launch-copy']) {
    const r = await widget(page, name);
    assert.ok(r[0] >= 0 && r[2] <= width, `${name} at ${r} is not within the phone's ${width} px`);
  }
  let lines = await widget(page, 'launch-lines');
  assert.ok(lines[2] > box[2], `the config's lines (${lines}) are wider than its box (${box}) on a phone`);
  const start = lines[0];
  for (let i = 0; i < 20 && lines[2] > box[2]; ++i) {
    await swipe(cdp, box[2] - 20, (box[1] + box[3]) / 2, -200, 0, { hold_ms: 200 });
    await settled(page);
    const next = await widget(page, 'launch-lines');
    if (next[0] === lines[0]) break;  // it no longer moves
    lines = next;
  }
  assert.ok(lines[0] < start, 'a swipe along the box scrolls it');
  assert.ok(lines[2] <= box[2], `the end of the longest line (${lines}) comes into the box (${box})`);
  assert.ok(await screenshot(page, 'users-founder-zh-launch-end-390x844') > 0.01);
}

test('a Chinese-only student fine-tunes Qwen2.5-7B with LoRA from its config.json, in CNY', async () => {
  const u = await open('?lang=zh', { viewport: { width: 1366, height: 800 }, locale: 'zh-CN' });
  const { page } = u;
  await waitForState(page, 's.lang === "zh" && s.cjk_font === true');
  await page.setInputFiles('#file-input', qwenConfig);
  let s = await waitForState(page, 's.query.includes("custom=transformer") && s.upload.status !== "" && s.estimate');
  assert.equal(s.upload.error, '');
  const fromFile = await cliJson(['estimate', '--hf-config', qwenConfig]);
  assert.equal(fromFile.params, 7615616512, 'Qwen2-style: bias on q, k and v only');
  assert.equal(s.estimate.params, fromFile.params, 'the page reads the config as the CLI does');
  assert.equal((await cliJson(['estimate', ...cliArgsOf(s.query)])).params, fromFile.params,
               'the link the page writes is the same model');

  // LoRA (rank 16) under Parallelism, and 1亿 tokens typed through the IME.
  await clickWidget(page, 'section-parallel', 20);
  await typeInto(u, 'lora-rank', '16');
  s = await waitForState(page, 'new URLSearchParams(s.query).get("lora-rank") === "16" && s.estimate');
  await typeInto(u, 'tokens', '1亿', { ime: true });
  s = await waitForState(page, 'new URLSearchParams(s.query).get("tokens") === "100000000" && s.estimate');
  const lora = await cliEstimate(s);
  assert.equal(s.estimate.params_trainable, lora.params_trainable);
  assert.ok(lora.params_trainable < fromFile.params / 100, 'LoRA trains a small part of the model');

  // Plans ranked in CNY, then the cheapest loaded: its cost in CNY.
  await clickWidget(page, 'tab-plans', 20);
  s = await waitForState(page, `s.tab === "plans" && ${plansReady}`);
  assert.equal(s.money.currency, 'CNY', 'the Chinese page shows CNY');
  assert.equal(s.money.cost_header, '元');
  await assertPlansAreTheClis(s);
  await settled(page);
  assert.ok(await screenshot(page, 'users-student-zh-plans-1366x800') > 0.01);
  s = await loadPlan(u, 0);
  console.log(`student: ${s.instance}, ${s.cost.total_shown} (${s.cost.usd_total} USD)`);
  await settled(page);
  assert.ok(await screenshot(page, 'users-student-zh-results-1366x800') > 0.01);
  await u.ctx.close();
});

test('a platform engineer sizes Llama-3-70B serving for a rate and latency targets and compares two GPUs', async () => {
  const u = await open('', { viewport: { width: 1366, height: 800 }, locale: 'en-US' });
  const { page } = u;
  await pickModel(u, 'llama-3-70b', false, 'meta-llama/Meta-Llama-3-70B-Instruct');  // as on the Hub
  await clickWidget(page, 'tab-serving', 20);
  await waitForState(page, 's.tab === "serving"');
  const targets = { rate: '12', 'ttft-ms': '800', 'tpot-ms': '60' };
  await typeInto(u, 'serve-rate', targets.rate);
  await typeInto(u, 'serve-ttft', targets['ttft-ms']);
  await typeInto(u, 'serve-tpot', targets['tpot-ms']);
  const typed = Object.entries(targets).map(([k, v]) => `q.get(${JSON.stringify(k)}) === ${JSON.stringify(v)}`).join(' && ');
  let s = await waitForState(page, `((q) => ${typed})(new URLSearchParams(s.query)) && s.serving.progress === 1 && ` +
                                   's.serving.options.length > 0', 180000);
  assert.equal(s.serving.error, '');
  // The replicas and the monthly bill are `gpuplan serve --json`'s for the same inputs.
  const serveKeys = new Set((await cliJson(['keys'])).filter((k) => k.commands.includes('serve')).map((k) => k.name));
  const args = ['serve'];
  for (const [k, v] of query(s)) if (serveKeys.has(k)) args.push('--' + k, v);
  console.log(`engineer: ${args.join(' ')}`);
  const cli = await cliJson(args);
  assert.equal(cli.model, 'llama-3-70b');
  assert.equal(s.serving.options.length, cli.options.length);
  cli.options.forEach((c, i) => {
    const p = s.serving.options[i];
    assert.equal(p.instance, c.instance, `#${i}`);
    assert.equal(p.tp, c.tp, `#${i} ${c.instance}`);
    assert.equal(p.fixed_replicas, c.fixed_replicas, `#${i} ${c.instance}`);
    assert.deepEqual(p.replicas_per_hour, c.replicas_per_hour, `#${i} ${c.instance}`);
    assert.deepEqual(p.costs, c.costs.map(({ pricing, usd_per_month_fixed, usd_per_month_autoscaled,
                                             usd_per_million_output_tokens }) =>
      ({ pricing, usd_per_month_fixed, usd_per_month_autoscaled, usd_per_million_output_tokens })), `#${i} ${c.instance}`);
  });
  console.log(`engineer: best ${cli.options[0].instance} x${cli.options[0].fixed_replicas}, ` +
              `${cli.options[0].costs[0].usd_per_month_autoscaled} USD/month`);
  await settled(page);
  assert.ok(await screenshot(page, 'users-engineer-en-serving-1366x800') > 0.01);

  // Two GPUs side by side, picked in the comparison's list.
  const picked = ['h100-sxm5-80gb', 'b200-sxm'];
  await reveal(page, 'serve-compare');
  await clickWidget(page, 'serve-compare');
  for (let n = 1; n <= picked.length; ++n) {
    await clickWidget(page, `serve-compare-item-${picked[n - 1]}`);
    await waitForState(page, `new URLSearchParams(s.query).get("serve-compare") === "${picked.slice(0, n).join(',')}" && ` +
                             `s.serving.compare.rows.length === ${n} && s.serving.compare.progress === 1`, 180000);
  }
  await page.keyboard.press('Escape', { delay: 100 });
  s = await waitForState(page, '!s.popup_open && s.serving.compare.progress === 1');
  for (const id of picked) {
    const row = s.serving.compare.rows.find((r) => r.target === id);
    const c = (await cliJson([...args, '--gpu', id])).options[0];
    assert.equal(row.error, '', id);
    assert.equal(row.instance, c.instance, id);
    assert.equal(row.fixed_replicas, c.fixed_replicas, id);
    assert.equal(row.usd_per_month_autoscaled, c.costs[0].usd_per_month_autoscaled, id);
    assert.equal(row.meets_targets, c.at_max_rate.ttft_s.p90 <= 0.8 && c.at_max_rate.tpot_s.p90 <= 0.06, id);
  }
  await reveal(page, 'serve-compare-table');
  await settled(page);
  assert.ok(await screenshot(page, 'users-engineer-en-compare-1366x800') > 0.01);
  await u.ctx.close();
});

test('a founder on a phone finds the cheapest plan to pretrain a 1.3B model under a budget, by taps', async () => {
  const u = await open('?lang=zh', { ...PHONE, locale: 'zh-CN' });
  const { page } = u;
  await waitForState(page, 's.lang === "zh" && s.cjk_font === true');
  await tapWidget(page, 'tab-inputs');
  // MPT-1b: 1.3B parameters.
  let s = await pickModel(u, 'mpt-1b', true);
  assert.equal(s.estimate.params, (await cliJson(['estimate', '--model', 'mpt-1b'])).params);
  await typeInto(u, 'batch', '256', { touch: true });
  await typeInto(u, 'tokens', '260亿', { touch: true, ime: true });
  s = await waitForState(page, '((q) => q.get("batch") === "256" && q.get("tokens") === "26000000000")' +
                               '(new URLSearchParams(s.query)) && s.estimate');

  await tapWidget(page, 'tab-plans');
  const all = await waitForState(page, `s.tab === "plans" && ${plansReady}`);
  // A budget of 3,500 CNY, typed in CNY; the link keeps it in USD.
  await typeInto(u, 'budget-usd', '3500', { touch: true });
  s = await waitForState(page, `Math.abs(s.money.budget_shown - 3500) < 1e-6 && ${plansReady}`);
  const budgetUsd = Number(query(s).get('budget-usd'));
  assert.ok(Math.abs(budgetUsd - 3500 * usdPerCny) <= 1e-9 * budgetUsd, `budget-usd=${budgetUsd}`);
  assert.ok(all.plans.top.some((p) => p.usd_total > budgetUsd), 'the budget leaves plans out');
  for (const p of s.plans.top) assert.ok(p.usd_total <= budgetUsd, `${p.instance} costs ${p.usd_total} USD`);
  const cheapest = Math.min(...s.plans.top.map((p) => p.usd_total));
  assert.equal(s.plans.top[0].usd_total, cheapest, 'the first plan is the cheapest');
  await assertPlansAreTheClis(s);
  await settled(page);
  assert.ok(await screenshot(page, 'users-founder-zh-plans-390x844') > 0.01);

  s = await loadPlan(u, 0, true);
  console.log(`founder: ${s.instance}, ${s.cost.total_shown} (${s.cost.usd_total} USD), budget ${budgetUsd} USD`);
  await settled(page);
  assert.ok(await screenshot(page, 'users-founder-zh-results-390x844') > 0.01);
  await launchOnThePhone(u);
  // The same link in English, as a cofounder opens it.
  const en = await openLink(page, `${server.url}/index.html?lang=en#${s.query}`,
                            `s.lang === "en" && s.cost && s.cost.usd_total === ${s.cost.usd_total}`);
  assert.equal(en.instance, s.instance);
  await settled(page);
  assert.ok(await screenshot(page, 'users-founder-en-results-390x844') > 0.01);
  await u.ctx.close();
});

test('an MoE trainer sets expert parallelism and CUDA graphs on the page, and gets the CLI\'s step', async () => {
  // Qwen3-30B-A3B on a GB200 tray (4 GPUs) under Megatron's MXFP8 recipe, one sample a GPU.
  const u = await open('#model=qwen3-30b-a3b&gpu=gb200&gpus=4&precision=mxfp8&framework=megatron&micro-batch=1' +
                       '&seq=4096&checkpointing=selective&zero=1', { viewport: { width: 1366, height: 800 } });
  const { page } = u;
  await reveal(page, 'section-parallel');
  await clickWidget(page, 'section-parallel', 20);
  await typeInto(u, 'ep', '4');
  let s = await waitForState(page, 'new URLSearchParams(s.query).get("ep") === "4" && s.time !== null');
  const eager = await cliEstimate(s);
  assert.equal(s.time.step_s, eager.time.step_s, 'expert parallel: the page steps as the CLI does');
  // Megatron's partial CUDA graphs, a box each.
  for (const part of ['attn', 'moe_router', 'moe_preprocess']) {
    await reveal(page, `cuda-graph-modules-${part}`);
    await clickWidget(page, `cuda-graph-modules-${part}`, 8);
    await waitForState(page, `(new URLSearchParams(s.query).get("cuda-graph-modules") || "").includes(${JSON.stringify(part)})`);
  }
  s = await waitForState(page, 'new URLSearchParams(s.query).get("cuda-graph-modules") === "attn,moe_router,moe_preprocess" && ' +
                               's.time !== null');
  const graphed = await cliEstimate(s);
  assert.equal(s.time.step_s, graphed.time.step_s, 'CUDA graphs: the page steps as the CLI does');
  assert.ok(graphed.time.step_s < eager.time.step_s,
            `graphs take the host off a host-bound step: ${graphed.time.step_s} s vs ${eager.time.step_s} s`);
  // Under the Megatron preset the launch config is Megatron-LM's flags until another is picked.
  assert.equal(s.launch.format, 'megatron');
  assert.match(s.launch.results.text, /--expert-model-parallel-size 4/);
  await settled(page);
  assert.ok(await screenshot(page, 'users-moe-trainer-en-1366x800') > 0.01);
  await u.ctx.close();
});
