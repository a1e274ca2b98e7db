// Words for newcomers: no references to documents users never see, a random seed that cannot be
// confused with the demo job, and a first visit that points at the tutorials.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, screenshot } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('a first visit points at the tutorials, once', async () => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(site.url);
  await page.waitForSelector('#sim-time', { timeout: 15000 });
  assert.equal(await page.locator('#welcome').count(), 1);
  assert.equal(await page.getAttribute('#welcome-tutorials', 'href'), '#tutorials');
  const body = await page.textContent('body');
  assert.doesNotMatch(body, /seed 000|§10|the seed's/i, 'words users cannot look up');
  assert.match(await page.textContent('label:has(#seed)'), /Random seed/);
  assert.match(await page.textContent('.preset-description'), /^The demo job: a DataGen source/);
  await screenshot(page, 'welcome');
  // One numbering: #0 as in the Web UI, with Flink's (1/2) of its logs explained beside it.
  await page.click('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="1"]');
  assert.match(await page.textContent('#insp-title'), /#1$/);
  assert.match(await page.textContent('#insp-flink-name'), /\(2\/2\)$/);
  await page.keyboard.press('Escape');
  await page.click('#welcome-dismiss');
  assert.equal(await page.locator('#welcome').count(), 0);
  const again = await context.newPage();
  await again.goto(site.url);
  await again.waitForSelector('#sim-time', { timeout: 15000 });
  await again.waitForTimeout(300);
  assert.equal(await again.locator('#welcome').count(), 0, 'dismissed stays dismissed');
  // Following the pointer opens the tutorials and also retires it.
  const fresh = await browser.newContext();
  const third = await fresh.newPage();
  await third.goto(site.url);
  await third.waitForSelector('#welcome');
  await third.click('#welcome-tutorials');
  await third.waitForFunction(() => location.hash === '#tutorials');
  assert.equal(await third.locator('#welcome').count(), 0);
  await context.close();
  await fresh.close();
});
