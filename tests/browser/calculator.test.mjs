// The calculator in real headless Chromium: it renders, computes what the native core computes,
// follows the URL, takes typed input, and supports back/forward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, waitForState, openLink, cliJson, screenshot, clickWidget, frames, settled, widget } from './harness.mjs';

let server, page;

useBrowser({ width: 1100, height: 720 }, (s) => ({ server, page } = s));

test('page renders the ImGui UI (screenshot is not blank)', async () => {
  await openLink(page, `${server.url}/index.html#model=gpt2-small&batch=8&precision=amp-bf16`, 's.estimate !== null');
  await settled(page);
  const nonBackground = await screenshot(page, 'calculator-gpt2-small');
  assert.ok(nonBackground > 0.01, `only ${(nonBackground * 100).toFixed(2)}% of pixels differ from the background`);
});

test('numbers on the page equal the native CLI for the same input', async () => {
  const state = await waitForState(page, 's.estimate !== null');
  const cli = await cliJson(['estimate', '--model', 'gpt2-small', '--batch', '8', '--precision', 'amp-bf16']);
  assert.equal(state.estimate.params, cli.params);
  assert.equal(state.estimate.params, 124439808);
  assert.equal(state.estimate.flops.train_per_step, cli.flops.train_per_step);
  assert.deepEqual(state.estimate.memory_bytes, cli.memory_bytes);
  // The DOM mirror (aria-live) carries the same numbers as text.
  const text = await page.locator('#app-state').textContent();
  assert.equal(JSON.parse(text).estimate.params, cli.params);
  assert.equal(await page.locator('#app-state').getAttribute('aria-live'), 'polite');
});

test('the core is callable directly and agrees with the CLI for another model', async () => {
  const json = await page.evaluate(() => JSON.parse(Module.ccall('gpuplan_estimate_query', 'string', ['string'],
                                                                 ['model=resnet50&batch=32&precision=amp-fp16'])));
  const cli = await cliJson(['estimate', '--model', 'resnet50', '--batch', '32', '--precision', 'amp-fp16']);
  assert.equal(json.params, cli.params);
  assert.deepEqual(json.memory_bytes, cli.memory_bytes);
});

test('typing a batch size into the canvas updates results and the URL; back restores it', async () => {
  await clickWidget(page, 'batch');
  // ImGui 1.86 samples key state once per frame: hold keys long enough to be seen.
  // Focusing an ImGui number field selects its text, so typing replaces it.
  await page.keyboard.type('16', { delay: 50 });
  await page.keyboard.press('Enter', { delay: 100 });
  let state = await waitForState(page, 's.estimate && s.estimate.global_batch === 16');
  assert.match(await page.evaluate(() => location.hash), /batch=16/);
  const cli = await cliJson(['estimate', '--model', 'gpt2-small', '--batch', '16', '--precision', 'amp-bf16']);
  assert.deepEqual(state.estimate.memory_bytes, cli.memory_bytes);
  await page.goBack();
  state = await waitForState(page, 's.estimate && s.estimate.global_batch === 8');
  assert.equal(state.estimate.global_batch, 8);
});

test('Tab commits a typed value; an out-of-range one is refused and the last good value kept', async () => {
  await openLink(page, `${server.url}/index.html#model=gpt2-small&batch=8&precision=amp-bf16`,
                 's.estimate && s.estimate.global_batch === 8');
  await clickWidget(page, 'batch');
  await page.keyboard.type('32', { delay: 50 });
  await page.keyboard.press('Tab', { delay: 100 });
  await waitForState(page, 's.estimate && s.estimate.global_batch === 32');
  assert.match(await page.evaluate(() => location.hash), /batch=32/);
  // 0 is below the field's minimum: not clamped to 1, not applied; 32 keeps driving the results.
  await clickWidget(page, 'batch');
  await page.keyboard.type('0', { delay: 50 });
  await page.keyboard.press('Enter', { delay: 100 });
  await frames(page, 5);
  const state = await waitForState(page, 's.estimate !== null');
  assert.equal(state.estimate.global_batch, 32);
  assert.match(await page.evaluate(() => location.hash), /batch=32/);
});

test('a bad link names the field in page words and keeps the rest of the link', async () => {
  const state = await openLink(page, `${server.url}/index.html#model=gpt2-medium&batch=0`, 's.error !== ""');
  assert.match(state.error, /--batch: 0 is out of range/);
  assert.match(state.error_shown, /^Global batch: 0 is out of range/);
  assert.equal(state.estimate.model, 'gpt2-medium');
  await screenshot(page, 'calculator-bad-link');
});

test('the page and the CLI give the same step time and cost: one evaluate() under both', async () => {
  const cases = [
    'model=llama-2-7b&batch=64&micro-batch=2&precision=bf16&zero=3&instance=aws-p5.48xlarge&tokens=1e9',
    'model=gpt2-medium&batch=64&precision=amp-bf16&instance=aws-p4d.24xlarge&nodes=2&tokens=2e9',
    'model=gpt2-medium&batch=64&precision=amp-bf16&instance=lambda-gpu-8x-a100-80gb-sxm4&tokens=2e9',
    'model=resnet50&batch=256&precision=amp-fp16&instance=gcp-a2-highgpu-1g&epochs=1&dataset-size=1281167',
    'model=llama-2-7b&batch=16&precision=bf16&lora-rank=16&instance=aws-p4d.24xlarge&tokens=1e8&pricing=spot',
    'model=mixtral-8x7b&batch=64&micro-batch=1&precision=mixed-bf16&zero=1&ep=8&moe-dispatcher=deepep&instance=aws-p5.48xlarge&tokens=1e9',
    // Hybrid linear attention (Gated DeltaNet in 3 of 4 blocks).
    'model=qwen3-next-80b-a3b&batch=64&micro-batch=1&precision=mixed-bf16&zero=3&ep=8&instance=aws-p5.48xlarge&nodes=2&tokens=1e9',
    // "auto" attention: SDPA's fused kernel for MPT and a GPT-style custom model, in both faces.
    'model=mpt-1b&batch=64&precision=amp-bf16&instance=aws-p4d.24xlarge&tokens=1e9',
    'custom=transformer&c-layers=24&c-hidden=2048&c-heads=16&c-ffn=8192&c-vocab=50257&c-max-positions=2048&seq=2048&batch=64&precision=amp-bf16&instance=aws-p4d.24xlarge&tokens=1e9',
  ];
  for (const hash of cases) {
    const s = await openLink(page, `${server.url}/index.html#${hash}`,
                             's.estimate !== null && (s.cost !== null || s.time_error !== "")');
    const args = ['estimate'];
    for (const [k, v] of new URLSearchParams(hash)) args.push(`--${k}`, v);
    // The page's micro-batch "auto" takes the largest that fits (the CLI the whole batch per
    // GPU): give the CLI the micro-batch the page chose.
    if (!hash.includes('micro-batch')) args.push('--micro-batch', String(s.estimate.micro_batch));
    const cli = await cliJson(args);
    assert.equal(s.time_error, '', hash);
    assert.equal(s.time.step_s, cli.time.step_s, `${hash}: step time`);
    assert.equal(s.cost.expected_hours, cli.cost.expected_hours, `${hash}: hours`);
    assert.equal(s.cost.usd_total, cli.cost.usd_total, `${hash}: cost`);
    assert.equal(s.estimate.attention, cli.attention, `${hash}: attention`);
    assert.equal(s.estimate.attention_reason, cli.attention_reason, `${hash}: attention reason`);
    if (!hash.includes('llama') && !hash.includes('mixtral') && hash.includes('bf16')) {
      assert.equal(cli.attention, 'flash', `${hash}: auto attention at 16 bits`);
    }
  }
});

test('a mixture-of-experts link shows total and active parameters and the experts per GPU, as the CLI', async () => {
  const hash = 'model=mixtral-8x7b&batch=64&micro-batch=1&precision=mixed-bf16&zero=1&ep=8&gpu=h100-sxm5-80gb&gpus=8';
  const s = await openLink(page, `${server.url}/index.html#${hash}`, 's.estimate !== null');
  const args = ['estimate'];
  for (const [k, v] of new URLSearchParams(hash)) args.push(`--${k}`, v);
  const cli = await cliJson(args);
  assert.equal(s.estimate.params, 46702792704);
  assert.equal(s.estimate.params_active_per_token, 12879925248);
  assert.deepEqual(s.estimate.moe, cli.moe);
  assert.equal(s.estimate.moe.ep, 8);
  assert.equal(s.estimate.moe.local_experts, 1);
  assert.equal(s.time.ep_comm_s, cli.time.ep_comm_s);
  await screenshot(page, 'calculator-moe');
  // Megatron's recompute modules: as the CLI, then one more ticked on the page (a whole MoE
  // layer recomputed repeats its all-to-alls: three passes of them, not two).
  const rec = `${hash}&checkpointing=selective&recompute-modules=layernorm,moe_act`;
  const r = await openLink(page, `${server.url}/index.html#${rec}`, 's.estimate !== null && s.time !== null');
  const recArgs = ['estimate'];
  for (const [k, v] of new URLSearchParams(rec)) recArgs.push(`--${k}`, v);
  const recCli = await cliJson(recArgs);
  assert.equal(r.time.recompute_s, recCli.time.recompute_s);
  assert.equal(r.estimate.memory_bytes.activations, recCli.memory_bytes.activations);
  assert.ok(r.time.recompute_s > 0);
  await clickWidget(page, 'recompute-modules-moe', 6);
  const moe = await waitForState(page, 's.estimate !== null && s.time !== null && ' +
                                 'decodeURIComponent(s.query).includes("recompute-modules=moe_act,layernorm,moe")');
  assert.ok(Math.abs(moe.time.ep_comm_s - 1.5 * cli.time.ep_comm_s) < 1e-9 * cli.time.ep_comm_s, `${moe.time.ep_comm_s}`);
  assert.ok(moe.estimate.memory_bytes.activations < r.estimate.memory_bytes.activations);
  await screenshot(page, 'calculator-recompute-modules');
});

test('an activation-offloading link keeps the offloaded blocks off the GPU and times their copies, as the CLI', async () => {
  // Llama-3-70B on GB200 NVL72 trays (Megatron-Bridge's recipe shape: FSDP, 8k tokens, 20 of 80
  // blocks offloaded over NVLink-C2C).
  const hash = 'model=llama-3-70b&batch=256&micro-batch=1&seq=8192&precision=mixed-bf16&zero=3' +
               '&offload-activation-layers=20&instance=coreweave-gb200-nvl72&nodes=16&tokens=1e9';
  const s = await openLink(page, `${server.url}/index.html#${hash}`, 's.estimate !== null && s.time !== null');
  const args = ['estimate'];
  for (const [k, v] of new URLSearchParams(hash)) args.push(`--${k}`, v);
  const cli = await cliJson(args);
  assert.equal(s.estimate.memory_bytes.activations, cli.memory_bytes.activations);
  assert.equal(s.time.offload_s, cli.time.offload_s);
  assert.equal(s.time.offload_exposed_s, cli.time.offload_exposed_s);
  assert.ok(s.time.offload_s > 0);
  await widget(page, 'offload-activation-layers');
  await screenshot(page, 'calculator-offload');
});

test('the page opens the default link written in full, and a link it writes reopens as itself', async () => {
  const d = await openLink(page, `${server.url}/index.html`, 's.estimate !== null && s.cost !== null');
  assert.equal(d.query, 'v=1&model=gpt2-small&batch=8&precision=amp-bf16&gpu=a100-sxm4-80gb&tokens=1000000000&max-nodes=8&top=20');
  // fp32 is the core's default, so the link leaves precision out; reopened, it is fp32 again
  // (the page used to fill in its own amp-bf16 and show another cost).
  const link = 'model=gpt2-small&batch=8&instance=aws-p4d.24xlarge&tokens=1e9&pricing=spot&currency=cny&reservation-utilisation=0.5&top=5&min-gpu-memory-gb=40';
  const first = await openLink(page, `${server.url}/index.html#${link}`, 's.estimate !== null && s.cost !== null');
  assert.equal(first.estimate.setup.precision, undefined, 'fp32: the core default, left out');
  const written = await page.evaluate(() => location.hash);
  for (const key of ['currency=cny', 'reservation-utilisation=0.5', 'top=5', 'min-gpu-memory-gb=40', 'pricing=spot']) {
    assert.ok(written.includes(key), `${key} is written back: ${written}`);
  }
  assert.ok(!written.includes('precision'), written);
  await page.goto(`${server.url}/index.html${written}`);
  await page.reload();
  const again = await waitForState(page, 's.estimate !== null && s.cost !== null');
  assert.equal(again.query, first.query);
  assert.equal(again.cost.usd_total, first.cost.usd_total);
  const cli = await cliJson(['estimate', '--model', 'gpt2-small', '--batch', '8', '--instance', 'aws-p4d.24xlarge',
                             '--tokens', '1e9', '--pricing', 'spot', '--micro-batch', String(again.estimate.micro_batch)]);
  assert.equal(again.cost.usd_total, cli.cost.usd_total, 'the CLI reads the link the same way');
});
