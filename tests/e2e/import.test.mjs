// Opening a real Flink job's bundle (issue #15): through the file input, its History, per-subtask
// details and "Why was checkpoint N slow?"; stored across a reload, deleted; bad input (cut off,
// Flink 1.x, markup in names, no checkpoints, 10 000 checkpoints) said and nothing lost; and no
// share link carries any of it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDist, launch, screenshot, panelShot } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(here, '..', 'fixtures', 'collect');
const RECORDED = join(FIXTURES, 'seed-backpressure.json');
const EMPTY = join(FIXTURES, 'no-checkpoints-yet.json');
const JOB_ID = 'b7066dc541f3d380f9aba4dce1fb430b';
const KEYED = 'count-per-key -> checkpoint-aware-map -> discard-sink: Writer';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

async function openApp(ctx) {
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(site.url, { waitUntil: 'load' });
  await page.waitForSelector('#sim-time', { timeout: 15000 });
  return { page, errors };
}

async function shareLink(page) {
  await page.click('#copy-link');
  await page.waitForSelector('#share-url');
  return page.inputValue('#share-url');
}

const storedRows = (page) => page.locator('#import-stored .import-stored-row');

async function paste(page, text) {
  if (!(await page.locator('#import-paste').isVisible())) await page.click('.import-paste summary');
  await page.fill('#import-paste', text);
  await page.click('#import-paste-open');
}

test('a collected job opens, is explained, stays stored, and never enters a share link', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const { page, errors } = await openApp(ctx);
  const before = await shareLink(page);

  await page.click('#import-open');
  await page.waitForFunction(() => location.hash === '#import');
  await page.waitForSelector('#import-page');
  assert.equal(await page.locator('#copy-link').count(), 0, 'the import page offers no share link');
  await page.waitForSelector('#import-stored .empty');
  await screenshot(page, 'import-empty');

  await page.setInputFiles('#import-file', RECORDED);
  await page.waitForSelector('#import-history');
  // History: Flink's six rows, newest first.
  const ids = await page.$$eval('#import-history tbody tr', (rows) => rows.map((r) => Number(r.dataset.id)));
  assert.deepEqual(ids, [6, 5, 4, 3, 2, 1]);
  assert.equal(await page.textContent('#import-history-count'), 'Showing 6 of 6 checkpoints.');
  assert.match(await page.textContent('#import-history tr[data-id="5"]'), /COMPLETED.*4\/4.*2\.85 s.*5\.5 KB/);
  // The job graph with the bundle's backpressure.
  assert.equal(await page.locator('#import-graph .import-vertex').count(), 2);
  assert.match(await page.textContent('#import-graph .import-vertex.bp-high'), /Source: datagen.*Parallelism: 2.*Backpressure: HIGH/);
  assert.match(await page.textContent('#import-overview'), /Completed\s*5/);
  assert.match(await page.textContent('#import-config'), /Interval\s*5\.00 s/);
  assert.match(await page.textContent('#import-summary'), /End to End Duration\s*959 ms/);

  // The newest completed checkpoint is selected: its subtasks, and why it was slow.
  assert.equal(await page.getAttribute('#import-subtasks', 'data-checkpoint'), '5');
  const subtasks = await page.$$eval('#import-subtasks tbody tr', (rows) =>
    rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.equal(subtasks.length, 4);
  const slow = subtasks.find((c) => c[0] === KEYED && c[1] === '#1');
  assert.ok(slow, JSON.stringify(subtasks));
  assert.equal(slow[10], '2.85 s', 'start delay');
  assert.equal(await page.textContent('#import-why-critical'), `${KEYED} #1`);
  assert.equal(await page.textContent('#import-why-dominant'), 'start delay');
  const why = await page.textContent('#import-why');
  assert.match(why, /Checkpoint 5 took 2\.85 s end to end, 56 % of the 5 s interval/);
  assert.match(why, /Upstream is back-pressured: Source: datagen \(backpressureLevel high/);
  assert.match(await page.textContent('#import-why-summary'), /start delay dominated 2 of 2 checkpoints/);
  // The playground's timeline draws the bundle's phases.
  assert.ok(await page.locator('#import-timeline-panel svg').count() > 0);
  await screenshot(page, 'import-job');
  await panelShot(page, '#import-why-panel', 'import-why');
  await panelShot(page, '#import-timeline-panel', 'import-timeline');

  // Another checkpoint from the history.
  await page.click('#import-history tr[data-id="4"] button');
  await page.waitForFunction(() => document.querySelector('#import-subtasks')?.dataset.checkpoint === '4');
  assert.match(await page.textContent('#import-why'), /Checkpoint 4 took 2\.73 s/);
  await panelShot(page, '#import-details-panel', 'import-subtasks');

  // Stored: after a reload the fragment reopens it, and the list has it.
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, new RegExp(`^#job=${JOB_ID}-\\d+$`));
  await page.waitForFunction(() => document.querySelectorAll('#import-stored .import-stored-row').length === 1);
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#import-history', { timeout: 15000 });
  assert.equal(await page.textContent('#import-job-name'), 'seed-backpressure');
  await page.waitForFunction(() => document.querySelectorAll('#import-stored .import-stored-row').length === 1);

  // A cut-off bundle pasted: said, and the open job and the stored one stay.
  const text = await readFile(RECORDED, 'utf8');
  await paste(page, text.slice(0, Math.floor(text.length / 2)));
  await page.waitForSelector('#import-error');
  assert.match(await page.textContent('#import-error'), /the JSON stops early \(at line \d+, column \d+\): the bundle was cut off/);
  assert.equal(await page.textContent('#import-job-name'), 'seed-backpressure');
  assert.equal(await storedRows(page).count(), 1);
  assert.ok((await page.inputValue('#import-paste')).length > 1000, 'the pasted text is kept to fix');
  await panelShot(page, '#import-open-panel', 'import-error');

  // A Flink 1.x bundle, and JSON that is no bundle.
  await paste(page, text.replace('"flink_version": "2.3.0"', '"flink_version": "1.18.1"'));
  await page.waitForFunction(() => /Flink 1\.18\.1: Barrier Lab reads Flink 2\.x/.test(document.querySelector('#import-error')?.textContent));
  await paste(page, '{"jobs": []}');
  await page.waitForFunction(() => /not a Barrier Lab bundle/.test(document.querySelector('#import-error')?.textContent));

  // Delete: gone from the list and the page, and after a reload.
  await page.click(`#import-stored .import-stored-row[data-key^="${JOB_ID}"] .import-stored-delete`);
  await page.waitForSelector('#import-stored .empty');
  assert.equal(await page.locator('#import-job').count(), 0);
  await page.waitForFunction(() => location.hash === '#import');
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#import-stored .empty', { timeout: 15000 });

  // Back to the simulation: its share link is what it was before any import.
  await page.click('#import-back');
  await page.waitForSelector('#sim-time');
  const afterLink = await shareLink(page);
  assert.equal(afterLink.split('#')[1].split('&')[0], before.split('#')[1].split('&')[0]);
  for (const leak of [JOB_ID, 'import', 'job=', 'barrierlab_bundle']) {
    assert.ok(!afterLink.includes(leak), `the share link carries ${leak}: ${afterLink}`);
  }
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('no checkpoints yet, markup in names, and 10 000 checkpoints', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${site.url}#import`, { waitUntil: 'load' });
  await page.waitForSelector('#import-page', { timeout: 15000 });

  // A job collected right after submission, dropped on the page: its graph, and "no checkpoints
  // yet".
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'no-checkpoints-yet.json', { type: 'application/json' }));
    document.querySelector('#import-stored').dispatchEvent(
      new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, await readFile(EMPTY, 'utf8'));
  await page.waitForSelector('#import-no-checkpoints');
  assert.equal(await page.locator('#import-graph .import-vertex').count(), 2);
  assert.match(await page.textContent('#import-overview-none'), /^No checkpoints yet/);
  assert.equal(await page.locator('#import-subtasks').count(), 0);
  assert.match(await page.textContent('#import-notes summary'), /notes? from reading the bundle/);
  await screenshot(page, 'import-no-checkpoints');

  // Markup in a vertex name is text, not markup.
  const recorded = JSON.parse(await readFile(RECORDED, 'utf8'));
  const marked = structuredClone(recorded);
  const evil = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b>bold</b>';
  marked.job.vertices[0].name = evil;
  marked.barrierlab_bundle.collected_at_ms += 1;
  await paste(page, JSON.stringify(marked));
  await page.waitForFunction(() => document.querySelector('#import-graph')?.textContent.includes('<script>'));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('#import-graph b, #import-graph img, #import-page script').count(), 0);
  assert.ok((await page.textContent('#import-graph .import-vertex-name')).includes(evil));

  // 10 000 checkpoints, each with its details and per-subtask details (55 MB, as docs/collect.md
  // measures the reader on): opens in seconds, a page of history rows at a time.
  const big = structuredClone(recorded);
  const n = 10000;
  const entry = recorded.checkpoints.history.find((c) => c.id === 5);
  big.checkpoints.history = Array.from({ length: n }, (_, i) => ({ ...entry, id: n - i }));
  big.details = {};
  big.subtasks = {};
  for (let id = 1; id <= n; id++) {
    big.details[id] = { ...recorded.details['5'], id };
    big.subtasks[id] = Object.fromEntries(Object.entries(recorded.subtasks['5']).map(([v, s]) => [v, { ...s, id }]));
  }
  big.barrierlab_bundle.collected_at_ms += 2;
  // Playwright passes buffers only up to 50 MB: through a file.
  const bigFile = join(tmpdir(), `barrierlab-import-${process.pid}.json`);
  await writeFile(bigFile, JSON.stringify(big));
  const started = Date.now();
  await page.setInputFiles('#import-file', bigFile);
  await page.waitForFunction(() => document.querySelector('#import-history-count')?.textContent.includes('of 10000'), null, { timeout: 30000 });
  await page.waitForSelector('#import-why');
  const took = Date.now() - started;
  await rm(bigFile);
  assert.equal(await page.locator('#import-history tbody tr').count(), 100);
  await page.click('#import-history-more');
  await page.waitForFunction(() => document.querySelectorAll('#import-history tbody tr').length === 200);
  assert.equal(await page.textContent('#import-history-count'), 'Showing 200 of 10000 checkpoints. Show 100 more');
  console.log(`10 000 checkpoints opened in ${took} ms`);
  assert.ok(took < 15000, `10 000 checkpoints took ${took} ms`);
  // A row far down the history, after "Show more": its subtasks and why at once.
  await page.click('#import-history tr[data-id="9801"] button');
  await page.waitForFunction(() => document.querySelector('#import-subtasks')?.dataset.checkpoint === '9801');
  assert.match(await page.textContent('#import-why'), /Checkpoint 9801 took 2\.85 s/);
  await page.waitForFunction(() => document.querySelectorAll('#import-stored .import-stored-row').length === 3, null, { timeout: 30000 });
  await panelShot(page, '#import-history-panel', 'import-history-10000');
  assert.deepEqual(errors, []);
  await ctx.close();
});

// The same runs with and without the worker: the page runs them itself when no worker starts,
// and the figures are the same (one engine, deterministic in either thread).
test('simulate this job without its worker script: the page runs it, to the same figures', async () => {
  const figures = async (blockWorker) => {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    if (blockWorker) await page.route('**/worker-loader.js', (r) => r.abort());
    await page.goto(`${site.url}#import`, { waitUntil: 'load' });
    await page.waitForSelector('#import-page', { timeout: 15000 });
    await page.setInputFiles('#import-file', RECORDED);
    await page.click('#import-simulate-run');
    await page.waitForFunction(() => document.querySelector('#import-simulate-status')?.dataset.done === 'true', null, { timeout: 90000 });
    const runner = await page.getAttribute('#import-simulate-status', 'data-runner');
    const rows = await page.$$eval('#import-simulate-table tbody tr', (trs) => trs.map((tr) => tr.textContent));
    assert.deepEqual(errors, []);
    await ctx.close();
    return { runner, rows };
  };
  const inWorker = await figures(false);
  const onPage = await figures(true);
  assert.equal(inWorker.runner, 'worker');
  assert.equal(onPage.runner, 'page');
  assert.ok(inWorker.rows.length > 5, JSON.stringify(inWorker.rows));
  assert.deepEqual(onPage.rows, inWorker.rows);
});

// "Simulate this job": the derived scenario run beside the real job, then a what-if beside that
// run, in the page's Web Worker (the page stays live), and the scenario opens in the playground.
test('simulate this job: real against simulated, and a what-if', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${site.url}#import`, { waitUntil: 'load' });
  await page.waitForSelector('#import-page', { timeout: 15000 });
  await page.setInputFiles('#import-file', RECORDED);
  await page.waitForSelector('#import-simulate-run');
  // The derive notes, folded; the run takes as long as the real job's 7 checkpoints at 5 s.
  assert.match(await page.textContent('#import-simulate-notes summary'), /^\d+ assumptions? in the derived scenario$/);
  assert.match(await page.textContent('#import-simulate'), /for 30 s of simulated time/);

  await page.click('#import-simulate-run');
  await page.waitForSelector('#import-simulate-table', { timeout: 60000 });
  const table = async () => page.$$eval('#import-simulate-table tbody tr', (rows) =>
    Object.fromEntries(rows.map((r) => [r.cells[0].textContent, [...r.cells].slice(1).map((c) => c.textContent)])));
  let t = await table();
  // Real: completed checkpoints 1..5 took 959 ms to 2.85 s, median 2.73 s; Source: datagen high.
  assert.equal(t['End to End Duration (median)'][0], '2.73 s');
  assert.match(t['End to End Duration (median)'][1], /^\d[\d.]* m?s(×[\d.]+|same)$/);
  assert.equal(t['Completed checkpoints'][0], '5');
  assert.match(t['Completed checkpoints'][1], /^\d+([+-]\d+|same)$/);
  assert.equal(t['Back-pressured (high)'][0], 'Source: datagen');
  assert.match(await page.textContent('#import-simulate-headline'),
    /^End to End Duration \(median\): simulated \d[\d.]* m?s vs real 2\.73 s \((×[\d.]+|same)\)$/);

  // One what-if: its column appears, running, then with numbers against the simulation.
  await page.click('#sim-whatif-unaligned');
  await page.waitForSelector('#import-simulate-table th[data-whatif="unaligned"]');
  assert.ok(await page.isDisabled('#sim-whatif-unaligned'));
  await page.waitForFunction(() => document.querySelector('#import-simulate-status')?.dataset.done === 'true', null, { timeout: 60000 });
  // The runs went to the page's Web Worker (crates/app/src/worker/), the what-if too.
  assert.equal(await page.getAttribute('#import-simulate-status', 'data-runner'), 'worker');
  t = await table();
  assert.match(await page.textContent('#import-simulate-table th[data-whatif="unaligned"]'), /Unaligned checkpoints\s*vs simulated/);
  assert.match(t['End to End Duration (median)'][2], /^\d[\d.]* m?s(×[\d.]+|same)$/);
  // Unaligned checkpoints persist in-flight data; the aligned simulation persists none.
  assert.equal(t['Persisted in-flight data (median)'][1].startsWith('0 B'), true, JSON.stringify(t));
  assert.match(t['Persisted in-flight data (median)'][2], /^\d[\d.]* [KM]?B(×[\d.]+|was 0)$/);
  await panelShot(page, '#import-simulate-panel', 'import-simulate');

  // Open in playground: the derived scenario, in the editor's job.
  const href = await page.getAttribute('#import-simulate-open', 'href');
  assert.match(href, /^#v1\./);
  await page.click('#import-simulate-open');
  await page.waitForSelector('#sim-time', { timeout: 15000 });
  assert.deepEqual(errors, []);
  await ctx.close();
});
