// Hosting anywhere: the site under a sub-path, as static hosting serves it
// (https://example.org/barrier-lab/), embeds included; and the loading indicator a slow link sees
// until the WebAssembly app has loaded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { serveDist, launch, SHOTS as DEFAULT_SHOTS } from './harness.mjs';

const PREFIX = '/barrier-lab/';
// Screenshots for review; SHOTS_DIR puts them elsewhere.
const SHOTS = process.env.SHOTS_DIR ?? DEFAULT_SHOTS;
const WIDE = { width: 1440, height: 900 };

let site, browser;
before(async () => {
  await mkdir(SHOTS, { recursive: true });
  site = await serveDist({ prefix: PREFIX });
  browser = await launch();
});
after(async () => { await browser?.close(); await site?.close(); });

/** A page recording console errors, uncaught exceptions, failed requests and HTTP errors. */
async function watched(viewport = WIDE) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()}: ${r.url()}`); });
  return { page, errors };
}

const simSeconds = async (frame) => {
  const text = await frame.textContent('#sim-time');
  const m = /t = ([\d.]+)\s*(ms|s|min)/.exec(text);
  assert.ok(m, text);
  return Number(m[1]) * { ms: 0.001, s: 1, min: 60 }[m[2]];
};

/** Every request the server saw stayed under the prefix (nothing asked for `/app.js`). */
function assertAllUnderPrefix(since) {
  const outside = site.requests.slice(since).filter((r) => !r.path.startsWith(PREFIX));
  assert.deepEqual(outside, [], 'requests outside the sub-path');
  const failed = site.requests.slice(since).filter((r) => r.status >= 400);
  assert.deepEqual(failed, [], 'requests that failed');
}

test('the playground runs under a sub-path: assets load, sim time advances, links keep the path', async () => {
  const since = site.requests.length;
  const { page, errors } = await watched();
  await page.goto(site.url, { waitUntil: 'load' });
  await page.waitForSelector('#barrierlab', { timeout: 20000 });
  const t0 = await simSeconds(page);
  await page.waitForFunction((t) => {
    const m = /t = ([\d.]+)\s*s/.exec(document.querySelector('#sim-time').textContent);
    return m && Number(m[1]) > t + 1;
  }, t0, { timeout: 20000 });
  assert.ok(await simSeconds(page) > t0, 'simulated time advances');
  await page.screenshot({ path: `${SHOTS}/subpath-playground-1440x900.png` });
  // Links the app builds point back into the sub-path.
  await page.click('#embed-button');
  const snippet = await page.inputValue('#embed-snippet');
  assert.ok(snippet.startsWith(`<iframe src="${site.url}#v1.`), snippet);
  await page.click('#tutorials-open');
  await page.waitForSelector('#tutorial-picker', { timeout: 5000 });
  await page.click('.tutorial-pick[data-id="alignment"]');
  await page.waitForSelector('#tutorial[data-tutorial="alignment"][data-step="1"]', { timeout: 30000 });
  assert.equal(page.url(), `${site.url}#tutorial=alignment&step=1`);
  assert.equal(await page.inputValue('#tutorial-link'), page.url());
  assertAllUnderPrefix(since);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the sub-path without its trailing slash redirects and loads', async () => {
  const { page, errors } = await watched({ width: 1280, height: 720 });
  await page.goto(site.origin + PREFIX.replace(/\/$/, ''), { waitUntil: 'load' });
  await page.waitForSelector('#barrierlab', { timeout: 20000 });
  assert.equal(new URL(page.url()).pathname, PREFIX);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the embed example page runs both embeds under the sub-path', async () => {
  const since = site.requests.length;
  const { page, errors } = await watched({ width: 1000, height: 1400 });
  await page.goto(site.url + 'embed-example.html', { waitUntil: 'load' });
  for (const id of ['embed-backpressure', 'embed-unaligned']) {
    const frame = await (await page.waitForSelector(`#${id}`)).contentFrame();
    assert.ok(frame.url().startsWith(site.url + '#v1.'), frame.url());
    await frame.waitForSelector('#barrierlab.embed', { timeout: 20000 });
    // The link's until=12s: the embed ran from 0 to 12 s and paused there.
    await frame.waitForFunction(() => /paused/.test(document.querySelector('#job-status').textContent),
      null, { timeout: 30000 });
    assert.equal(await simSeconds(frame), 12);
    const full = await frame.getAttribute('#open-full', 'href');
    assert.ok(full.startsWith(site.url + '#v1.'), full);
  }
  await page.screenshot({ path: `${SHOTS}/subpath-embed-example.png`, fullPage: true });
  assertAllUnderPrefix(since);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a slow link shows the loading indicator until the app mounts, then it is gone', async () => {
  const since = site.requests.length;
  const wasm = site.hold(/\.wasm$/);
  const { page, errors } = await watched();
  const started = Date.now();
  // Not `load`: the held .wasm is preloaded, and a preload delays the load event.
  await page.goto(site.url, { waitUntil: 'commit' });
  await Promise.race([wasm.requested, new Promise((_, no) => setTimeout(
    () => no(new Error('the page never asked for the .wasm under the sub-path')), 15000))]);
  const indicator = page.locator('#loading');
  await indicator.waitFor({ state: 'visible', timeout: 10000 });
  assert.match(await indicator.textContent(), /Loading/);
  assert.equal(await indicator.getAttribute('role'), 'status');
  assert.equal(await page.locator('#barrierlab').count(), 0, 'the app has not mounted yet');
  // Painted: the browser reports a first contentful paint while the .wasm is still held.
  const fcp = await page.evaluate(() => new Promise((ok) => {
    new PerformanceObserver((list) => {
      const e = list.getEntries().find((x) => x.name === 'first-contentful-paint');
      if (e) ok(e.startTime);
    }).observe({ type: 'paint', buffered: true });
  }));
  assert.ok(fcp > 0);
  await page.screenshot({ path: `${SHOTS}/loading-indicator-1440x900.png` });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: `${SHOTS}/loading-indicator-dark-1440x900.png` });
  await page.waitForTimeout(500);
  assert.ok(await indicator.isVisible(), 'still shown while the .wasm is held');
  wasm.release();
  await page.waitForSelector('#barrierlab', { timeout: 20000 });
  assert.equal(await page.locator('#loading').count(), 0, 'the app removed the indicator');
  console.log(`loading indicator painted at ${fcp.toFixed(0)} ms; app mounted ${Date.now() - started} ms after navigation (.wasm held ~500 ms+)`);
  assertAllUnderPrefix(since);
  assert.deepEqual(errors, []);
  await page.close();
});

test('measured: first paint and app mount on a throttled link (1.6 Mbit/s, 150 ms RTT)', async () => {
  const { page, errors } = await watched();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8,
  });
  const start = Date.now();
  await page.goto(site.url, { waitUntil: 'commit' });
  await page.locator('#loading').waitFor({ state: 'visible', timeout: 30000 });
  const fcp = await page.evaluate(() => new Promise((ok) => {
    new PerformanceObserver((list) => {
      const e = list.getEntries().find((x) => x.name === 'first-contentful-paint');
      if (e) ok(e.startTime);
    }).observe({ type: 'paint', buffered: true });
  }));
  await page.waitForSelector('#barrierlab', { timeout: 60000 });
  const mounted = await page.evaluate(() => performance.now());
  console.log(`throttled: loading indicator painted at ${fcp.toFixed(0)} ms, app mounted at ${mounted.toFixed(0)} ms (wall ${Date.now() - start} ms)`);
  assert.ok(fcp < mounted, 'the indicator shows before the app');
  assert.equal(await page.locator('#loading').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
