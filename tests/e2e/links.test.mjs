// Share links (docs/sharing.md): opening a link, a bad link, Copy link round trip, embed mode and
// the embed example page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot, cliLink } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const fingerprint = (page) => page.textContent('#fingerprint');
const simTime = (page) => page.textContent('#sim-time');


/** Waits until a link's run has caught up with its `until` and paused. */
async function waitPaused(page) {
  await page.waitForFunction(() => /paused/.test(document.querySelector('#job-status')?.textContent ?? ''),
    null, { timeout: 30000 });
}

test('a link opens its scenario with its options', async () => {
  const frag = cliLink('--preset', 'seed-unaligned', '--until', '12s', '--speed', '2', '--theme', 'dark',
    '--panel', 'timeline', '--checkpoint', '2');
  const { page, errors } = await openPage(browser, site.url + frag);
  await page.waitForSelector('#barrierlab', { timeout: 15000 });
  await waitPaused(page);
  assert.match(await simTime(page), /12(\.0+)?\s*s/);
  assert.equal(await page.inputValue('#preset'), 'seed-unaligned');
  assert.equal(await page.inputValue('#speed'), '2');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.match(await page.getAttribute('#timeline', 'class'), /focused/);
  await page.waitForSelector('#checkpoint-history tr.selected[data-id="2"]', { timeout: 5000 });
  assert.equal(await page.locator('#link-error').count(), 0);
  await screenshot(page, 'link-opened');
  assert.deepEqual(errors, []);
  await page.close();
});

test('until= is bounded: a link asking for 2 h stops at 600 s and says so', async () => {
  const frag = cliLink('--preset', 'seed-demo', '--until', '2h');
  assert.match(frag, /&until=7200s$/);
  const { page, errors } = await openPage(browser, site.url + frag);
  await page.waitForSelector('#link-error', { timeout: 15000 });
  const text = await page.textContent('#link-error');
  assert.match(text, /This link runs to t = 7200\.000 s, but a link opens at most 600 s into its run: it stops at t = 600\.000 s\./);
  assert.match(text, /Press Play to go on from there\./);
  const t0 = Date.now();
  await waitPaused(page);
  console.log(`until=2h: caught up to the 600 s bound in ${Date.now() - t0} ms`);
  assert.match(await simTime(page), /t = 600\.000 s/);
  await screenshot(page, 'link-until-bounded');
  // Play goes on past the bound.
  await page.click('#play');
  await page.waitForFunction(() => !/t = 600\.000 s/.test(document.querySelector('#sim-time').textContent),
    null, { timeout: 10000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a bad link says why, falls back to the seed demo and can be dismissed', async () => {
  const { page, errors } = await openPage(browser, site.url + '#v1.!!!notbase64&until=3s');
  await page.waitForSelector('#link-error', { timeout: 15000 });
  const text = await page.textContent('#link-error');
  assert.match(text, /does not load/);
  assert.match(text, /base64/i);
  assert.match(text, /Showing the demo job instead/);
  assert.equal(await page.inputValue('#preset'), 'seed-demo');
  await screenshot(page, 'link-bad');
  await page.click('#link-error-dismiss');
  assert.equal(await page.locator('#link-error').count(), 0);
  // An unknown version and an unknown option too.
  await page.evaluate(() => { location.hash = '#v9.abc'; });
  await page.waitForSelector('#link-error', { timeout: 5000 });
  assert.match(await page.textContent('#link-error'), /newer Barrier Lab/);
  // A link opened in a running page keeps the running job, and says so.
  assert.match(await page.textContent('#link-error'), /The running job continues/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Copy link reproduces the run: same time, same fingerprint', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(site.url);
  await page.waitForSelector('#barrierlab', { timeout: 15000 });
  await page.selectOption('#speed', '10');
  await page.waitForFunction(() => /t = ([5-9]|\d\d)/.test(document.querySelector('#sim-time').textContent),
    null, { timeout: 30000 });
  await page.click('#play');
  await waitPaused(page);
  const [time, print] = [await simTime(page), await fingerprint(page)];
  await page.click('#copy-link');
  await page.waitForSelector('#share-url');
  await page.waitForFunction(() => document.querySelector('#share-status').textContent.length > 0);
  const url = await page.inputValue('#share-url');
  assert.equal(url, page.url(), 'the link is written to the address bar');
  assert.match(url, /#v1\.[A-Za-z0-9_-]+&until=\d+(us|ms|s)/);
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(clip, url);
  console.log(`seed demo link: ${url.length - site.url.length + 1} characters after the origin (${url.split('#')[1].length + 1} in the fragment)`);
  await screenshot(page, 'link-copied');

  const other = await context.newPage();
  other.on('pageerror', (e) => errors.push(String(e)));
  await other.goto(url);
  await other.waitForSelector('#barrierlab', { timeout: 15000 });
  await waitPaused(other);
  assert.equal(await simTime(other), time);
  assert.equal(await fingerprint(other), print);
  assert.deepEqual(errors, []);
  await context.close();
});

test('embed mode: graph, play controls and timeline only, with a link to the full playground', async () => {
  const frag = cliLink('--preset', 'seed-backpressure', '--until', '12s', '--embed');
  const { page, errors } = await openPage(browser, site.url + frag, { width: 800, height: 480 });
  await page.waitForSelector('#barrierlab.embed', { timeout: 15000 });
  await waitPaused(page);
  for (const id of ['job-graph', 'timeline', 'play', 'step', 'speed', 'open-full']) {
    assert.equal(await page.locator(`#${id}`).count(), 1, `#${id}`);
  }
  for (const id of ['editor-panel', 'config-panel', 'inspector-panel', 'preset', 'seed', 'reset',
    'copy-link', 'trigger-checkpoint', 'event-log']) {
    assert.equal(await page.locator(`#${id}`).count(), 0, `#${id} is hidden in embed mode`);
  }
  const href = await page.getAttribute('#open-full', 'href');
  assert.ok(href.startsWith(site.url + '#v1.'), href);
  assert.ok(!/embed/.test(href), href);
  assert.match(href, /until=12s/);
  await screenshot(page, 'embed-800x480');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the Embed button shows an iframe snippet', async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#barrierlab', { timeout: 15000 });
  await page.click('#embed-button');
  const snippet = await page.inputValue('#embed-snippet');
  assert.match(snippet, /^<iframe src="http[^"]+#v1\.[^"]+&embed=1" width="800" height="480"/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the embed example page loads both embeds without console errors', async () => {
  const { page, errors } = await openPage(browser, site.url + 'embed-example.html', { width: 1000, height: 1400 });
  for (const id of ['embed-backpressure', 'embed-unaligned']) {
    const frame = await (await page.waitForSelector(`#${id}`)).contentFrame();
    await frame.waitForSelector('#barrierlab.embed', { timeout: 20000 });
    await frame.waitForFunction(() => /paused/.test(document.querySelector('#job-status').textContent),
      null, { timeout: 30000 });
    assert.equal(await frame.locator('#open-full').count(), 1);
  }
  await screenshot(page, 'embed-example');
  assert.deepEqual(errors, []);
  await page.close();
});
