// An edited scenario keeps its identity: its own name and description, editable, carried in the
// link, and the page's work survives a reload (IndexedDB).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, screenshot, pause, play } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const subtask = (v, s) => `#job-graph .vertex[data-vertex="${v}"] .subtask[data-subtask="${s}"]`;
const fingerprint = async (page) => (await page.textContent('#fingerprint')).replace('fingerprint ', '');

async function openIn(context, url) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#sim-time', { timeout: 15000 });
  return { page, errors };
}

async function settled(page) {
  await page.waitForFunction(() => !document.querySelector('#rerun-progress'), null, { timeout: 30000 });
}

test('an edited preset gets its own name, carried by its link and kept across a reload', async () => {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const { page, errors } = await openIn(context, site.url);
  await page.selectOption('#preset', 'seed-backpressure');
  assert.equal(await page.locator('#scenario-name').count(), 0, 'a preset shows its description only');
  await page.fill('#yaml', 'execution.checkpointing.unaligned.enabled: true\n');
  await page.click('#yaml-apply');
  await page.waitForSelector('#scenario-name');
  assert.equal(await page.inputValue('#scenario-name'), 'custom: seed-backpressure + unaligned');
  await page.selectOption('#speed', 'max');
  await play(page);
  await page.waitForFunction(() => Number(document.querySelector('#count-completed')?.textContent) >= 1, null, { timeout: 20000 });
  await pause(page);
  await page.click(subtask(1, 1));
  await page.waitForSelector('#fault-menu');
  await page.click('#fault-kill');
  await settled(page);
  assert.equal(await page.inputValue('#scenario-name'), 'custom: seed-backpressure + unaligned + 1 fault');
  assert.match(await page.inputValue('#scenario-description'), /^seed-demo with 5 ms per record.*Changed here: unaligned, 1 fault\.$/);
  // The preset list says what runs, not the preset it started from.
  assert.equal((await page.textContent('#preset option:checked')).trim(), 'custom: seed-backpressure + unaligned + 1 fault');
  await screenshot(page, 'identity-edited');

  // A name of one's own sticks.
  await page.fill('#scenario-name', 'backpressure, unaligned, one kill');
  await page.fill('#scenario-description', 'What a kill does to an unaligned checkpoint.');
  await page.press('#scenario-description', 'Tab');
  await page.waitForFunction(() => document.querySelector('#scenario-name').value === 'backpressure, unaligned, one kill');
  const print = await fingerprint(page);

  await page.click('#copy-link');
  await page.waitForSelector('#share-url');
  const url = await page.inputValue('#share-url');
  const other = await openIn(await browser.newContext(), url);
  assert.equal(await other.page.inputValue('#scenario-name'), 'backpressure, unaligned, one kill');
  assert.equal(await other.page.inputValue('#scenario-description'), 'What a kill does to an unaligned checkpoint.');
  assert.doesNotMatch(await other.page.textContent('.controls-wrap'), /aligned checkpoints every 5 s/);
  await screenshot(other.page, 'identity-link-opened');

  // Same browser, no link: the work is reopened from IndexedDB.
  const again = await openIn(context, site.url);
  await again.page.waitForSelector('#scenario-name', { timeout: 10000 });
  assert.equal(await again.page.inputValue('#scenario-name'), 'backpressure, unaligned, one kill');
  assert.match(await again.page.textContent('body'), /Reopened the scenario you were working on/);
  // Choosing a preset starts fresh, and a reload then stays fresh.
  await again.page.selectOption('#preset', 'seed-demo');
  assert.equal(await again.page.locator('#scenario-name').count(), 0);
  await again.page.waitForTimeout(300);
  const fresh = await openIn(context, site.url);
  await fresh.page.waitForTimeout(1000);
  assert.equal(await fresh.page.locator('#scenario-name').count(), 0);
  assert.equal(await fresh.page.inputValue('#preset'), 'seed-demo');
  assert.ok(print.length === 16);
  for (const e of [errors, other.errors, again.errors, fresh.errors]) assert.deepEqual(e, []);
  await context.close();
});
