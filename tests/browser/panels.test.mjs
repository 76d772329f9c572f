// The calculator's panels in headless Chromium: uploads (config.json, probe files, bad files),
// plans, hardware tables, exports, the copy-link button, high-DPI, resize, touch, and that the
// page never talks to another origin.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser, waitForState, openLink, cliJson, cliPath, screenshot, widget, clickWidget } from './harness.mjs';

const run = promisify(execFile);
const probeBin = process.env.GPUPLAN_PROBE;
const repo = new URL('../..', import.meta.url).pathname;
let server, browser, page, dir;

useBrowser({ width: 1280, height: 800 }, (s) => ({ server, browser, page } = s));
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpuplan-browser-'));
});

async function open(hash) {
  return openLink(page, `${server.url}/index.html#${hash}`, 's.estimate !== null || s.error !== ""');
}

async function upload(path) {
  await page.setInputFiles('#file-input', path);
}

test('uploading a Hugging Face config.json loads it and matches the CLI', async () => {
  await open('model=gpt2-small&batch=4&precision=bf16');
  const config = join(repo, 'tests/fixtures/hf/mixtral-8x7b.json');
  await upload(config);
  const s = await waitForState(page, 's.query.includes("custom=transformer")');
  const cli = await cliJson(['estimate', '--hf-config', config, '--batch', '4', '--precision', 'bf16', '--seq', '1024']);
  await page.evaluate((q) => { location.hash = q; }, s.query.replace(/&?seq=\d+/, '') + '&seq=1024');
  const again = await waitForState(page, 's.estimate && s.estimate.seq_len === 1024');
  assert.equal(again.estimate.params, cli.params);
  assert.equal(again.estimate.params, 46702792704);
  assert.deepEqual(again.estimate.memory_bytes, cli.memory_bytes);
  await screenshot(page, 'panel-results-uploaded-config');
});

test('bad uploads show a clear error and change nothing else', async () => {
  const before = await open('model=gpt2-small&batch=8');
  const cases = [
    ['not-json.json', 'this is not json', /not valid JSON at line 1/],
    ['wrong.json', '{"model_type": "gpt2", "n_layer": "twelve"}', /n_layer: expected an integer, got a string/],
    ['empty.json', '', /file is empty/],
  ];
  for (const [name, text, message] of cases) {
    const path = join(dir, name);
    await writeFile(path, text);
    await upload(path);
    const s = await waitForState(page, `new RegExp(${JSON.stringify(message.source)}).test(s.upload.error)`);
    assert.match(s.upload.error, message);
    assert.equal(s.query, before.query, 'a bad upload must not change the state');
    assert.deepEqual(s.estimate.memory_bytes, before.estimate.memory_bytes);
    await page.evaluate(() => Module.ccall('gpuplan_set_state', null, ['string'], [location.hash]));
  }
  const big = join(dir, 'big.json');
  await writeFile(big, Buffer.alloc(9 * 1024 * 1024, 32));
  await upload(big);
  const s = await waitForState(page, 's.upload.error.includes("limit")');
  assert.match(s.upload.error, /the limit is 8388608 bytes/);
  await screenshot(page, 'panel-bad-upload');
});

test('a signed probe file verifies, shows as simulated, and calibrates; a tampered one is rejected', async (t) => {
  if (!probeBin) return t.skip('GPUPLAN_PROBE not set (no gpuplan-probe built)');
  const out = join(dir, 'probe.json');
  await run(probeBin, ['--simulate', 'a100-sxm4-80gb', '--no-metadata', '--key', join(dir, 'key'), '--out', out]);
  await open('model=gpt2-medium&batch=8&precision=amp-bf16&gpu=a100-sxm4-80gb');
  await upload(out);
  let s = await waitForState(page, 's.upload.signature === "valid"');
  assert.equal(s.upload.simulated, true);
  assert.equal(s.upload.gpu, 'a100-sxm4-80gb');
  assert.equal(s.tab, 'benchmarks');
  await page.waitForTimeout(300);
  await screenshot(page, 'panel-benchmarks');
  await clickWidget(page, 'calibrate', 8);
  s = await waitForState(page, 's.time_calibrated !== null');
  assert.ok(s.time_calibrated.step_s > 0);
  assert.notEqual(s.time_calibrated.step_s, s.time.step_s, 'calibrated and spec-based predictions should differ');

  // Flip one character inside the signed payload: the signature must fail.
  const envelope = JSON.parse(await readFile(out, 'utf8'));
  const payload = Buffer.from(envelope.payload, 'base64').toString('utf8').replace('"simulated": true', '"simulated":false');
  envelope.payload = Buffer.from(payload.length ? payload : 'x').toString('base64');
  const tampered = join(dir, 'tampered.json');
  await writeFile(tampered, JSON.stringify(envelope));
  await upload(tampered);
  s = await waitForState(page, 's.upload.error !== ""');
  assert.match(s.upload.error, /signature invalid/);
  assert.equal(s.upload.signature, 'valid', 'the earlier, valid file stays loaded');
});

test('the planner ranks plans; clicking one loads it with the same cost as the CLI', async () => {
  await open('model=gpt2-medium&batch=64&precision=amp-bf16&tokens=2000000000&tab=plans&provider=aws');
  let s = await waitForState(page, 's.plans && s.plans.top && s.plans.top.length > 0');
  assert.ok(s.plans.candidates > 100);
  const first = s.plans.top[0];
  await page.waitForTimeout(300);
  await screenshot(page, 'panel-plans');
  await clickWidget(page, 'plan-0', 10);
  s = await waitForState(page, `s.instance === ${JSON.stringify(first.instance)} && s.tab === "results"`);
  assert.equal(s.cost.usd_total, first.usd_total);
  const setup = Object.fromEntries(new URLSearchParams(s.query));
  const args = ['estimate', '--model', 'gpt2-medium', '--batch', '64', '--precision', 'amp-bf16', '--instance',
                first.instance, '--tokens', '2000000000'];
  for (const k of ['micro-batch', 'tp', 'pp', 'zero', 'checkpointing', 'nodes']) if (setup[k]) args.push('--' + k, setup[k]);
  const cli = await cliJson(args);
  assert.equal(cli.cost.usd_total, s.cost.usd_total);
});

test('hardware tab lists instances with prices and their date; filters apply', async () => {
  await open('model=gpt2-small&tab=hardware&provider=aws&pricing=spot');
  const s = await waitForState(page, 's.tab === "hardware"');
  assert.match(s.prices_as_of, /^\d{4}-\d{2}-\d{2}$/);
  await page.waitForTimeout(300);
  await screenshot(page, 'panel-hardware');
});

test('exports and the copy-link button carry the current results', async () => {
  const s = await open('model=llama-2-7b&batch=16&precision=bf16&gpu=h100-sxm5-80gb&gpus=8&checkpointing=full&zero=3');
  const csv = await page.evaluate(() => Module.ccall('gpuplan_export', 'string', ['string'], ['csv']));
  const total = csv.split('\n').find((l) => l.startsWith('memory_total,')).split(',')[1];
  assert.ok(Math.abs(Number(total) - s.estimate.memory_bytes.total) <= 1e-9 * s.estimate.memory_bytes.total,
            `CSV ${total} vs page ${s.estimate.memory_bytes.total}`);
  // The JSON export is `gpuplan estimate --json` for the same keys.
  const json = JSON.parse(await page.evaluate(() => Module.ccall('gpuplan_export', 'string', ['string'], ['json'])));
  const args = ['estimate', '--model', 'llama-2-7b', '--batch', '16', '--precision', 'bf16', '--gpu', 'h100-sxm5-80gb',
                '--gpus', '8', '--checkpointing', 'full', '--zero', '3'];
  assert.deepEqual(json, await cliJson(args));
  // The Results tab's launch config (torchrun until one is picked) is `estimate --emit`'s.
  assert.equal(s.launch.format, 'torchrun');
  assert.equal(s.launch.results.text, (await run(cliPath, [...args, '--emit', 'torchrun'])).stdout);
  const download = page.waitForEvent('download');
  await clickWidget(page, 'export-csv', 10);
  assert.equal((await download).suggestedFilename(), 'gpuplan-results.csv');
  await clickWidget(page, 'copy-link', 10);
  await page.waitForFunction(() => window.gpuplanLastCopied !== undefined);
  assert.equal(await page.evaluate(() => window.gpuplanLastCopied), await page.evaluate(() => location.href));
});

const planKeys = ['--model', 'gpt2-medium', '--batch', '64', '--precision', 'amp-bf16', '--tokens', '2000000000',
                  '--provider', 'aws'];

test('Export on the Plans tab downloads the plans table and the JSON of gpuplan plan', async () => {
  await open('model=gpt2-medium&batch=64&precision=amp-bf16&tokens=2000000000&tab=plans&provider=aws');
  // "Link copied" (an earlier test's click) reverting to "Copy link" moves the layout: let it.
  const s = await waitForState(page, 's.plans && s.plans.top && s.plans.top.length > 0 && !s.link_copied');
  const download = page.waitForEvent('download');
  await clickWidget(page, 'export-csv', 10);
  const file = await download;
  assert.equal(file.suggestedFilename(), 'gpuplan-plans.csv');
  const lines = (await readFile(await file.path(), 'utf8')).trim().split('\n');
  assert.match(lines[0], /^rank,instance,gpu,nodes,.*time_h,cost_usd,/, 'the plans header');
  assert.ok(!lines.some((l) => l.startsWith('quantity,') || l.startsWith('memory_')), 'not the training quantities');
  assert.equal(lines.length, s.plans.top.length + 1);
  assert.equal(lines[1].split(',')[1], s.plans.top[0].instance);
  const json = JSON.parse(await page.evaluate(() => Module.ccall('gpuplan_export', 'string', ['string'], ['json'])));
  assert.deepEqual(json, await cliJson(['plan', ...planKeys]));
});

test('the Plans tab shows the launch config gpuplan plan --emit prints for the chosen plan', async () => {
  await open('model=gpt2-medium&batch=64&precision=amp-bf16&tokens=2000000000&tab=plans&provider=aws');
  let s = await waitForState(page, 's.plans && s.plans.top && s.plans.top.length > 0 && s.launch.plans !== null && !s.link_copied');
  await clickWidget(page, 'launch-deepspeed', 6);
  s = await waitForState(page, 's.launch.format === "deepspeed"');
  const emit = async (extra) => (await run(cliPath, ['plan', ...planKeys, ...extra, '--emit', 'deepspeed'])).stdout;
  assert.equal(s.launch.plans.plan, 0);
  assert.equal(s.launch.plans.error, '');
  assert.equal(s.launch.plans.text, await emit([]));
  const first = s.launch.plans.text;
  // The first plan of another GPU with another data-parallel degree (so another config): the top
  // plan of `gpuplan plan --plan-gpu G`.
  const top = s.plans.top;
  const i = top.findIndex((p) => p.gpu !== top[0].gpu && p.dp !== top[0].dp && p.tp === 1 && p.pp === 1 &&
                                 top.findIndex((q) => q.gpu === p.gpu) === top.indexOf(p));
  assert.ok(i > 0, 'the plans include another GPU with another layout');
  await clickWidget(page, 'launch-plan', 10);
  await clickWidget(page, `launch-plan-${i}`, 10);
  s = await waitForState(page, `s.launch.plans.plan === ${i}`);
  assert.notEqual(s.launch.plans.text, first);
  assert.equal(s.launch.plans.text, await emit(['--plan-gpu', top[i].gpu]));
  assert.match(s.launch.plans.fill_in, /ds_config\.json/);
  await clickWidget(page, 'launch-copy', 6);
  await page.waitForFunction((t) => window.gpuplanLastCopied === t, s.launch.plans.text);
  await screenshot(page, 'panel-plans-launch');
});

test('high-DPI screens get a sharp canvas and widgets stay clickable', async () => {
  const ctx = await browser.newContext({ viewport: { width: 900, height: 700 }, deviceScaleFactor: 2 });
  const p = await ctx.newPage();
  await p.goto(`${server.url}/index.html#model=gpt2-small&batch=8`);
  await waitForState(p, 's.estimate !== null');
  await p.waitForFunction(() => document.getElementById('canvas').width === 1800);
  assert.equal(await p.evaluate(() => document.getElementById('canvas').height), 1400);
  const [x0, y0, , y1] = await widget(p, 'batch');
  await p.mouse.click(x0 + 40, (y0 + y1) / 2);
  await p.keyboard.type('32', { delay: 50 });
  await p.keyboard.press('Enter', { delay: 100 });
  await waitForState(p, 's.estimate && s.estimate.global_batch === 32');
  await screenshot(p, 'calculator-hidpi');
  // Resize: the canvas follows the window.
  await p.setViewportSize({ width: 700, height: 500 });
  await p.waitForFunction(() => document.getElementById('canvas').width === 1400);
  await ctx.close();
});

test('touch: a tap selects a tab', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, hasTouch: true });
  const p = await ctx.newPage();
  await p.goto(`${server.url}/index.html#model=gpt2-small&batch=8`);
  await waitForState(p, 's.estimate !== null');
  const [x0, y0, x1, y1] = await widget(p, 'tab-hardware');
  await p.touchscreen.tap((x0 + x1) / 2, (y0 + y1) / 2);
  await waitForState(p, 's.tab === "hardware"');
  await ctx.close();
});

test('the page loads nothing from other origins and declares a same-origin CSP', async () => {
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  const requests = [];
  p.on('request', (r) => requests.push(r.url()));
  await p.goto(`${server.url}/index.html#model=gpt2-small`);
  await waitForState(p, 's.estimate !== null');
  await p.setInputFiles('#file-input', join(repo, 'tests/fixtures/hf/gpt2.json'));
  await waitForState(p, 's.upload.status !== ""');
  const foreign = requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  const csp = await p.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]').content);
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /connect-src 'self'/);
  await ctx.close();
});
