// The built documentation site in headless Chromium, served from a sub-path (/REPO/) as GitHub
// Pages serves a project site: every page of the navigation loads, the language switch works, the
// calculator opens from the home page and inside the Calculator page and renders (its state
// appears), and no request leaves /REPO/ or misses.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { launch, waitForState, screenshot } from '../browser/harness.mjs';

const siteDir = process.env.GPUPLAN_SITE_DIR;
const PREFIX = '/REPO/';
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json',
                '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml', '.xml': 'application/xml',
                '.gz': 'application/gzip', '.woff2': 'font/woff2' };

let server, base, browser, page;
const outside = [];   // requests that left the prefix
const missing = [];   // requests answered 404

before(async () => {
  assert.ok(siteDir, 'GPUPLAN_SITE_DIR must point at the built site (make site)');
  server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!path.startsWith(PREFIX)) {
      outside.push(req.url);
      res.writeHead(404).end('outside the site');
      return;
    }
    let rel = normalize(path.slice(PREFIX.length));
    if (rel.includes('..')) { res.writeHead(400).end(); return; }
    if (rel === '.' || rel.endsWith('/')) rel = join(rel, 'index.html');
    try {
      const body = await readFile(join(siteDir, rel));
      res.writeHead(200, { 'content-type': types[extname(rel)] || 'application/octet-stream' }).end(body);
    } catch {
      // A folder without its trailing slash: redirect, as static servers do.
      try {
        await readFile(join(siteDir, rel, 'index.html'));
        res.writeHead(301, { location: path + '/' }).end();
      } catch {
        missing.push(req.url);
        res.writeHead(404).end('not found');
      }
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}${PREFIX}`;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

after(async () => {
  await browser?.close();
  await new Promise((r) => (server ? server.close(r) : r()));
});

test('the home page loads from the sub-path', async () => {
  const res = await page.goto(base);
  assert.equal(res.status(), 200);
  assert.match(await page.title(), /gpuplan/);
  assert.match(await page.locator('h1').first().textContent(), /gpuplan/);
});

test('every page in the navigation loads and has a heading', async () => {
  await page.goto(base);
  const hrefs = await page.$$eval('nav.md-nav--primary a.md-nav__link[href]', (as) => [...new Set(as.map((a) => a.href))]);
  const pages = hrefs.filter((h) => !h.includes('#'));
  assert.ok(pages.length >= 10, `navigation lists ${pages.length} pages: ${pages.join(', ')}`);
  for (const href of pages) {
    assert.ok(href.startsWith(base), `${href} stays under ${PREFIX}`);
    const res = await page.goto(href);
    assert.equal(res.status(), 200, href);
    const h1 = (await page.locator('article h1').first().textContent()).trim();
    assert.ok(h1.length > 0, `${href} has a heading`);
  }
});

test('clicking through the navigation moves between pages', async () => {
  await page.goto(base);
  for (const [label, path] of [['Method', 'method/'], ['Data', 'data/'], ['Checking the guide', 'guide-check/'],
                               ['Home', '']]) {
    await page.locator('nav.md-nav--primary').getByRole('link', { name: label, exact: true }).first().click();
    await page.waitForURL(base + path);
    assert.equal(page.url(), base + path);
  }
});

test('the language switch leads to the Chinese twin of every page and back', async () => {
  await page.goto(base + 'guide-check/');
  const zh = await page.$eval('header a[hreflang="zh"]', (a) => a.href);
  assert.equal(zh, base + 'zh/');
  for (const [path, heading] of [['guide-check/', /核对指南/], ['method/', /方法/], ['data/', /数据/], ['', /gpuplan/]]) {
    await page.goto(base + path);
    await page.locator('article .gp-lang-switch').getByRole('link', { name: '中文', exact: true }).click();
    await page.waitForURL(base + 'zh/' + path);
    assert.match(await page.locator('article h1').textContent(), heading);
    await page.locator('article .gp-lang-switch').getByRole('link', { name: 'English', exact: true }).click();
    await page.waitForURL(base + path);
  }
});

test('"Open the calculator" on the home page opens the calculator, which renders', async () => {
  await page.goto(base);
  await page.getByRole('link', { name: 'Open the calculator' }).click();
  await page.waitForURL(base + 'calculator/');
  const state = await waitForState(page, 's.estimate !== null');
  assert.equal(state.error, '');
  assert.ok(state.estimate.params > 0);
  const nonBackground = await screenshot(page, 'site-calculator');
  assert.ok(nonBackground > 0.01, 'the canvas is not blank');
});

test('the Calculator page embeds the running calculator', async () => {
  await page.goto(base + 'calculator-help/');
  await page.locator('#calculator-frame').scrollIntoViewIfNeeded();
  const frame = await (await page.locator('#calculator-frame').elementHandle()).contentFrame();
  assert.ok(frame.url().startsWith(base + 'calculator/'), frame.url());
  const state = await waitForState(frame, 's.estimate !== null');
  assert.ok(state.estimate.params > 0);
  await screenshot(page, 'site-calculator-help');
});

test('every example link on the Calculator pages computes without an error', async () => {
  for (const helpPage of ['calculator-help/', 'zh/calculator-help/']) {
    await page.goto(base + helpPage);
    const links = await page.$$eval('article a[href*="calculator/#"]', (as) => as.map((a) => a.href));
    assert.ok(links.length >= 3, `${helpPage} has example links`);
    for (const href of links) {
      // A fresh load each time: going from one hash to another on the same page would keep the
      // previous state until the page reacts, and the test could read that.
      await page.goto('about:blank');
      await page.goto(href);
      const want = new URL(href).hash.slice(1);
      const model = new URLSearchParams(want).get('model');
      const state = await waitForState(page, 's.estimate !== null || s.error !== ""');
      assert.equal(state.error, '', `${href}: ${state.error}`);
      assert.equal(state.estimate.model, model, href);
    }
  }
});

test('no request left the sub-path and none was missing', () => {
  assert.deepEqual(outside, []);
  assert.deepEqual(missing, []);
});
