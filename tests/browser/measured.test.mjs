// Measured beside predicted on the page (issue 16), in headless Chromium: a query that matches a
// published run shows the measured figure, its source and the difference in the Results tab (the
// same comparison as `gpuplan estimate --json`); a signed gpuplan-measure file made on the CPU
// loads like a probe file and shows measured vs predicted, memory marked absent; a mutated one is
// rejected with an error on the page.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser, waitForState, openLink, cliJson, cliArgsOf, screenshot, widget, clickWidget } from './harness.mjs';

const repo = new URL('../..', import.meta.url).pathname;
// gpuplan-measure timing a tiny MLP on the CPU, signed with the test key (tests/measure/make_fixture.sh).
const measuredFile = join(repo, 'tests/measure/fixtures/cpu-mlp.measured.json');
let server, page, dir;

useBrowser({ width: 1280, height: 1000 }, (s) => ({ server, page } = s));
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpuplan-measured-'));
});

async function open(hash) {
  return openLink(page, `${server.url}/index.html#${hash}`, 's.estimate !== null || s.error !== ""');
}

const RESNET = 'model=resnet50&batch=256&precision=amp-fp16&gpu=a100-sxm4-80gb';

test('a ResNet-50 query matching a published run shows the measured figure, its source and the difference', async () => {
  await open(RESNET);
  const s = await waitForState(page, 's.published && s.published.length > 0');
  assert.equal(s.published.length, 1);
  const p = s.published[0];
  // DeepLearningExamples' ResNet-50 v1.5 table, AMP on one A100 80GB (DGX A100) at batch 256.
  assert.equal(p.id, 'T002');
  assert.equal(p.measured, 2470);
  assert.equal(p.unit, 'img/s');
  assert.equal(p.publisher, 'NVIDIA DeepLearningExamples');
  assert.equal(p.system, 'DGX A100');
  assert.match(p.source_url, /^https:\/\/github\.com\/NVIDIA\/DeepLearningExamples\/blob\/[0-9a-f]{40}\//);
  assert.ok(Math.abs(p.error - (p.predicted - p.measured) / p.measured) < 1e-12);
  assert.match(p.shown[0], /^measured: 2,470 img\/s \(NVIDIA DeepLearningExamples, DGX A100, 1 x a100-sxm4-80gb; table dle-resnet50-training\)$/);
  const pct = (p.error > 0 ? '+' : '') + String(Number((100 * p.error).toPrecision(3)));  // printf %.3g
  assert.ok(p.shown[1].includes(`${pct} %`), `${p.shown[1]} should give the difference ${pct} %`);
  // The same comparison as the CLI's.
  const cli = await cliJson(['estimate', '--model', 'resnet50', '--gpu', 'a100-sxm4-80gb', '--batch', '256',
                             '--precision', 'amp-fp16']);
  assert.equal(cli.published.length, 1);
  assert.equal(p.predicted, cli.published[0].predicted);
  assert.equal(p.error, cli.published[0].error);
  // Drawn in the Results tab; the source opens when clicked.
  await widget(page, 'published-0');
  await clickWidget(page, 'published-link-0', 20);
  await page.waitForFunction(() => window.gpuplanLastOpened !== undefined, null, { timeout: 90000 });
  assert.equal(await page.evaluate(() => window.gpuplanLastOpened), p.source_url);
  await screenshot(page, 'results-published');
  // Each band's line links the Benchmarks rows of the pool it came from (the CLI's pool).
  const slug = (pool) => pool.replace(/\*/g, '').replace(/\//g, '-').replace(/-+$/, '');
  await page.evaluate(() => { window.gpuplanLastOpened = undefined; });
  await clickWidget(page, 'step-band-link', 20);
  await page.waitForFunction(() => window.gpuplanLastOpened !== undefined, null, { timeout: 10000 });
  assert.equal(await page.evaluate(() => window.gpuplanLastOpened),
               `../benchmarks/#band-time-${slug(cli.accuracy.pool)}`);
  await page.evaluate(() => { window.gpuplanLastOpened = undefined; });
  await clickWidget(page, 'memory-band-link', 20);
  await page.waitForFunction(() => window.gpuplanLastOpened !== undefined, null, { timeout: 10000 });
  assert.equal(await page.evaluate(() => window.gpuplanLastOpened),
               `../benchmarks/#band-memory-${slug(cli.fit.band.pool)}`);
  // In Chinese the lines come from the string table.
  await open(RESNET + '&lang=zh');
  const zh = await waitForState(page, 's.lang === "zh" && s.published.length === 1');
  assert.match(zh.published[0].shown[0], /^实测：2,470 img\/s（NVIDIA DeepLearningExamples，DGX A100，1 x a100-sxm4-80gb；表 dle-resnet50-training）$/);
  // Another batch is another operating point: nothing is shown.
  await open('model=resnet50&batch=64&precision=amp-fp16&gpu=a100-sxm4-80gb');
  assert.deepEqual((await waitForState(page, 's.estimate && s.estimate.global_batch === 64')).published, []);
});

test('a signed measured-run file made on the CPU shows measured vs predicted; a mutated one is rejected', async () => {
  await open('model=resnet18&batch=16&gpu=a100-sxm4-80gb&tab=hardware');
  await page.setInputFiles('#file-input', measuredFile);
  let s = await waitForState(page, 's.measured_run !== null && s.measured_run.comparison !== null');
  assert.equal(s.upload.error, '');
  assert.match(s.upload.status, /cpu-mlp\.measured\.json: measured run, signature valid/);
  assert.equal(s.tab, 'results', 'a measured run is shown beside the prediction');
  const m = s.measured_run;
  assert.equal(m.signature, 'valid');
  assert.equal(m.device_type, 'cpu');
  const envelope = JSON.parse(await readFile(measuredFile, 'utf8'));
  const payload = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
  assert.equal(m.comparison.measured_step_s, payload.timing.step_s.median);
  assert.equal(m.comparison.measured_samples_per_s, payload.timing.samples_per_s);
  assert.equal(m.comparison.predicted_step_s, s.time.step_s);
  assert.match(m.comparison.notes.join(' '), /not on a GPU/);
  // CPU run: the memory fields are absent, marked so, with the file's reason.
  assert.equal(m.peak_allocated_bytes, null);
  assert.equal(m.peak_reserved_bytes, null);
  assert.match(m.memory_absent_reason, /CPU run/);
  const rows = Object.fromEntries(m.rows.map((r) => [r.quantity, r]));
  assert.equal(rows['peak memory allocated'].measured, 'absent');
  assert.equal(rows['peak memory reserved'].measured, 'absent');
  assert.notEqual(rows['step'].measured, 'absent');
  assert.match(rows['step'].difference, /^[+-]\d/);
  // The CLI reads the same file the same way, for the page's query (its defaults spelled out).
  const cli = await cliJson(['estimate', '--probe', measuredFile, ...cliArgsOf(s.query)]);
  assert.deepEqual(m.comparison, cli.measured_run);
  await widget(page, 'measured-run');
  await screenshot(page, 'results-measured-run');

  // One changed byte of the signed payload (a slower median step): the page refuses the file.
  const text = Buffer.from(envelope.payload, 'base64').toString('utf8');
  const forged = text.replace('"median": 0.', '"median": 1.');
  assert.equal(forged.length, text.length);
  assert.notEqual(forged, text);
  envelope.payload = Buffer.from(forged).toString('base64');
  const tampered = join(dir, 'tampered.measured.json');
  await writeFile(tampered, JSON.stringify(envelope));
  await page.setInputFiles('#file-input', tampered);
  s = await waitForState(page, 's.upload.error !== ""');
  assert.match(s.upload.error, /^tampered\.measured\.json: signature invalid: .*\(the file was changed after signing\)$/);
  assert.equal(s.measured_run.comparison.measured_step_s, payload.timing.step_s.median,
               'the earlier, valid file stays loaded');
  await screenshot(page, 'results-measured-tampered');
});
