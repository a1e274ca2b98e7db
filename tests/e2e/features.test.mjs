// Round 2: topology editor, configuration, "why slow", inspector, time travel, compare, export,
// layout, and frame-time measurements.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import { serveDist, launch, openPage, screenshot, pause, play, panelShot, cliFingerprint } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

async function open(viewport) {
  const opened = await openPage(browser, site.url, viewport);
  await opened.page.waitForSelector('#sim-time', { timeout: 15000 });
  return opened;
}
const fingerprint = async (page) => (await page.textContent('#fingerprint')).replace('fingerprint ', '');
/** Types into an input and commits it (change event). */
async function type(page, selector, text) {
  await page.fill(selector, text);
  await page.press(selector, 'Tab');
}

test('topology editor: add, rename, connect, parallelism, apply restarts the job', async () => {
  const { page, errors } = await open();
  await page.click('#add-map');
  assert.ok(await page.locator('#editor-errors').count() === 1, 'an unconnected map must be invalid');
  // Rename it to something that would be markup if rendered as HTML.
  const n = await page.locator('.op-row').count();
  const i = n - 1;
  await type(page, `#op-${i}-name`, '<img src=x onerror=alert(1)>');
  assert.equal(await page.locator('#editor img').count(), 0, 'a name was rendered as HTML');
  assert.match(await page.textContent('#editor-graph'), /<img src=x/);
  // Garbage into numeric fields: a message, no panic.
  await type(page, `#op-${i}-parallelism`, 'lots');
  await page.waitForSelector('#editor-input-error');
  assert.match(await page.textContent('#editor-input-error'),
    /parallelism: bad value 'lots', expected a non-negative integer/);
  await type(page, `#op-${i}-parallelism`, '0');
  assert.match(await page.textContent('#editor-errors'), /parallelism/i);
  await type(page, `#op-${i}-parallelism`, '2');
  await type(page, `#op-${i}-cost`, 'fast!!');
  assert.match(await page.textContent('#editor-input-error'), /cost-per-record: bad value 'fast!!'/);
  await type(page, `#op-${i}-cost`, '50us');
  await type(page, '#op-0-rate', '-1');
  await type(page, '#op-0-keys', '🙂');
  // The knob parser is the CLI's (--set operator.<name>.record-size=1kb): a Flink size is taken.
  await type(page, '#op-0-record-size', '1kb');
  assert.equal(await page.inputValue('#op-0-record-size'), '1024');
  // Remove the map again and make a new chain: datagen -> filter -> discard sink.
  await page.click(`#op-${i}-remove`);
  await page.click('#add-filter');
  const f = (await page.locator('.op-row').count()) - 1;
  await type(page, `#op-${f}-keep-percent`, '30');
  await page.click('#add-discard-sink');
  await page.selectOption('#connect-from', 'filter');
  await page.selectOption('#connect-to', 'filter');
  await page.click('#connect');
  assert.match(await page.textContent('#editor-input-error'), /cannot feed itself/);
  // Connect the source's first downstream edge target check: wire datagen -> filter -> sink.
  const src = await page.inputValue('#op-0-name');
  await page.selectOption('#connect-from', src);
  await page.selectOption('#connect-to', 'filter');
  await page.selectOption('#connect-partitioner', 'REBALANCE');
  await page.click('#connect');
  await page.selectOption('#connect-from', 'filter');
  await page.selectOption('#connect-to', 'discard-sink-2');
  await page.click('#connect');
  await panelShot(page, '#editor-panel', 'editor-draft');
  // Drag the sink node a bit.
  const node = page.locator('#editor-graph .editor-node[data-name="discard-sink-2"] rect');
  await node.scrollIntoViewIfNeeded();
  const box = await node.boundingBox();
  await page.mouse.move(box.x + 20, box.y + 10);
  await page.mouse.down();
  await page.mouse.move(box.x + 60, box.y + 70, { steps: 4 });
  await page.mouse.up();
  const box2 = await node.boundingBox();
  assert.ok(Math.abs(box2.y - box.y) > 20, 'the node did not move');
  // A cycle: message, apply disabled, the running job keeps going.
  await page.selectOption('#connect-from', 'discard-sink-2');
  await page.selectOption('#connect-to', 'filter');
  await page.click('#connect');
  assert.ok(await page.locator('#editor-errors').count() === 1);
  assert.ok(await page.isDisabled('#editor-apply'));
  const edges = await page.locator('.edge-row').count();
  await page.click(`#edge-${edges - 1}-remove`);
  // Still invalid (the original keyed chain lost its source's edge? no: we only added). Apply when valid.
  const valid = await page.locator('#editor-valid').count();
  if (valid === 1) {
    const before = await page.locator('#job-graph .vertex').count();
    await page.click('#editor-apply');
    await page.waitForTimeout(500);
    const after = await page.locator('#job-graph .vertex').count();
    assert.ok(after >= before, `vertices ${before} -> ${after}`);
    assert.match(await page.textContent('#job-graph'), /filter/);
    assert.match(await page.textContent('#sim-time'), /\d/);
  } else {
    assert.fail(`draft not valid: ${await page.textContent('#editor-errors')}`);
  }
  await panelShot(page, '#job-graph', 'editor-applied-graph');
  assert.deepEqual(errors, []);
  await page.close();
});

test('configuration: keys with defaults, garbage is rejected inline, YAML applies', async () => {
  const { page, errors } = await open();
  const rows = await page.locator('#config-table tbody tr').count();
  assert.ok(rows >= 20, `only ${rows} keys`);
  assert.equal(await page.locator('#config-table tr[data-key="execution.checkpointing.interval"]').count(), 1);
  const input = '#config-table tr[data-key="execution.checkpointing.interval"] input';
  await type(page, input, 'soon-ish');
  assert.match(await page.textContent('#config-table tr[data-key="execution.checkpointing.interval"] .field-error'), /bad value/);
  assert.ok(await page.isDisabled('#config-apply'));
  await type(page, input, '1s');
  await page.click('#config-apply');
  await page.waitForTimeout(300);
  assert.equal(await page.inputValue(input), '1s');
  // Garbage YAML: errors, the job keeps running.
  for (const junk of ['{{{{', 'no.such.key: 5', 'execution.checkpointing.interval: -3 parsecs', '\u0000\u0001: [', ': : :']) {
    await page.fill('#yaml', junk);
    await page.click('#yaml-apply');
    assert.ok(await page.locator('#yaml-errors li').count() >= 1, `no error for ${JSON.stringify(junk)}`);
  }
  await page.fill('#yaml', 'execution.checkpointing.interval: 2s\nexecution.checkpointing.unaligned.enabled: true\n');
  await page.click('#yaml-apply');
  await page.waitForTimeout(300);
  assert.equal(await page.locator('#yaml-errors').count(), 0);
  assert.equal(await page.inputValue('#config-table tr[data-key="execution.checkpointing.unaligned.enabled"] input'), 'true');
  await panelShot(page, '#config-panel', 'config');
  assert.deepEqual(errors, []);
  await page.close();
});

test('why was checkpoint N slow, on the backpressure preset', async () => {
  const { page, errors } = await open();
  await page.selectOption('#preset', 'seed-backpressure');
  await page.selectOption('#speed', 'max');
  await page.waitForSelector('#why-text li', { timeout: 20000 });
  await page.waitForTimeout(3000);
  await pause(page);
  const text = await page.textContent('#why-text');
  assert.match(text, /last acknowledgement came from/);
  assert.match(text, /phase dominated/);
  await panelShot(page, '#why-panel', 'why-slow');
  assert.deepEqual(errors, []);
  await page.close();
});

test('inspector: click a subtask', async () => {
  const { page, errors } = await open();
  await page.waitForTimeout(2500);
  await pause(page);
  await page.click('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="0"]');
  await page.waitForSelector('#inspector');
  assert.match(await page.textContent('#insp-title'), /#0/);
  assert.equal(await page.locator('#insp-mailbox').count(), 1);
  assert.match(await page.textContent('#insp-handler'), /State/);
  assert.equal(await page.locator('#insp-keyed').count(), 1, 'keyed state');
  assert.ok(await page.locator('#insp-keyed tbody tr').count() > 0, 'no key groups');
  await panelShot(page, '#inspector-panel', 'inspector-keyed');
  await page.click('#job-graph .vertex[data-vertex="0"] .subtask[data-subtask="1"]');
  assert.match(await page.textContent('#insp-source'), /next_seq/);
  await page.click('#inspector-close');
  assert.equal(await page.locator('#inspector').count(), 0);
  // The two-phase-commit preset shows its transactions.
  await page.selectOption('#preset', 'seed-2pc');
  await page.selectOption('#speed', 'max');
  await page.waitForTimeout(2500);
  await pause(page);
  await page.click('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="1"]');
  assert.match(await page.textContent('#insp-2pc'), /Committed/);
  await panelShot(page, '#inspector-panel', 'inspector-2pc');
  assert.deepEqual(errors, []);
  await page.close();
});

test('time travel: scrubbing back and forth keeps the fingerprint; acting forks', async () => {
  const { page, errors } = await open();
  await page.selectOption('#speed', '10');
  await page.waitForTimeout(2500);
  await pause(page);
  const live = await fingerprint(page);
  const liveTime = await page.textContent('#sim-time');
  const max = Number(await page.getAttribute('#scrubber', 'max'));
  assert.ok(max > 500, `horizon only ${max}`);
  const scrub = async (v) => {
    await page.$eval('#scrubber', (el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', { bubbles: true })); }, v);
    await page.waitForTimeout(100);
  };
  await scrub(Math.floor(max / 3));
  const a = await fingerprint(page);
  assert.notEqual(a, live);
  // The job played in the worker, which wrote the snapshots time travel goes back to: the one
  // this re-ran from must be the job as it was, so the native run ends where it does.
  const at = Number(await page.getAttribute('#sim-time', 'data-micros'));
  assert.equal(a, cliFingerprint('seed-demo', `${at}us`), `not the native run at ${at} us`);
  await scrub(Math.floor(max / 2));
  await scrub(Math.floor(max / 3));
  assert.equal(await fingerprint(page), a, 'scrubbing back changed the fingerprint');
  await page.click('#travel-live');
  await page.waitForTimeout(100);
  assert.equal(await fingerprint(page), live, 'back to latest changed the fingerprint');
  assert.equal(await page.textContent('#sim-time'), liveTime);
  console.log(`time travel: fingerprint ${a} at ${Math.floor(max / 3) / 100}s, ${live} at the horizon, stable both ways`);
  await scrub(Math.floor(max / 3));
  await panelShot(page, '#travel', 'time-travel');
  await page.click('#trigger-checkpoint');
  await page.waitForTimeout(100);
  assert.ok(Number(await page.getAttribute('#scrubber', 'max')) <= Math.floor(max / 3) + 1, 'acting in the past did not fork');
  assert.deepEqual(errors, []);
  await page.close();
});

// Compare's modes as `--set`s (crates/app/src/compare.rs, MODES).
const MODE_SETS = {
  aligned: ['execution.checkpointing.mode=EXACTLY_ONCE', 'execution.checkpointing.unaligned.enabled=false'],
  unaligned: ['execution.checkpointing.mode=EXACTLY_ONCE', 'execution.checkpointing.unaligned.enabled=true'],
  'at-least-once': ['execution.checkpointing.mode=AT_LEAST_ONCE', 'execution.checkpointing.unaligned.enabled=false'],
};

/** Runs Compare modes on seed-backpressure (paused before 30 s, so to 30 s simulated) and
 *  checks each mode's fingerprint against the native engine's. Returns where it ran. */
async function compareRun(page) {
  await page.selectOption('#preset', 'seed-backpressure');
  await pause(page);
  await page.click('#compare-start');
  await page.waitForSelector('#compare[data-done="true"]', { timeout: 60000 });
  assert.equal(await page.locator('#compare-table tbody tr').count(), 3);
  const got = Object.fromEntries(await page.$$eval('#compare-table tbody tr',
    (trs) => trs.map((tr) => [tr.dataset.mode, tr.dataset.fingerprint])));
  for (const [mode, sets] of Object.entries(MODE_SETS)) {
    assert.equal(got[mode], cliFingerprint('seed-backpressure', 30, sets), `${mode}: not the native run`);
  }
  return page.getAttribute('#compare', 'data-runner');
}

test('compare aligned / unaligned / at-least-once, in the worker, as the native engine runs them', async () => {
  const { page, errors } = await open();
  // The playground's own job plays in a worker of its own, for the page's lifetime.
  await page.waitForSelector('#sim-worker', { timeout: 15000 });
  const base = page.workers().length;
  assert.equal(await compareRun(page), 'worker');
  const persisted = await page.locator('#compare-table td.persisted').allTextContents();
  console.log(`compare persisted: ${persisted.join(' | ')}`);
  await panelShot(page, '#compare-panel', 'compare');
  // Run again: a new worker replaces the old; closing the comparison ends the worker.
  await page.click('#compare-restart');
  await page.waitForSelector('#compare[data-done="true"]', { timeout: 60000 });
  assert.equal(page.workers().length, base + 1, 'one worker for the comparison shown');
  await page.click('#compare-close');
  await page.waitForFunction(() => !document.querySelector('#compare-table'));
  for (let i = 0; i < 50 && page.workers().length > base; i++) await page.waitForTimeout(100);
  assert.equal(page.workers().length, base, 'the worker outlived its comparison');
  assert.deepEqual(errors, []);
  await page.close();
});

test('compare without its worker script: the page runs it, with the same fingerprints', async () => {
  const { page, errors } = await open();
  await page.route('**/worker-loader.js', (r) => r.abort());
  assert.equal(await compareRun(page), 'page');
  assert.match(await page.textContent('#compare'), /no background worker started/);
  assert.deepEqual(errors.filter((e) => !/worker-loader\.js/.test(e)), []);
  await page.close();
});

test('export: timeline SVG and PNG, statistics JSON', async () => {
  const { page, errors } = await open();
  await page.selectOption('#speed', 'max');
  await page.waitForSelector('#timeline .phase', { timeout: 15000 });
  await pause(page);
  for (const [id, re] of [['#export-svg', /\.svg$/], ['#export-png', /\.png$/], ['#export-json', /\.json$/]]) {
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click(id)]);
    assert.match(download.suggestedFilename(), re);
    const path = `tests/e2e/screenshots/export-${download.suggestedFilename()}`;
    await download.saveAs(path);
    const body = await readFile(path);
    if (id === '#export-svg') assert.match(body.toString(), /^<svg[^>]*xmlns/);
    if (id === '#export-png') assert.equal(body.subarray(1, 4).toString(), 'PNG');
    if (id === '#export-json') {
      const json = JSON.parse(body.toString());
      assert.ok(json.checkpoints && json.config && json.fingerprint);
    }
  }
  assert.deepEqual(errors, []);
  await page.close();
});

/** The entries of a zip (from its central directory): name, unix mode, contents. */
function readZip(buf) {
  let end = buf.length - 22;
  while (end >= 0 && buf.readUInt32LE(end) !== 0x06054b50) end--;
  assert.ok(end >= 0, 'not a zip: no end of central directory');
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const entries = new Map();
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(at), 0x02014b50, 'bad central directory entry');
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const [nameLen, extraLen, commentLen] = [buf.readUInt16LE(at + 28), buf.readUInt16LE(at + 30), buf.readUInt16LE(at + 32)];
    const mode = buf.readUInt32LE(at + 38) >>> 16;
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString();
    const data = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(data, data + size);
    const text = (method === 8 ? inflateRawSync(raw) : raw).toString();
    entries.set(name, { mode, text });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

test('export as Flink job: the current scenario (seed, faults) as a zip, run.sh executable', async () => {
  const { page, errors } = await open();
  await page.selectOption('#preset', 'seed-2pc');
  await page.fill('#seed', '77');
  await page.press('#seed', 'Enter');
  await page.waitForFunction(() => document.querySelector('#seed').value === '77');
  await pause(page);
  // A kill fault (exportable) from the subtask menu, as a user adds one.
  await page.click('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="1"]');
  await page.waitForSelector('#fault-menu');
  await page.click('#fault-kill');
  await page.waitForFunction(() => !document.querySelector('#rerun-progress'), null, { timeout: 30000 });
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('#export-flink')]);
  // An edited preset exports under its own name (custom: seed-2pc + 1 fault).
  assert.equal(download.suggestedFilename(), 'custom-seed-2pc-1-fault-flink-job.zip');
  const path = `tests/e2e/screenshots/${download.suggestedFilename()}`;
  await download.saveAs(path);
  const zip = readZip(await readFile(path));
  const dir = 'custom-seed-2pc-1-fault-flink-job/';
  assert.ok([...zip.keys()].every((n) => n.startsWith(dir)), `entries outside ${dir}: ${[...zip.keys()]}`);
  const run = zip.get(`${dir}run.sh`);
  assert.ok(run, 'run.sh missing');
  assert.equal(run.mode & 0o777, 0o755, 'run.sh is not executable');
  assert.match(run.text, /^#!/);
  assert.match(zip.get(`${dir}src/main/java/barrierlab/BarrierLabJob.java`)?.text ?? '', /class BarrierLabJob/);
  assert.equal(zip.get(`${dir}config.yaml`).mode & 0o777, 0o644);
  const scenario = JSON.parse(zip.get(`${dir}scenario.json`).text);
  assert.equal(scenario.seed, 77);
  assert.deepEqual(scenario.faults.map((f) => f.kill?.task ?? Object.keys(f)[0]), ['count-per-key#1']);
  // How to run it, next to the button.
  const hint = await page.textContent('#flink-export-message');
  assert.match(hint, /custom-seed-2pc-1-fault-flink-job\.zip/);
  assert.match(hint, /unzip, then \.\/run\.sh --seconds 30; needs Java 17/);
  assert.match(hint, /pip install --no-deps apache-flink-libraries==2\.3\.0/);
  await panelShot(page, '#timeline', 'export-flink-job');
  assert.deepEqual(errors, []);
  await page.close();
});

test('export as Flink job: a scenario Flink cannot express is refused with the reason, nothing downloads', async () => {
  const { page, errors } = await open();
  await pause(page);
  await page.click('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="0"]');
  await page.waitForSelector('#fault-menu');
  await page.click('#fault-decline');
  await page.waitForFunction(() => !document.querySelector('#rerun-progress'), null, { timeout: 30000 });
  let downloads = 0;
  page.on('download', () => downloads++);
  await page.click('#export-flink');
  const message = page.locator('#flink-export-message[role="alert"]');
  await message.waitFor({ timeout: 5000 });
  assert.match(await message.textContent(), /^Cannot export scenario 'custom: seed-demo \+ 1 fault' as a Flink job:/);
  assert.match(await message.textContent(), /"decline".*not exportable: a plain job cannot make a task decline/);
  await page.waitForTimeout(1000);
  assert.equal(downloads, 0, 'a refused export downloaded something');
  page.removeAllListeners('download');
  await panelShot(page, '#timeline', 'export-flink-job-refused');
  // The message closes; it also goes when the scenario changes, and without the decline the
  // scenario exports.
  await page.click('#flink-export-message button');
  assert.equal(await page.locator('#flink-export-message').count(), 0);
  await page.click('#export-flink');
  await message.waitFor({ timeout: 5000 });
  await page.click('#fault-0-remove');
  await page.waitForFunction(() => !document.querySelector('#rerun-progress'), null, { timeout: 30000 });
  assert.equal(await page.locator('#flink-export-message').count(), 0);
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('#export-flink')]);
  assert.equal(download.suggestedFilename(), 'seed-demo-flink-job.zip');
  assert.equal(await page.getAttribute('#flink-export-message', 'role'), 'status');
  assert.deepEqual(errors, []);
  await page.close();
});

test('layout: history fits at 1280, phone at 390, dark theme', async () => {
  const { page, errors } = await open({ width: 1280, height: 900 });
  await page.selectOption('#speed', 'max');
  await page.click('#tab-history');
  await page.waitForSelector('#checkpoint-history tr[data-status="COMPLETED"]', { timeout: 10000 });
  const over = await page.$eval('#checkpoint-history', (el) => el.parentElement.scrollWidth - el.parentElement.clientWidth);
  assert.ok(over <= 0, `history overflows its panel by ${over}px`);
  await pause(page);
  await screenshot(page, 'round2-1280');
  await page.click('#theme-toggle');
  if ((await page.getAttribute('html', 'data-theme')) !== 'dark') await page.click('#theme-toggle');
  await screenshot(page, 'round2-1280-dark');
  await page.close();
  const phone = await open({ width: 390, height: 844 });
  await phone.page.waitForTimeout(1000);
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
  await screenshot(phone.page, 'round2-390');
  assert.deepEqual([...errors, ...phone.errors], []);
  await phone.page.close();
});

async function frameTimes(page, ms = 5000) {
  return page.evaluate((ms) => new Promise((done) => {
    const t = [];
    const start = performance.now();
    const f = (now) => { t.push(now); if (now - start < ms) requestAnimationFrame(f); else done(t); };
    requestAnimationFrame(f);
  }), ms);
}
function p95(ts) {
  const d = ts.slice(1).map((t, i) => t - ts[i]).sort((a, b) => a - b);
  return { p95: d[Math.floor(d.length * 0.95)], frames: d.length, max: d[d.length - 1] };
}

test('frame time while the seed demo runs at 1x and at max speed', async () => {
  const { page, errors } = await open();
  await page.waitForTimeout(500);
  const one = p95(await frameTimes(page));
  await page.selectOption('#speed', 'max');
  await page.waitForTimeout(500);
  const max = p95(await frameTimes(page));
  console.log(`frame time 1x: p95 ${one.p95.toFixed(1)} ms (max ${one.max.toFixed(1)}, ${one.frames} frames); ` +
    `max speed: p95 ${max.p95.toFixed(1)} ms (max ${max.max.toFixed(1)}, ${max.frames} frames)`);
  // The figures are printed, not judged: a shared CI machine under load drops frames (issue #16:
  // benchmarks report, tests do not time). Only gross breakage fails: the page must keep
  // drawing, no frame taking 2 s.
  for (const r of [one, max]) assert.ok(r.frames >= 10 && r.max < 2000, `the page stopped drawing: ${JSON.stringify(r)}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('state TTL and list state: the editor takes a TTL, the list-state presets run and show it', async () => {
  const { page, errors } = await open();
  // The editor: a keyed list with its state-ttl knob; garbage gets the parser's message.
  await page.click('#add-keyed-list');
  const i = (await page.locator('.op-row').count()) - 1;
  await type(page, `#op-${i}-state-ttl`, 'soon');
  await page.waitForSelector('#editor-input-error');
  assert.match(await page.textContent('#editor-input-error'), /state-ttl: bad value 'soon'/);
  await type(page, `#op-${i}-state-ttl`, '5s');
  assert.equal(await page.inputValue(`#op-${i}-state-ttl`), '5s');
  await page.click(`#op-${i}-remove`);
  // The RocksDB preset: the keyed list's subtask shows its files and what its state is.
  await page.selectOption('#preset', 'list-state-rocksdb');
  await page.selectOption('#speed', 'max');
  await play(page);
  await page.waitForFunction(() => Number(document.querySelector('#count-completed')?.textContent) >= 3, null, { timeout: 30000 });
  await pause(page);
  await page.click('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="0"]');
  await page.waitForSelector('#insp-state-desc');
  assert.match(await page.textContent('#insp-state-desc'),
    /ListState<Long> "list" \(a sample shows a list's length\), state TTL 10\.00 s \(StateTtlConfig\)/);
  assert.match(await page.textContent('#insp-rocksdb'), /RocksDB files/);
  await panelShot(page, '#inspector-panel', 'list-state-rocksdb-inspector');
  assert.deepEqual(errors, []);
  await page.close();
});
