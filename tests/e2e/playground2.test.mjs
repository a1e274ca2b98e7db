// Issue #5, remaining parts: step to the next checkpoint phase, the event log as a time cursor,
// timeline zoom / pan / pin / outliers, and faults on an edge of the job graph.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot, pause, play, panelShot } from './harness.mjs';
import { INSTRUMENT, measure, fmt } from './frames.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

async function open(viewport = { width: 1400, height: 900 }) {
  const opened = await openPage(browser, site.url, viewport);
  await opened.page.waitForSelector('#sim-time', { timeout: 60000 });
  return opened;
}
/** Runs at max speed until `n` checkpoints completed, then pauses. */
async function completed(page, n) {
  await page.selectOption('#speed', 'max');
  await play(page);
  await page.waitForFunction((n) => Number(document.querySelector('#count-completed')?.textContent) >= n, n, { timeout: 30000 });
  await pause(page);
}
const simTime = async (page) => (await page.textContent('#sim-time')).replace('t =', '').trim();

test('step to the next checkpoint phase: button and key stop at checkpoint events, in order', async () => {
  const { page, errors } = await open();
  await pause(page);
  await page.click('#reset');
  await page.click('#step-phase');
  await page.waitForSelector('#phase-stop');
  // First the trigger that finds tasks still INITIALIZING (as in Flink), then checkpoint 1.
  assert.match(await page.textContent('#phase-stop'), /Stopped at: trigger rejected · JobManager/);
  const rejected = await page.getAttribute('#phase-stop', 'data-seq');
  await page.click('#step-phase');
  await page.waitForFunction((prev) => document.querySelector('#phase-stop')?.dataset.seq !== prev, rejected);
  assert.match(await page.textContent('#phase-stop'), /Stopped at: trigger · JobManager · checkpoint 1/);
  // The event it stopped at is highlighted in the event log.
  assert.match(await page.textContent('#event-log .log-line.cursor'), /trigger checkpoint 1/);
  const seen = [];
  for (let i = 0; i < 40; i++) {
    const prev = await page.getAttribute('#phase-stop', 'data-seq');
    await page.keyboard.press('p');
    await page.waitForFunction((prev) => document.querySelector('#phase-stop')?.dataset.seq !== prev, prev);
    seen.push((await page.textContent('#phase-stop')).replace('Stopped at: ', ''));
    if (/^complete/.test(seen.at(-1))) break;
  }
  for (const phase of ['barrier emitted', 'barrier received', 'sync start', 'sync end', 'async end', 'acknowledged', 'complete']) {
    assert.ok(seen.some((s) => s.startsWith(phase)), `${phase} in ${seen.join(' | ')}`);
  }
  assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'false');
  await page.keyboard.press('?');
  assert.match(await page.textContent('#help-overlay'), /step to the next checkpoint phase/);
  await page.keyboard.press('Escape');
  await panelShot(page, '.controls-wrap', 'step-phase-controls');
  assert.deepEqual(errors, []);
});

test('event log: clicking a line moves the time cursor to that event; keyboard too', async () => {
  const { page, errors } = await open();
  await completed(page, 3);
  const now = await simTime(page);
  // An older line: the 40th newest.
  const line = page.locator('#event-log .log-line').nth(40);
  const t = (await line.locator('.t').textContent()).trim();
  const seq = await line.getAttribute('data-seq');
  assert.notEqual(t, now);
  await line.locator('.what').click();
  await page.waitForFunction((t) => document.querySelector('#sim-time').textContent.replace('t =', '').trim() === t, t);
  // The log now ends at that moment and the clicked event is marked.
  assert.equal(await page.getAttribute('#event-log .log-line.cursor', 'data-seq'), seq);
  const times = await page.locator('#event-log .log-line').evaluateAll((ls) => ls.map((l) => Number(l.dataset.time)));
  const at = Number(await page.getAttribute('#event-log .log-line.cursor', 'data-time'));
  assert.ok(times.every((x) => x <= at + 1000), 'no line far after the cursor');
  await panelShot(page, '#event-log', 'event-log-seek');
  // Keyboard: focus an older line's time button and press Enter.
  const older = page.locator('#event-log .log-line').nth(20);
  const t2 = (await older.locator('.t').textContent()).trim();
  await older.locator('button.t').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((t) => document.querySelector('#sim-time').textContent.replace('t =', '').trim() === t, t2);
  assert.deepEqual(errors, []);
});

test('timeline: zoom and pan change the visible range; ctrl+wheel, drag and keys too; reset', async () => {
  const { page, errors } = await open();
  await completed(page, 3);
  const range = async () => (await page.textContent('#tl-range')).trim();
  const whole = await range();
  assert.match(whole, /showing \+0 µs … \+.* \(1\.0×\) · following the newest/);
  await page.click('#tl-zoom-in');
  await page.click('#tl-zoom-in');
  const zoomed = await range();
  assert.match(zoomed, /\(2\.2×\)/);
  assert.notEqual(zoomed, whole);
  await page.click('#tl-pan-right');
  const panned = await range();
  assert.notEqual(panned, zoomed);
  assert.doesNotMatch(panned, /showing \+0 µs/);
  await panelShot(page, '#timeline', 'timeline-zoomed');
  // Drag towards the trigger.
  const box = await page.locator('#timeline svg.timeline').boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + 60);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.9, box.y + 60, { steps: 5 });
  await page.mouse.up();
  assert.notEqual(await range(), panned);
  // Ctrl + wheel over the chart zooms further in; keys zoom out and reset.
  await page.mouse.move(box.x + box.width * 0.6, box.y + 60);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -100);
  await page.keyboard.up('Control');
  await page.waitForFunction(() => /\(3\.4×\)/.test(document.querySelector('#tl-range').textContent));
  await page.focus('#timeline .timeline-wrap');
  await page.keyboard.press('-');
  assert.match(await range(), /\(2\.2×\)/);
  await page.keyboard.press('0');
  assert.equal(await range(), whole);
  await page.click('#tl-zoom-in');
  await page.click('#tl-reset');
  assert.equal(await range(), whole);
  assert.deepEqual(errors, []);
});

test('timeline: a pinned checkpoint stays while newer ones complete; follow newest again', async () => {
  const { page, errors } = await open();
  await completed(page, 2);
  const first = await page.getAttribute('#timeline .tl-group', 'data-id');
  await page.selectOption('#tl-pin', first);
  assert.match(await page.textContent('#tl-range'), new RegExp(`pinned: checkpoint ${first}`));
  const done = Number(await page.textContent('#count-completed'));
  await completed(page, done + 2);
  const ids = await page.locator('#timeline .tl-group').evaluateAll((gs) => gs.map((g) => g.dataset.id));
  assert.deepEqual(ids, [first]);
  await page.selectOption('#tl-pin', '');
  const newest = await page.getAttribute('#timeline .tl-group', 'data-id');
  assert.ok(Number(newest) >= Number(first) + 2, `${newest} after ${first}`);
  // A click on a group's header pins it too.
  await page.locator('#timeline .tl-group .tl-header').first().click();
  assert.match(await page.textContent('#tl-range'), new RegExp(`pinned: checkpoint ${newest}`));
  assert.deepEqual(errors, []);
});

test('timeline: seed-backpressure marks an outlier subtask, with the rule on hover', async () => {
  const { page, errors } = await open();
  await page.selectOption('#preset', 'seed-backpressure');
  await completed(page, 3);
  await page.waitForSelector('#timeline .tl-row.outlier');
  const marks = await page.locator('#timeline .tl-row.outlier').count();
  assert.ok(marks > 0);
  assert.match(await page.locator('#timeline .tl-row.outlier > title').first().textContent(), /outlier/);
  assert.match(await page.getAttribute('#timeline .tl-outlier-legend', 'title'), /more than 2× later than the median subtask of the same operator/);
  // Numbers on hover: every phase has its duration in ms.
  assert.match(await page.locator('#timeline rect.phase > title').first().textContent(), /(start delay|alignment|sync|async) \d+\.\d{3} ms/);
  await panelShot(page, '#timeline', 'timeline-outliers');
  assert.deepEqual(errors, []);
});

test('edge faults: a click on an edge opens its menu; a lost connection fails the job over, exactly-once holds', async () => {
  const { page, errors } = await open();
  await page.selectOption('#preset', 'seed-2pc');
  await pause(page);
  const edge = '#job-graph .edge[data-from="0"][data-to="1"]';
  await page.click(`${edge} .channel-block`);
  await page.waitForSelector('#edge-fault-menu');
  assert.match(await page.textContent('#edge-fault-title'), /datagen → count-per-key \(HASH\)/);
  // One TaskManager: every channel is local, nothing to fault; offer a second TaskManager.
  assert.match(await page.textContent('#edge-fault-local'), /are local/);
  await panelShot(page, '#job-graph', 'edge-fault-local');
  await page.click('#edge-fault-spread');
  await completed(page, 2);
  // The menu stays open across the restart, now with the network faults.
  await page.waitForSelector('#edge-fault-loss');
  assert.match(await page.textContent('#edge-fault-menu'), /2 of 4 channels cross the network/);
  await panelShot(page, '#job-graph', 'edge-fault-menu');
  // A network delay first: it joins the fault list.
  await page.fill('#edge-fault-by', '400ms');
  await page.click('#edge-fault-delay');
  await page.waitForFunction(() => !document.querySelector('#rerun-progress'), null, { timeout: 30000 });
  assert.match(await page.textContent('#fault-list .fault-row[data-kind="network-delay"]'), /datagen -> count-per-key.*400ms late/);
  await page.click(`${edge} .channel-block`);
  await page.click(`${edge} .channel-block`);
  await page.click('#edge-fault-loss');
  await page.waitForFunction(() => !document.querySelector('#rerun-progress'), null, { timeout: 30000 });
  assert.equal(await page.locator('#fault-list .fault-row[data-kind="connection-loss"]').count(), 1);
  assert.match((await page.textContent('#job-status')).trim(), /^RESTARTING/);
  assert.match(await page.textContent('#event-log'), /RemoteTransportException/);
  await page.selectOption('#speed', 'max');
  await play(page);
  await page.waitForFunction(() => /^RUNNING/.test(document.querySelector('#job-status').textContent), null, { timeout: 20000 });
  const done = Number(await page.textContent('#count-completed'));
  await completed(page, done + 2);
  await page.click('#verdict-check');
  await page.waitForFunction(() => document.querySelector('#verdict')?.dataset.exact === 'true', null, { timeout: 20000 });
  assert.match(await page.textContent('#verdict-badge'), /EXACTLY ONCE/);
  await screenshot(page, 'edge-fault-after');
  assert.deepEqual(errors, []);
});

test('frame budget at 1x and at max speed: rAF intervals and the work of each tick (printed)', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.addInitScript(INSTRUMENT);
  await page.goto(site.url);
  await page.waitForSelector('#sim-time', { timeout: 60000 });
  await page.waitForTimeout(1000);
  const one = await measure(page, 4000);
  await page.selectOption('#speed', 'max');
  await page.waitForTimeout(1000);
  const max = await measure(page, 4000);
  console.log(`frames 1x:  ${fmt(one)}`);
  console.log(`frames max: ${fmt(max)}`);
  // The figures above are the measurement; a shared CI machine is too noisy to judge them
  // (under load 1x tick work reached p95 36 ms with 1.6 ms of it simulating). Only gross
  // breakage fails: the page stops drawing frames for 2 s, or draws almost none.
  assert.ok(one.raf_max < 2000 && max.raf_max < 2000, `a frame took 2 s or more: 1x ${fmt(one)}; max ${fmt(max)}`);
  assert.ok(one.frames > 60 && max.frames > 60, `too few frames: 1x ${fmt(one)}; max ${fmt(max)}`);
  assert.deepEqual(errors, []);
  await page.close();
});
