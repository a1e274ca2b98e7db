// Checkpoint storage over IndexedDB: store, list after reload, restore, retention, cancel,
// export/import, and the failure cases (damaged records, no IndexedDB, quota, an aborted write,
// a blocked upgrade from schema version 1).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serveDist, launch, pause, play } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const DB = 'barrierlab-checkpoints';
const CHECKPOINTS = '#storage-panel li.dir.checkpoint';

async function openApp(ctx) {
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(site.url, { waitUntil: 'load' });
  await page.waitForSelector('#sim-time', { timeout: 15000 });
  return { page, errors };
}
const newContext = () => browser.newContext({ viewport: { width: 1280, height: 900 } });
async function configure(page, yaml) {
  await page.fill('#yaml', yaml);
  await page.click('#yaml-apply');
}
async function fast(page) {
  await page.selectOption('#speed', 'max');
  await play(page);
}
const countAtLeast = (page, selector, n, timeout = 60000) => page.waitForFunction(
  ([s, n]) => document.querySelectorAll(s).length >= n, [selector, n], { timeout });
const keys = (page, selector = CHECKPOINTS) =>
  page.$$eval(selector, (els) => els.map((e) => e.dataset.key));
const completed = async (page) => Number(await page.textContent('#count-completed'));
/** The configured job's checkpoints: on a slow machine the page's first job (the demo preset)
 * may complete its checkpoint 1, 0.6 s after it starts, before the paste replaces it. */
const jobKeys = async (page) => (await keys(page)).filter((k) => !k.startsWith('seed-demo/'));
const storageReady = (page) => page.waitForSelector('#storage-panel .storage-tree, #storage-empty', { timeout: 15000 });

/** Both object stores as plain data, read with the raw IndexedDB API in the page. */
const rawRecords = (page) => page.evaluate((name) => new Promise((ok, fail) => {
  const r = indexedDB.open(name);
  r.onerror = () => fail(String(r.error));
  r.onsuccess = () => {
    const db = r.result; const out = {};
    const tx = db.transaction(['checkpoints', 'state']);
    tx.objectStore('checkpoints').getAll().onsuccess = (e) => { out.meta = e.target.result; };
    tx.objectStore('state').getAll().onsuccess = (e) => {
      out.state = e.target.result.map((s) => ({ key: s.key, bytes: Array.from(s.bytes) }));
    };
    tx.oncomplete = () => { db.close(); ok(out); };
  };
}), DB);

/** Rewrites one record of `store` with `edit` (a function body over `rec`), raw. */
const editRecord = (page, store, key, edit) => page.evaluate(([name, store, key, edit]) => new Promise((ok) => {
  const r = indexedDB.open(name);
  r.onsuccess = () => {
    const db = r.result; const tx = db.transaction(store, 'readwrite'); const s = tx.objectStore(store);
    s.get(key).onsuccess = (e) => { const rec = e.target.result; new Function('rec', edit)(rec); s.put(rec); };
    tx.oncomplete = () => { db.close(); ok(); };
  };
}), [DB, store, key, edit]);

test('checkpoints are stored, listed after a reload, restored, and retention holds', async () => {
  const ctx = await newContext();
  const { page, errors } = await openApp(ctx);
  await storageReady(page);
  await configure(page, 'execution.checkpointing.num-retained: 2\nexecution.checkpointing.interval: 2s');
  await fast(page);
  await page.waitForFunction(() => Number(document.querySelector('#count-completed').textContent) >= 1, null, { timeout: 60000 });
  await page.click('#trigger-savepoint');
  await page.waitForFunction(() => Number(document.querySelector('#count-completed').textContent) >= 6, null, { timeout: 60000 });
  // The savepoint has completed: at max speed the job may be past checkpoint 6 when it is asked
  // for (the worker plays seed-demo at thousands of times real time).
  await page.waitForFunction(() => [...document.querySelectorAll('#checkpoints th')].some((th) =>
    th.textContent === 'Latest Savepoint' && /^ID \d+/.test(th.nextElementSibling?.textContent ?? '')), null, { timeout: 60000 });
  await pause(page);
  await countAtLeast(page, CHECKPOINTS, 2);
  await page.waitForTimeout(300);
  // num-retained 2: the job's directory holds its two newest checkpoints, no more.
  const before = await jobKeys(page);
  assert.equal(before.length, 2, `retention: ${before}`);
  const ids = before.map((k) => Number(k.split('chk-')[1]));
  assert.ok(ids[1] >= 5 && ids[0] < ids[1], `the newest two, got ${ids}`);
  // The savepoint is the user's: retention leaves it, in its own self-contained directory.
  await countAtLeast(page, '#storage-panel li.dir.savepoint', 1);
  const [savepoint] = await keys(page, '#storage-panel li.dir.savepoint');
  assert.match(savepoint, /\/savepoint-[0-9a-f]{6}-[0-9a-f]{12}$/);
  assert.match(await page.textContent('#storage-panel'), /_metadata/);
  assert.match(await page.textContent('#storage-panel'), /shared\//);
  assert.match(await page.textContent('#storage-panel'), /taskowned\//);
  await page.locator('#storage-panel').scrollIntoViewIfNeeded();
  await page.locator('#storage-panel').screenshot({ path: 'tests/e2e/screenshots/storage-browser.png' });

  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#sim-time');
  await pause(page);
  await countAtLeast(page, CHECKPOINTS, 2, 15000);
  assert.deepEqual((await jobKeys(page)).slice(0, 2), before, 'the stored checkpoints are listed after a reload');
  // Restore from the older one: the job of that checkpoint runs again, restored.
  await page.click(`li.dir[data-key="${before[0]}"] button.storage-restore`);
  await page.waitForSelector('#latest-restore-id', { timeout: 15000 });
  assert.equal(await page.textContent('#latest-restore-id'), `ID ${ids[0]}`);
  assert.equal(await page.textContent('#count-restored'), '1');
  assert.match(await page.textContent('#storage-message'), /Restored the job from/);
  // Checkpoint ids continue after the restored one, in the new submission's directory.
  await fast(page);
  await page.waitForFunction(() => Number(document.querySelector('#count-completed').textContent) >= 1, null, { timeout: 30000 });
  await pause(page);
  await page.waitForTimeout(300);
  const after = await jobKeys(page);
  assert.ok(after.includes(before[0]) && after.includes(before[1]), 'earlier checkpoints stay');
  const fresh = after.filter((k) => !before.includes(k));
  assert.ok(fresh.length >= 1 && fresh.every((k) => Number(k.split('chk-')[1]) > ids[0]), `new: ${fresh}`);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('cancel: RETAIN_ON_CANCELLATION keeps the checkpoints, the default discards them', async () => {
  for (const [retention, kept] of [['RETAIN_ON_CANCELLATION', true], ['NO_EXTERNALIZED_CHECKPOINTS', false]]) {
    const ctx = await newContext();
    const { page, errors } = await openApp(ctx);
    await storageReady(page);
    await configure(page, `execution.checkpointing.externalized-checkpoint-retention: ${retention}\nexecution.checkpointing.interval: 2s`);
    await fast(page);
    await page.waitForFunction(() => Number(document.querySelector('#count-completed').textContent) >= 3,
      null, { timeout: 60000 });
    // The configured job's directory: its newest checkpoint is past the page's first job's (which
    // may have stored its checkpoint 1 before the paste replaced it).
    const newest = async () => (await keys(page))
      .sort((a, b) => Number(b.split('chk-')[1]) - Number(a.split('chk-')[1]))[0] ?? '';
    await page.waitForFunction((sel) => [...document.querySelectorAll(sel)]
      .some((e) => Number(e.dataset.key.split('chk-')[1]) >= 3), CHECKPOINTS, { timeout: 15000 });
    const job = (await newest()).split('/chk-')[0];
    await page.click('#cancel-job');
    await page.waitForFunction(() => document.querySelector('#job-status').textContent.includes('CANCELED'));
    if (kept) {
      await page.waitForTimeout(500);
      assert.ok(await page.$$eval(CHECKPOINTS, (els, job) =>
        els.filter((e) => e.dataset.key.startsWith(`${job}/`)).length, job) >= 1, retention);
    } else {
      // The discard is an IndexedDB transaction: wait for it (a loaded machine is slow), but
      // not forever.
      await page.waitForFunction(([sel, job]) => ![...document.querySelectorAll(sel)]
        .some((e) => e.dataset.key.startsWith(`${job}/`)), [CHECKPOINTS, job], { timeout: 15000 }).catch(() => {});
      const left = await keys(page);
      assert.ok(!left.some((k) => k.startsWith(`${job}/`)), `${retention}: ${left}`);
      assert.match(await page.textContent('#storage-message'), /discarded/);
    }
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});

test('export a checkpoint, delete it, import it again; a foreign file is refused', async () => {
  const ctx = await newContext();
  const { page, errors } = await openApp(ctx);
  await storageReady(page);
  await fast(page);
  await countAtLeast(page, CHECKPOINTS, 1);
  await pause(page);
  await page.waitForTimeout(300);
  const [key] = await keys(page);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click(`li.dir[data-key="${key}"] button.storage-export`),
  ]);
  const path = await download.path();
  const text = await readFile(path, 'utf8');
  assert.equal(JSON.parse(text).format_version, 1);
  await page.click(`li.dir[data-key="${key}"] button.storage-delete`);
  await page.waitForFunction((k) => !document.querySelector(`li.dir[data-key="${k}"]`), key);
  await page.setInputFiles('#storage-import', path);
  await page.waitForSelector(`li.dir[data-key="${key}"]`, { timeout: 10000 });
  assert.match(await page.textContent('#storage-message'), /Imported/);
  await page.setInputFiles('#storage-import', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": 1}') });
  await page.waitForFunction(() => /refused/.test(document.querySelector('#storage-message')?.textContent ?? ''));
  assert.match(await page.textContent('#storage-message'), /Import of notes.json refused: not a stored checkpoint/);
  // A checkpoint of the job at another max parallelism does not fit it: refused, with the reason.
  const other = JSON.parse(text);
  for (const v of other.metadata.vertices) v.max_parallelism = 4096;
  await page.setInputFiles('#storage-import', { name: 'other.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(other)) });
  await page.waitForFunction(() => /other.json refused/.test(document.querySelector('#storage-message')?.textContent ?? ''));
  assert.match(await page.textContent('#storage-message'), /max parallelism 4096.*key groups cannot be redistributed/);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a damaged record is listed with its reason; the others stay usable', async () => {
  const ctx = await newContext();
  const { page, errors } = await openApp(ctx);
  await storageReady(page);
  await configure(page, 'execution.checkpointing.num-retained: 3\nexecution.checkpointing.interval: 2s');
  await fast(page);
  await countAtLeast(page, CHECKPOINTS, 3);
  await pause(page);
  await page.waitForTimeout(300);
  const [a, b, c] = await keys(page);
  await editRecord(page, 'checkpoints', a, 'rec.metadata = rec.metadata.slice(0, 120);');
  await editRecord(page, 'state', b, 'rec.bytes = rec.bytes.slice(0, 10);');
  await page.reload({ waitUntil: 'load' });
  await pause(page);
  await page.waitForSelector('li.dir.damaged', { timeout: 15000 });
  const damaged = page.locator('li.dir.damaged');
  assert.equal(await damaged.count(), 2);
  assert.match(await page.textContent(`li.dir[data-key="${a}"]`), /damaged: _metadata is damaged: EOF while parsing/);
  assert.match(await page.textContent(`li.dir[data-key="${b}"]`), /damaged: state files are damaged: checksum/);
  assert.equal(await page.locator(`li.dir[data-key="${a}"] button.storage-restore`).count(), 0);
  await page.click(`li.dir[data-key="${c}"] button.storage-restore`);
  await page.waitForSelector('#latest-restore-id');
  assert.equal(await page.textContent('#latest-restore-id'), `ID ${c.split('chk-')[1]}`);
  await page.locator('#storage-panel').screenshot({ path: 'tests/e2e/screenshots/storage-damaged.png' });
  await page.click(`li.dir[data-key="${a}"] button.storage-delete`);
  await page.waitForFunction((k) => !document.querySelector(`li.dir[data-key="${k}"]`), a);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('without IndexedDB the playground runs and says storage is off', async () => {
  const ctx = await newContext();
  await ctx.addInitScript(() => {
    Object.defineProperty(window, 'indexedDB', { value: undefined, configurable: true });
  });
  const { page, errors } = await openApp(ctx);
  await page.waitForSelector('#storage-status');
  assert.match(await page.textContent('#storage-status'), /no IndexedDB.*Everything else works/);
  const t0 = await page.textContent('#sim-time');
  await page.waitForFunction((t) => document.querySelector('#sim-time').textContent !== t, t0);
  await fast(page);
  await page.waitForFunction(() => Number(document.querySelector('#count-completed').textContent) >= 1, null, { timeout: 30000 });
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('quota exceeded and an aborted write leave the stored checkpoint intact and restorable', async () => {
  const ctx = await newContext();
  await ctx.addInitScript(() => {
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (...args) {
      if (window.__quota) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      const request = put.apply(this, args);
      // A write cut off after the state files, before _metadata (as a reload would).
      if (window.__abortNext && this.name === 'state') { window.__abortNext = false; this.transaction.abort(); }
      return request;
    };
  });
  const { page, errors } = await openApp(ctx);
  await storageReady(page);
  await configure(page, 'execution.checkpointing.interval: 2s');
  await fast(page);
  await countAtLeast(page, CHECKPOINTS, 1);
  await page.evaluate(() => { window.__quota = true; });
  await page.waitForFunction(() => /quota exceeded/i.test(document.querySelector('#storage-message')?.textContent ?? ''), null, { timeout: 30000 });
  const intact = await jobKeys(page);
  assert.equal(intact.length, 1);
  await page.evaluate(() => { window.__quota = false; window.__abortNext = true; });
  await page.waitForFunction(() => /AbortError|aborted/.test(document.querySelector('#storage-message')?.textContent ?? ''), null, { timeout: 30000 });
  await pause(page);
  await page.waitForTimeout(300);
  const raw = await rawRecords(page);
  const metaKeys = raw.meta.map((m) => m.key).sort();
  assert.deepEqual(raw.state.map((s) => s.key).sort(), metaKeys, 'no state files without _metadata');
  const listed = await jobKeys(page);
  assert.ok(listed.length >= 1);
  const last = listed[listed.length - 1];
  await page.click(`li.dir[data-key="${last}"] button.storage-restore`);
  await page.waitForSelector('#latest-restore-id');
  assert.equal(await page.textContent('#latest-restore-id'), `ID ${last.split('chk-')[1]}`);
  assert.deepEqual(errors.filter((e) => !/QuotaExceeded|AbortError/.test(e)), []);
  await ctx.close();
});

test('schema 1 database held open by another tab: blocked message, then upgraded and listed', async () => {
  // A real checkpoint's records, to write in the schema-1 layout (state inline).
  const source = await newContext();
  const { page: first } = await openApp(source);
  await storageReady(first);
  await fast(first);
  await countAtLeast(first, CHECKPOINTS, 1);
  await pause(first);
  await first.waitForTimeout(300);
  const raw = await rawRecords(first);
  await source.close();
  const meta = raw.meta[0];
  const state = raw.state.find((s) => s.key === meta.key);

  const ctx = await newContext();
  const old = await ctx.newPage();
  await old.goto(site.url + 'no-such-page');
  await old.evaluate(([name, meta, bytes]) => new Promise((ok) => {
    const r = indexedDB.open(name, 1);
    r.onupgradeneeded = () => r.result.createObjectStore('checkpoints', { keyPath: 'key' });
    r.onsuccess = () => {
      window.__db = r.result; // held open, and not closed on versionchange: the upgrade blocks
      const tx = r.result.transaction('checkpoints', 'readwrite');
      tx.objectStore('checkpoints').put({ ...meta, state: new Uint8Array(bytes) });
      tx.oncomplete = () => ok();
    };
  }), [DB, meta, state.bytes]);
  const { page, errors } = await openApp(ctx);
  await page.waitForSelector('#storage-status');
  assert.match(await page.textContent('#storage-status'), /another tab has the checkpoint database open at an older version/);
  await old.evaluate(() => window.__db.close());
  await page.waitForSelector(`li.dir[data-key="${meta.key}"]`, { timeout: 15000 });
  assert.equal(await page.locator('#storage-status').count(), 0);
  await pause(page);
  await page.click(`li.dir[data-key="${meta.key}"] button.storage-restore`);
  await page.waitForSelector('#latest-restore-id');
  assert.equal(await page.textContent('#latest-restore-id'), `ID ${meta.id}`);
  const version = await page.evaluate((name) => new Promise((ok) => {
    const r = indexedDB.open(name); r.onsuccess = () => { ok(r.result.version); r.result.close(); };
  }), DB);
  assert.equal(version, 2);
  assert.deepEqual(errors, []);
  await ctx.close();
});
