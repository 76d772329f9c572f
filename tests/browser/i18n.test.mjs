// The calculator in Chinese: ?lang=zh shows Chinese in the DOM mirror and on the canvas (with the
// font subset fetched only then), the in-page switch goes back to English, and the numbers are
// the same in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, waitForState, screenshot, clickWidget } from './harness.mjs';

let server, browser;
// 8 H100s of one p5 instance (the instance names its GPUs: the CLI refuses --gpus beside it).
const hash = '#model=llama-2-7b&batch=16&precision=bf16&zero=3&tokens=1e9&instance=aws-p5.48xlarge';
const cjk = /[\u4e00-\u9fff]/;

useBrowser(null, (s) => ({ server, browser } = s));

async function open(query, locale) {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale });
  const page = await ctx.newPage();
  const fonts = [];
  page.on('request', (r) => { if (r.url().endsWith('.otf')) fonts.push(r.url()); });
  await page.goto(`${server.url}/index.html${query}${hash}`);
  return { ctx, page, fonts };
}

test('?lang=zh shows Chinese in the DOM mirror and on the canvas; the switch returns to English with equal numbers', async () => {
  const en = await open('', 'en-US');
  const sEn = await waitForState(en.page, 's.estimate !== null && s.cost !== null');
  assert.equal(sEn.lang, 'en');
  assert.doesNotMatch(sEn.title, cjk);
  assert.deepEqual(en.fonts, [], 'the Chinese font must not load for English');
  await en.page.waitForTimeout(300);
  const blankEn = await screenshot(en.page, 'i18n-en-1366x800');
  const pngEn = await en.page.screenshot();

  const zh = await open('?lang=zh', 'en-US');
  const sZh = await waitForState(zh.page, 's.lang === "zh" && s.cjk_font === true && s.estimate !== null');
  assert.match(sZh.title, cjk);
  assert.match(await zh.page.locator('#app-state').textContent(), cjk, 'the DOM mirror carries Chinese text');
  assert.equal(zh.fonts.length, 1, 'the Chinese font subset is fetched once');
  await zh.page.waitForTimeout(300);
  const blankZh = await screenshot(zh.page, 'i18n-zh-1366x800');
  const pngZh = await zh.page.screenshot();
  assert.ok(blankEn > 0.01 && blankZh > 0.01, 'neither canvas is blank');
  assert.ok(!pngZh.equals(pngEn), 'the Chinese canvas differs from the English one');

  // Same numbers in both languages.
  assert.deepEqual(sZh.estimate, sEn.estimate);
  assert.deepEqual(sZh.time, sEn.time);
  assert.equal(sZh.cost.usd_total, sEn.cost.usd_total);

  // Switch in the page: back to English, the link records it, numbers unchanged.
  await clickWidget(zh.page, 'language', 10);
  const back = await waitForState(zh.page, 's.lang === "en"');
  assert.doesNotMatch(back.title, cjk);
  assert.match(await zh.page.evaluate(() => location.hash), /lang=en/);
  assert.deepEqual(back.estimate, sEn.estimate);
  await en.ctx.close();
  await zh.ctx.close();
});

test('the browser language picks Chinese when the link names none', async () => {
  const { ctx, page } = await open('', 'zh-CN');
  const s = await waitForState(page, 's.estimate !== null');
  assert.equal(s.lang, 'zh');
  await ctx.close();
});

test('a bad link in Chinese shows the core\'s error in Chinese (the CLI keeps English)', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale: 'en-US' });
  const page = await ctx.newPage();
  await page.goto(`${server.url}/index.html?lang=zh#model=gpt2-small&batch=-5`);
  const s = await waitForState(page, 's.link_problems.length > 0');
  assert.equal(s.lang, 'zh');
  assert.equal(s.link_problems[0].key, 'batch');
  assert.equal(s.link_problems[0].message, '--batch: -5 is out of range [1, 100000000]');
  assert.match(s.link_problems[0].shown, /^全局批量：-5 超出范围 \[1, 100000000\]/);
  // An impossible setup (3-way tensor parallel on 4 GPUs), refused by the core's evaluation.
  await page.goto(`${server.url}/index.html?lang=zh#model=gpt2-small&gpu=a100-sxm4-80gb&gpus=4&tp=3`);
  await page.reload();
  const t = await waitForState(page, 's.error !== ""');
  assert.equal(t.error, '--tp x --pp x --cp = 3 does not divide the 4 GPUs');
  assert.equal(t.error_shown, '张量并行 x 流水线并行 x 上下文并行 = 3，不能整除 4 块 GPU');
  await ctx.close();
});

test('the toolbar\'s Help opens the calculator\'s help page in the page\'s language', async () => {
  for (const [lang, want] of [['zh', '../zh/calculator-help/'], ['en', '../calculator-help/']]) {
    const { ctx, page } = await open(`?lang=${lang}`, 'en-US');
    await waitForState(page, `s.lang === "${lang}" && s.estimate !== null`);
    await clickWidget(page, 'help', 6);
    await page.waitForFunction(() => window.gpuplanLastOpened !== undefined);
    assert.equal(await page.evaluate(() => window.gpuplanLastOpened), want);
    await ctx.close();
  }
});
