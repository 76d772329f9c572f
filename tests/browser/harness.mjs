// Shared browser-test harness: a static server for the built page on 127.0.0.1 and headless
// Debian Chromium driven by playwright-core (no browser download).
import { createServer } from 'node:http';
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm',
                '.json': 'application/json', '.css': 'text/css', '.png': 'image/png' };

export const webDir = process.env.GPUPLAN_WEB_DIR;
export const cliPath = process.env.GPUPLAN_CLI;
export const artifacts = process.env.GPUPLAN_ARTIFACTS || 'test-artifacts';

// Serves `root` on an ephemeral loopback port; resolves to { url, close, requests }.
export async function serve(root) {
  const requests = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url);
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (path.includes('..')) { res.writeHead(400).end(); return; }
    try {
      const body = await readFile(join(root, path.endsWith('/') ? path + 'index.html' : path));
      res.writeHead(200, { 'content-type': types[extname(path)] || 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader', '--use-gl=angle',
           '--use-angle=swiftshader', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// Serves the built page and launches Chromium before a test file's tests, and closes both after
// them. `receive` gets { server, browser, page }; page is opened only when a viewport is given.
export function useBrowser(viewport, receive) {
  let session = null;
  before(async () => {
    assert.ok(webDir, 'GPUPLAN_WEB_DIR must point at the built page (make wasm)');
    const server = await serve(webDir);
    const browser = await launch();
    session = { server, browser, page: viewport ? await browser.newPage({ viewport }) : null };
    receive(session);
  });
  after(async () => {
    await session?.browser.close();
    await session?.server.close();
  });
}

// Waits until the app has published a state for which `predicate(state)` holds. The limit only
// turns a state that never comes into a failure: it is far above what a loaded 2-core machine
// takes, so it never decides a verdict on speed.
export async function waitForState(page, predicate = 'true', timeout = 90000) {
  await page.waitForFunction(`window.gpuplanState !== undefined && ((s) => ${predicate})(window.gpuplanState)`,
                             null, { timeout });
  return page.evaluate(() => window.gpuplanState);
}

// Opens `url` and waits for the state of its link, for which `predicate(state)` holds too. A
// link that differs from the open page's only after '#' keeps the page, and its last published
// state, until the hashchange event applies the new link, after goto returns: waiting for "an
// estimate" alone could read the previous link's (issue 30: a step time compared with another
// model's). The page publishes the link it last opened as `opened_link`.
export async function openLink(page, url, predicate = 'true', timeout = undefined) {
  const fragment = new URL(url).hash.slice(1);
  await page.goto(url);
  return waitForState(page, `s.opened_link === ${JSON.stringify(fragment)} && (${predicate})`, timeout);
}

// Waits for `n` more animation frames. The app draws in those that follow input or a change and
// while work is in flight (window.gpuplanFrames counts them), and rests otherwise. A test waits
// for frames, not for milliseconds that a loaded machine may fill with fewer.
export async function frames(page, n = 3) {
  await page.evaluate((count) => new Promise((resolve) => {
    let k = 0;
    const tick = () => (++k >= count ? resolve() : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  }), n);
}

// How many frames the page has drawn since it loaded (it draws only on input, a change or work
// in flight, issue 31).
export async function framesDrawn(page) {
  return page.evaluate(() => window.gpuplanFrames ?? 0);
}

// Waits until the page rests: `n` animation frames in a row without a frame drawn.
// Returns the frames drawn so far. The limit only turns a page that never rests into a failure.
export async function settled(page, n = 10) {
  for (let i = 0; i < 300; ++i) {
    const before = await framesDrawn(page);
    await frames(page, n);
    const after = await framesDrawn(page);
    if (after === before) return after;
  }
  throw new Error(`the page never rested: it drew within every ${n} animation frames, 300 times in a row`);
}

// The screen rectangle (CSS px) of a named widget, once the layout has settled (ImGui sizes
// tables and child windows over the first frames): the same rectangle a few frames apart.
export async function widget(page, name) {
  let last = null;
  for (let i = 0; i < 50; ++i) {
    const s = await waitForState(page, `s.widgets && s.widgets[${JSON.stringify(name)}]`);
    const r = s.widgets[name];
    if (last && JSON.stringify(last) === JSON.stringify(r)) return r;
    last = r;
    await frames(page, 4);
  }
  throw new Error(`widget ${name} did not settle in 200 frames`);
}

// Clicks the middle-left part of a named widget, after hovering it for a few frames as a hand
// does (Dear ImGui gives a row that other widgets overlap its hover one frame late).
export async function clickWidget(page, name, dx = 40) {
  const [x0, y0, , y1] = await widget(page, name);
  await page.mouse.move(x0 + dx, (y0 + y1) / 2);
  await frames(page, 3);
  await page.mouse.click(x0 + dx, (y0 + y1) / 2);
}

// Runs the native CLI and parses its JSON output.
export async function cliJson(args) {
  const { stdout } = await promisify(execFile)(cliPath, [...args, '--json']);
  return JSON.parse(stdout);
}

// Saves a screenshot artifact and returns the fraction of pixels that differ from the most
// common colour (0 means blank).
export async function screenshot(page, name) {
  await mkdir(artifacts, { recursive: true });
  const png = await page.screenshot();
  await writeFile(join(artifacts, name + '.png'), png);
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const counts = new Map();
    for (let i = 0; i < d.length; i += 4) {
      const k = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
      counts.set(k, (counts.get(k) || 0) + 1);
    }
    const top = Math.max(...counts.values());
    return 1 - top / (d.length / 4);
  }, png.toString('base64'));
}

// A phone as Chromium emulates one: 390x844 CSS px, touch, a mobile viewport, 2 device pixels a
// CSS pixel.
export const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

// Taps the middle of a named widget (or `dx` CSS px into it) with one finger.
export async function tapWidget(page, name, dx = null) {
  const [x0, y0, x1, y1] = await widget(page, name);
  await page.touchscreen.tap(dx === null ? (x0 + x1) / 2 : x0 + dx, (y0 + y1) / 2);
}

// A one-finger swipe from (x, y) by (dx, dy) CSS px in `steps` moves 16 ms apart (event
// timestamps, not waits), lifted 16 ms after the last move, or `hold_ms` later: a finger that
// stops before lifting throws nothing. `cdp` is the page's CDP session.
export async function swipe(cdp, x, y, dx, dy, { steps = 10, hold_ms = 16 } = {}) {
  const t0 = Date.now() / 1000;
  const at = (i) => [{ x: x + (dx * i) / steps, y: y + (dy * i) / steps }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0), timestamp: t0 });
  for (let i = 1; i <= steps; ++i) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(i), timestamp: t0 + 0.016 * i });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [],
                                               timestamp: t0 + 0.016 * steps + hold_ms / 1000 });
}

// Scrolls the panel under a named widget until the widget lies on screen below the tabs, as a
// user does: one wheel notch at a time over it (mouse), or with `cdp` slow swipes on the labels'
// edge that throw nothing (touch). Returns its rectangle; fails if the panel stops moving first.
export async function reveal(page, name, cdp = null) {
  const { height } = page.viewportSize();
  const top = (await widget(page, 'tab-results'))[3];
  for (let i = 0; i < 60; ++i) {
    const r = await widget(page, name);
    if (r[1] >= top && r[3] <= height) return r;
    const down = r[3] > height;  // the widget is below the screen: the content moves up
    if (cdp) {
      const dy = down ? -Math.min(300, r[3] - height + 40) : Math.min(300, top - r[1] + 40);
      const y = down ? height - 40 : top + 40;
      await swipe(cdp, 12, y, 0, dy, { hold_ms: 200 });
    } else {
      await page.mouse.move(r[0] + 5, Math.min(Math.max((r[1] + r[3]) / 2, top + 10), height - 10));
      await page.mouse.wheel(0, down ? 100 : -100);
    }
    await settled(page);
    if (JSON.stringify(await widget(page, name)) === JSON.stringify(r)) {
      throw new Error(`${name} at ${JSON.stringify(r)} is off the screen (0-${height}) and the panel no longer scrolls`);
    }
  }
  throw new Error(`${name} is still off the screen after 60 scrolls`);
}

// Link keys of the page's own (not CLI options).
export const pageOnlyKeys = new Set(['tab', 'lang', 'compare', 'serve-compare', 'v']);

// The CLI options of a page link (its query string): `--key value` for each key the CLI reads.
export function cliArgsOf(query) {
  const args = [];
  for (const [k, v] of new URLSearchParams(query)) if (!pageOnlyKeys.has(k)) args.push('--' + k, v);
  return args;
}
