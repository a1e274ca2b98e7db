// "Why was this checkpoint slow?" comes from the engine's record of the checkpoint, not from what
// the page happened to see while it played: the same checkpoint reads the same at 1x and at max.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

/**
 * Opens seed-backpressure at `speed`, pauses at the first frame past `seconds` of simulated time
 * (checked on every animation frame), travels back to `seconds` if the last frame went past it
 * (at max speed a frame moves 5-150 s, and checkpoint 2 leaves the ten-entry history after
 * ~55 s), and returns the why panel's sentences for checkpoint `id`.
 */
async function whyAt(speed, id, seconds) {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#sim-time', { timeout: 15000 });
  await page.selectOption('#preset', 'seed-backpressure');
  await page.selectOption('#speed', speed);
  await page.waitForFunction((seconds) => {
    const t = Number(document.querySelector('#sim-time').textContent.match(/([\d.]+) s/)?.[1]);
    if (!(t >= seconds)) return false;
    const play = document.querySelector('#play');
    if (play.getAttribute('aria-pressed') === 'true') play.click();
    return true;
  }, seconds, { polling: 'raf', timeout: 60000 });
  assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'false');
  // The scrubber counts hundredths of a simulated second.
  await page.$eval('#scrubber', (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, Math.round(seconds * 100));
  await page.waitForFunction((seconds) => Number(document.querySelector('#sim-time').textContent
    .match(/([\d.]+) s/)?.[1]) <= seconds + 0.01, seconds);
  await page.selectOption('#why-checkpoint', String(id));
  await page.waitForFunction((id) => document.querySelector('#why-text li')?.textContent
    .includes(`Checkpoint ${id} `), id);
  const text = await page.locator('#why-text li').allTextContents();
  const time = await page.textContent('#sim-time');
  assert.deepEqual(errors, []);
  await page.close();
  return { text, time };
}

test('checkpoint 2 of seed-backpressure gets the same answer at 1x and at max speed', async () => {
  // Checkpoint 2 is triggered at 5.5 s and completes 2.4 s later; at max it is asked later too,
  // but well before checkpoint 12's trigger (55.5 s) pushes it out of the history.
  const slow = await whyAt('1', 2, 8.5);
  const fast = await whyAt('max', 2, 20);
  assert.deepEqual(fast.text, slow.text, `at ${slow.time} (1x) vs ${fast.time} (max)`);
  const all = slow.text.join(' ');
  assert.match(all, /The start delay phase dominated/);
  const n = Number(all.match(/behind up to (\d+) data buffers/)?.[1]);
  assert.ok(n > 0, all);
});
