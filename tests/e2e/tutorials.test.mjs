// Tutorials (docs/tutorials.md): the picker, every step of every tutorial stopping on its
// condition with visible evidence, Back landing on the fingerprint the step had when first
// reached, step links reproducing it, and clear messages for bad tutorial links.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot, panelShot } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const text = (page, sel) => page.textContent(sel);

// What each step's stop must show: the stop line (the event it paused on), and optionally the
// selected History row (`checkpoint`) and whether a subtask is highlighted in the job graph.
const EXPECT = {
  'who-triggers': [
    { stop: /^Paused until 0\.300 s\.$/, highlight: false },
    { stop: /trigger checkpoint 1.*startTriggeringCheckpoint/, checkpoint: 1, acks: '0/4', highlight: false },
    { stop: /Source: datagen \(\d\/2\).*mail triggerCheckpointAsync queued/, highlight: true },
    { stop: /Source: datagen.*barrier 1 broadcast/, highlight: true },
    { stop: /count-per-key.*barrier 1 on channel \d.*processBarrier/, highlight: true },
    { stop: /JobManager.*completed 1 in/, checkpoint: 1, highlight: false },
  ],
  'barriers-no-lock': [
    { stop: /Source: datagen \(\d\/2\).*mail triggerCheckpointAsync queued/, highlight: true },
    { stop: /Source: datagen \(\d\/2\).*sync snapshot 1 starts/, highlight: true },
    { stop: /count-per-key.*barrier 1 on channel/, highlight: true },
    { stop: /Source: datagen.*async part of 1 done/, highlight: true },
    { stop: /Source: datagen.*acknowledged 1.*receiveAcknowledgeMessage/, checkpoint: 1, acks: '1/4', highlight: true },
  ],
  alignment: [
    { stop: /trigger checkpoint 2/, highlight: false },
    { stop: /count-per-key.*channel \d blocked.*blockChannel/, highlight: true,
      inspector: /CollectingBarriers\s*Blocked channels\s*\[\d\]/ },
    { stop: /count-per-key.*channel \d resumed.*unblockAllChannels/, highlight: true },
    { stop: /completed 2 in/, checkpoint: 2, highlight: false },
  ],
  unaligned: [
    { stop: /trigger checkpoint 2 \(unaligned\)/, highlight: false },
    { stop: /mail triggerCheckpointAsync queued \(urgent\)/, highlight: true },
    { stop: /barrier 2 overtook \d+ bytes of output data.*processPriorityBuffer/, highlight: true },
    { stop: /count-per-key.*barrier 2 on channel/, highlight: true },
    { stop: /completed 2 in/, checkpoint: 2, highlight: false },
    { stop: /completed 3 in/, highlight: false },
  ],
  'completion-2pc': [
    { stop: /pre-committed transaction of \d+ records for 1/, highlight: true },
    { stop: /acknowledged 1/, checkpoint: 1, acks: '3/4', highlight: true },
    { stop: /completed 1 in.*completePendingCheckpoint/, checkpoint: 1, highlight: false },
    { stop: /committed \d+ records up to 1.*CommitterOperator.notifyCheckpointComplete/, highlight: true },
    { stop: /committed \d+ records up to 3/, highlight: true },
  ],
  experiment: [
    { stop: /completed 3 in/, checkpoint: 3, highlight: false },
    { stop: /completed 3 in/, checkpoint: 3, highlight: false },
    { stop: /completed 3 in/, checkpoint: 3, highlight: false },
    { stop: /completed 3 in/, checkpoint: 3, highlight: false },
    { stop: /completed 3 in/, checkpoint: 3, highlight: false },
    { stop: /completed 5 in/, checkpoint: 5, highlight: false },
  ],
  debloating: [
    { stop: /completed 4 in/, checkpoint: 4, highlight: false },
    { stop: /completed 2 in/, checkpoint: 2, highlight: false },
    { stop: /completed 5 in/, checkpoint: 5, highlight: false },
  ],
  'state-backends': [
    { stop: /completed 4 in/, checkpoint: 4, highlight: false },
    { stop: /completed 4 in/, checkpoint: 4, highlight: false },
    { stop: /completed 4 in/, checkpoint: 4, highlight: false },
    { stop: /completed 5 in/, checkpoint: 5, highlight: false },
    { stop: /completed 4 in/, checkpoint: 4, highlight: false },
    { stop: /completed 7 in/, checkpoint: 7, highlight: false },
  ],
};

async function atStep(page, id, n) {
  await page.waitForSelector(`#tutorial[data-tutorial="${id}"][data-step="${n}"]`, { timeout: 30000 });
  // The page's own fingerprint (status bar) is the step's.
  await page.waitForFunction(() =>
    document.querySelector('#fingerprint')?.textContent.includes(
      document.querySelector('#tutorial-fingerprint')?.textContent), null, { timeout: 10000 });
  return (await text(page, '#tutorial-fingerprint')).trim();
}

/** Checks what step `n` (1-based) of `id` must show; returns the History durations for §10. */
async function checkStep(page, id, n) {
  const want = EXPECT[id][n - 1];
  if (await page.locator('#tutorial-error').count() > 0) {
    assert.fail(`${id} step ${n}: ${await text(page, '#tutorial-error')}`);
  }
  const stop = (await text(page, '#tutorial-stop')).replace(/\s+/g, ' ').trim();
  assert.match(stop, want.stop, `${id} step ${n}`);
  assert.match(await text(page, '#job-status'), /paused/, `${id} step ${n} is paused`);
  assert.equal(await text(page, '#tutorial-step-count'), `Step ${n} of ${EXPECT[id].length}`);
  const selected = await page.locator('#job-graph .subtask.selected').count();
  assert.equal(selected, want.highlight ? 1 : 0, `${id} step ${n} highlight`);
  // Pointing at a subtask selects it; only a click opens its fault menu.
  assert.equal(await page.locator('#fault-menu').count(), 0, `${id} step ${n}: no fault menu`);
  // The stop time is the status bar's time.
  const at = stop.match(/at (\d+\.\d{3} s)/);
  if (at) assert.match(await text(page, '#sim-time'), new RegExp(at[1].replace('.', '\\.')));
  if (want.inspector) assert.match(await text(page, '#inspector-panel'), want.inspector, `${id} step ${n}`);
  if (want.checkpoint) {
    const row = page.locator(`#checkpoint-history tr.selected[data-id="${want.checkpoint}"]`);
    await row.waitFor({ timeout: 5000 });
    const cells = await row.locator('td').allTextContents();
    // Columns by their header, so that a new History column does not shift them.
    const heads = (await page.locator('#checkpoint-history thead th').allTextContents()).map((h) => h.trim());
    const [acks, e2e] = [heads.indexOf('Acks'), heads.indexOf('End to End')];
    assert.ok(acks >= 0 && e2e >= 0, `History columns: ${heads}`);
    if (want.acks) {
      // Still pending: IN_PROGRESS with some subtasks acknowledged.
      assert.equal(await row.getAttribute('data-status'), 'IN_PROGRESS', `${id} step ${n}`);
      assert.equal(cells[acks], want.acks, `${id} step ${n}`);
      return null;
    }
    assert.equal(await row.getAttribute('data-status'), 'COMPLETED', `${id} step ${n}`);
    assert.match(cells[acks], /^(\d+)\/\1$/, `${id} step ${n}: every subtask acknowledged`);
    return cells[e2e].trim();
  }
  return null;
}

test('the picker lists the eight tutorials and opens one', async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#barrierlab', { timeout: 15000 });
  await page.click('#tutorials-open');
  await page.waitForSelector('#tutorial-picker', { timeout: 5000 });
  const ids = await page.$$eval('.tutorial-pick', (b) => b.map((x) => x.dataset.id));
  assert.deepEqual(ids, Object.keys(EXPECT));
  await screenshot(page, 'tutorial-picker');
  await page.click('.tutorial-pick[data-id="alignment"]');
  await atStep(page, 'alignment', 1);
  assert.match(page.url(), /#tutorial=alignment&step=1$/);
  assert.equal(await page.inputValue('#tutorial-link'), page.url());
  await page.click('#tutorial-close');
  assert.equal(await page.locator('#tutorial').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

// State backends, step 4: after the compaction the whole state is uploaded again (checkpointed =
// full size), and the inspector lists the keyed subtask's SST files: one new L0 file and the
// compacted level; the task learns that checkpoint 5 holds them with notifyCheckpointComplete.
async function compactionChecks(page) {
  await panelShot(page, '#checkpoints', 'state-backends-history');
  await page.click('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="1"]');
  await page.waitForSelector('#insp-rocksdb');
  const levels = await page.$$eval('#insp-rocksdb tbody tr', (r) => r.map((x) => x.dataset.level));
  assert.deepEqual(levels, ['0', '1'], `${levels}`);
  assert.match(await page.textContent('#insp-rocksdb'), /2 SST file\(s\).*incremental/);
  await panelShot(page, '#inspector-panel', 'state-backends-rocksdb-files');
}

// State backends, step 5: on ForSt the inspector names the backend and says the files are on
// checkpoint storage already, referenced rather than uploaded.
async function forstChecks(page) {
  await page.click('#job-graph .vertex[data-vertex="1"] .subtask[data-subtask="0"]');
  await page.waitForSelector('#insp-rocksdb');
  const t = await page.textContent('#insp-rocksdb');
  assert.match(t, /ForSt files \(ForStStateBackend\)/);
  assert.match(t, /on checkpoint storage \(ForSt's primary directory\): checkpoints refer to them, never upload them/);
  await panelShot(page, '#inspector-panel', 'state-backends-forst-files');
}

for (const id of Object.keys(EXPECT)) {
  test(`tutorial ${id}: every step stops on its condition; Back and links are exact`, async () => {
    const { page, errors } = await openPage(browser, `${site.url}#tutorial=${id}&step=1`);
    const n = EXPECT[id].length;
    const prints = [];
    const durations = [];
    for (let k = 1; k <= n; k++) {
      if (k > 1) await page.click('#tutorial-next');
      prints.push(await atStep(page, id, k));
      durations.push(await checkStep(page, id, k));
      if (k === 1) await screenshot(page, `tutorial-${id}-first`);
      if (id === 'state-backends' && k === 4) await compactionChecks(page);
      if (id === 'state-backends' && k === 5) await forstChecks(page);
    }
    await screenshot(page, `tutorial-${id}-last`);
    assert.equal(await page.isDisabled('#tutorial-next'), true);
    // Back re-runs from scratch to the previous stop: the same fingerprint as on the way forward.
    await page.click('#tutorial-back');
    assert.equal(await atStep(page, id, n - 1), prints[n - 2]);
    await checkStep(page, id, n - 1);
    // Played on past the stop, "run to this step again" comes back to it.
    await page.click('#play');
    await page.waitForFunction((fp) => document.querySelector('#fingerprint').textContent.trim() !== fp,
      prints[n - 2], { timeout: 10000 });
    await page.click('#tutorial-again');
    assert.equal(await atStep(page, id, n - 1), prints[n - 2]);
    // A step link in a fresh page lands on the same fingerprint.
    const other = await openPage(browser, `${site.url}#tutorial=${id}&step=${n}`);
    assert.equal(await atStep(other.page, id, n), prints[n - 1]);
    await checkStep(other.page, id, n);
    if (id === 'experiment') {
      // The job graph prints each channel's debloated buffer size; the 9-key subtask's gate
      // shrank its producers' buffers well below the 32 KB segment.
      const sizes = await other.page.$$eval('#job-graph .channel-size', (t) => t.map((x) => +x.dataset.bufferSize));
      assert.equal(sizes.length, 4, `${sizes}`);
      assert.ok(Math.min(...sizes) < 16384 && Math.max(...sizes) === 32768, `${sizes}`);
      await panelShot(other.page, '#job-graph', 'debloat-job-graph');
    }
    if (id === 'debloating') {
      // The checkpoint timeline (the tutorial card closed so that it hides none of it).
      await other.page.click('#tutorial-close');
      await panelShot(other.page, '#timeline', 'debloat-timeline');
    }
    if (id === 'state-backends') {
      // Retained checkpoints 5-7 list their SST files in shared/, each once with its reference
      // count: per subtask the compacted level and checkpoint 5's L0 file (3), checkpoint 6's
      // (2) and checkpoint 7's (1). Checkpoints 1-4's files were deleted.
      await other.page.waitForSelector('#storage-panel li.dir.shared .shared-file', { timeout: 20000 });
      await other.page.waitForFunction(() =>
        document.querySelectorAll('#storage-panel li.dir.shared .shared-file').length === 8, null, { timeout: 20000 });
      const refs = await other.page.$$eval('#storage-panel li.dir.shared .shared-file', (r) => r.map((x) => +x.dataset.refs));
      assert.deepEqual(refs.sort(), [1, 1, 2, 2, 3, 3, 3, 3], `${refs}`);
      assert.match(await other.page.textContent('#storage-panel li.dir.shared'), /000005\.sst/);
      const dirs = await other.page.$$eval('#storage-panel li.dir.checkpoint', (d) => d.map((x) => x.dataset.id));
      assert.deepEqual(dirs, ['5', '6', '7']);
      await panelShot(other.page, '#storage-panel', 'state-backends-shared-files');
    }
    assert.deepEqual(other.errors, []);
    await other.page.close();
    if (id === 'experiment') {
      // Seed 000 §10: aligned ~ms, aligned under backpressure ~s, unaligned ~ms again.
      const ms = durations.map((d) => (d.endsWith(' s') ? parseFloat(d) * 1000 : parseFloat(d)));
      assert.ok(ms[0] < 50 && ms[1] > 1000 && ms[2] < 50, durations.join(', '));
      assert.ok(ms[3] > 900 && ms[3] < 1200, durations.join(', '));
      // §10.3, buffer debloating: just under the 1 s target (real Flink 2.3: 0.92-0.96 s).
      assert.ok(ms[5] > 800 && ms[5] < 1100, durations.join(', '));
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('bad tutorial links say why and show the picker', async () => {
  const { page, errors } = await openPage(browser, `${site.url}#tutorial=nope&step=1`);
  await page.waitForSelector('#tutorial-error', { timeout: 15000 });
  assert.match(await text(page, '#tutorial-error'), /There is no tutorial “nope”.*who-triggers/);
  assert.equal(await page.locator('.tutorial-pick').count(), 8);
  await screenshot(page, 'tutorial-bad-id');
  await page.evaluate(() => { location.hash = '#tutorial=alignment&step=9'; });
  await page.waitForFunction(() => /has 4 steps; there is no step 9/.test(document.querySelector('#tutorial-error')?.textContent ?? ''), null, { timeout: 5000 });
  await page.evaluate(() => { location.hash = '#tutorial=alignment&step=x'; });
  await page.waitForFunction(() => /not a step number/.test(document.querySelector('#tutorial-error')?.textContent ?? ''), null, { timeout: 5000 });
  // A pasted step link opens the step in the running page.
  await page.evaluate(() => { location.hash = '#tutorial=unaligned&step=2'; });
  await atStep(page, 'unaligned', 2);
  // Scenario links still work beside tutorial links.
  assert.deepEqual(errors, []);
  await page.close();
});
