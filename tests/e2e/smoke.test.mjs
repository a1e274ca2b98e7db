// The first things a user sees: the page loads cleanly and the app renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('the page loads with no console error', async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#barrierlab', { timeout: 15000 });
  await page.waitForTimeout(300);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the favicon is served', async () => {
  const { page } = await openPage(browser, site.url);
  const href = await page.getAttribute('link[rel="icon"]', 'href');
  assert.ok(href, 'no <link rel="icon">');
  const res = await page.request.get(new URL(href, site.url).href);
  assert.equal(res.status(), 200);
  await page.close();
});

test("the app's root renders its panels", async () => {
  const { page } = await openPage(browser, site.url);
  await page.waitForSelector('#barrierlab', { timeout: 15000 });
  assert.match(await page.textContent('h1'), /Barrier Lab/);
  for (const id of ['job-graph', 'checkpoints', 'timeline', 'event-log']) {
    assert.equal(await page.locator(`#${id}`).count(), 1, `panel #${id}`);
  }
  await screenshot(page, 'shell-1280x720');
  await page.close();
});

test('the shell is readable on a 390-px phone', async () => {
  const { page } = await openPage(browser, site.url, { width: 390, height: 844 });
  await page.waitForSelector('#barrierlab', { timeout: 15000 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
  await screenshot(page, 'shell-390');
  await page.close();
});

test('the seed demo has no external sink, so the verdict says there is nothing to verify', async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#verdict-badge', { timeout: 15000 });
  assert.match(await page.textContent('#verdict-badge'), /NOTHING TO VERIFY/);
  assert.deepEqual(errors, []);
  await page.close();
});
