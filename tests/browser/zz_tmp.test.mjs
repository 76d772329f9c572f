import { test } from 'node:test';
import { useBrowser, openLink, screenshot, waitForState } from './harness.mjs';
let server, browser, page;
useBrowser({ width: 1366, height: 800 }, (s) => ({ server, browser, page } = s));
test('shots', async () => {
  await openLink(page, `${server.url}/index.html#model=llama-3.1-8b&batch=64&seq=8192&precision=bf16&zero=3&dp-shard=8&tokens=1e10&plan-gpu=h100-sxm5-80gb&max-nodes=4&objective=time&tab=plans`, 's.estimate !== null || s.error !== ""');
  await waitForState(page, 's.plans && s.plans.length > 0', 120000).catch(() => {});
  await screenshot(page, 'tmp-plans-shard');
  await openLink(page, `${server.url}/index.html#model=mimo-v2-flash&mode=infer&seq=128000&precision=bf16`, 's.estimate !== null || s.error !== ""');
  await screenshot(page, 'tmp-mimo');
  await openLink(page, `${server.url}/index.html#model=llama-3.3-nemotron-super-49b&tab=serving`, 's.estimate !== null || s.error !== ""');
  await new Promise(r => setTimeout(r, 5000));
  await screenshot(page, 'tmp-super-serving');
});
