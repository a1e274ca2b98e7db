// Flink's Web UI where users look: busy-time colours apart from backpressure, a Backpressure
// table, checkpoint types, per-operator summaries, trends, TaskManagers and slots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot, panelShot, pause, play } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

async function open(preset) {
  const opened = await openPage(browser, site.url, { width: 1440, height: 900 });
  await opened.page.waitForSelector('#sim-time', { timeout: 15000 });
  if (preset) await opened.page.selectOption('#preset', preset);
  return opened;
}

async function completed(page, n) {
  await page.selectOption('#speed', 'max');
  await play(page);
  await page.waitForFunction((n) => Number(document.querySelector('#count-completed')?.textContent) >= n, n, { timeout: 30000 });
  await pause(page);
}

const row = (v, s) => `#backpressure-table tr[data-vertex="${v}"][data-subtask="${s}"]`;

test('seed-backpressure: the busy keyed subtask is red, the source is backpressured, the table says so', async () => {
  const { page, errors } = await open('seed-backpressure');
  await completed(page, 2);
  // Job graph: fill by busy time, backpressure apart (the 100 %-busy count-per-key was green).
  const busy = await page.getAttribute('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="1"] rect.busy-fill', 'data-busy');
  assert.ok(Number(busy) >= 0.9, `count-per-key #1 busy ${busy}`);
  const fill = await page.$eval('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="1"] rect.busy-fill', (r) => getComputedStyle(r).fill);
  const [red, , blue] = fill.match(/\d+/g).map(Number);
  assert.ok(red > 180 && blue < 110, `a busy subtask is red, not ${fill}`);
  assert.equal(await page.locator('#job-graph .vertex[data-vertex="0"] .subtask rect.bp-bar').count(), 2, 'the sources show backpressure');
  // Backpressure table: every subtask, Flink's levels and ratios.
  assert.equal(await page.locator('#backpressure-table tbody tr').count(), 4);
  assert.equal((await page.textContent(`${row(0, 0)} .bp-level`)).trim(), 'HIGH');
  assert.equal((await page.textContent(`${row(1, 1)} .busy-ratio`)).trim(), '100 %');
  assert.equal((await page.textContent(`${row(1, 1)} .bp-level`)).trim(), 'OK');
  await panelShot(page, '#job-graph', 'webui-job-graph-busy');
  await panelShot(page, '#backpressure-panel', 'webui-backpressure');
  assert.deepEqual(errors, []);
  await page.close();
});

test('checkpoint history: type and full size columns, operator summaries, trends; it fits at 1440 px', async () => {
  const { page, errors } = await open('seed-unaligned');
  await completed(page, 3);
  // Past 100 000 simulated seconds (hours of run): IDs and times have grown by digits, and the
  // table must still fit (CI once paused past 10 000 s and it was 5 px too wide).
  await play(page);
  await page.waitForFunction(() => Number(document.querySelector('#sim-time')?.dataset.micros) >= 100000e6, null, { timeout: 60000 });
  await pause(page);
  await page.click('#trigger-savepoint');
  // At 10x, not max: at max speed a savepoint leaves the 10-entry history within a frame or two.
  await page.selectOption('#speed', '10');
  await play(page);
  await page.click('#tab-history');
  await page.waitForFunction(() => [...document.querySelectorAll('#checkpoint-history .checkpoint-type')].some((c) => c.dataset.type === 'savepoint'), null, { timeout: 20000 });
  await pause(page);
  const types = await page.$$eval('#checkpoint-history .checkpoint-type', (cs) => cs.map((c) => c.dataset.type));
  assert.ok(types.includes('unaligned checkpoint'), types.join(', '));
  assert.match(await page.textContent('#checkpoint-history thead'), /Full Size/);
  // The table fits its panel at 1440 px: no horizontal scrolling.
  const overflow = await page.$eval('#checkpoint-history', (t) => t.scrollWidth - t.parentElement.clientWidth);
  assert.ok(overflow <= 1, `history is ${overflow}px too wide`);
  // Per-operator min/avg/max above the subtasks, as the Web UI's Summary rows.
  await page.click('#checkpoint-history tr[data-status="COMPLETED"]');
  await page.click('#checkpoint-details .operator-row');
  const summary = await page.textContent('#checkpoint-details .operator-summary');
  for (const label of ['Minimum', 'Average', 'Maximum']) assert.match(summary, new RegExp(label));
  // The details fit too: the columns the History repeats drop out in a narrow panel.
  for (const sel of ['#checkpoint-details > .table-scroll > table', '#checkpoint-details .subtasks']) {
    const wide = await page.$eval(sel, (t) => t.scrollWidth - t.closest('.table-scroll').clientWidth);
    assert.ok(wide <= 1, `${sel} is ${wide}px too wide`);
  }
  // Phases with the why panel's precision (µs below a millisecond), Flink's REST figure as the title.
  const sync = page.locator('#checkpoint-details .subtasks tbody tr.subtask-row td:nth-child(5)').first();
  assert.match(await sync.getAttribute('title'), /^REST: \d+ ms$/);
  assert.match(await sync.textContent(), /^\d+ µs$|^\d+\.\d ms$/);
  await panelShot(page, '#checkpoints', 'webui-history');
  // Trends: the newest completed checkpoints' durations and sizes.
  await page.click('#tab-summary');
  const points = await page.$eval('#trend-duration polyline', (p) => p.getAttribute('points').trim().split(' ').length);
  assert.ok(points >= 3, `${points} points`);
  assert.equal(await page.locator('#trend-size polyline').count(), 1);
  await panelShot(page, '#checkpoints', 'webui-trends');
  assert.deepEqual(errors, []);
  await page.close();
});

test('TaskManagers and slots: subtask i of every vertex shares slot i', async () => {
  const { page, errors } = await open();
  // The seed demo runs on one TaskManager with just enough slots (its largest parallelism, 2).
  assert.equal(await page.locator('#taskmanagers .taskmanager').count(), 1);
  assert.equal(await page.locator('#taskmanagers .slot').count(), 2);
  const slot = (i) => page.textContent(`#taskmanagers .taskmanager[data-taskmanager="0"] .slot[data-slot="${i}"]`);
  const [slot0, slot1] = [await slot(0), await slot(1)];
  assert.match(slot0, /datagen #0/);
  assert.match(slot0, /count-per-key.* #0/);
  assert.doesNotMatch(slot0, /#1/);
  assert.match(slot1, /datagen #1/);
  await panelShot(page, '#taskmanagers-panel', 'webui-taskmanagers');
  assert.deepEqual(errors, []);
  await page.close();
});
