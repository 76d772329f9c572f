// Page weight and time to first frame of the calculator (issue goal: <= 800 KB gzip, <= 1 s).
// Usage: node bench/bench_web.mjs build/wasm/site   (NODE_PATH must reach playwright-core)
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { serve, launch } from '../tests/browser/harness.mjs';

const dir = process.argv[2] || 'build/wasm/site';
let total = 0;
for (const f of ['index.wasm', 'index.js', 'index.html']) {
  const raw = await readFile(join(dir, f));
  const gz = gzipSync(raw, { level: 9 }).length;
  total += gz;
  console.log(`${f.padEnd(11)} ${String(raw.length).padStart(9)} bytes, ${String(gz).padStart(8)} gzip -9`);
}
console.log(`page total  ${String(total).padStart(9)} bytes gzip -9 (${(total / 1024).toFixed(0)} KiB)`);

const server = await serve(dir);
const browser = await launch();
const times = [];
for (let i = 0; i < 5; ++i) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const t0 = Date.now();
  await page.goto(`${server.url}/index.html#model=gpt2-small`);
  // First frame: the app publishes its results right after drawing it.
  await page.waitForFunction(() => window.gpuplanState !== undefined, null, { timeout: 30000 });
  times.push(Date.now() - t0);
  await ctx.close();
}
times.sort((a, b) => a - b);
console.log(`time to first frame (headless Chromium, software WebGL, loopback): median ${times[2]} ms, ` +
            `min ${times[0]} ms, max ${times[4]} ms over 5 loads`);
await browser.close();
await server.close();
