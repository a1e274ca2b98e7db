// A real Flink 2.3 config.yaml pasted into the configuration panel: the keys the simulator models
// change the job (parallelism.default reaches the job graph), the other Flink keys are accepted and
// listed as not modelled, an unknown key is refused naming its line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, panelShot } from './harness.mjs';
import { readFileSync } from 'node:fs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

/** Types into an input and commits it (change event). */
async function type(page, selector, text) {
  await page.fill(selector, text);
  await page.press(selector, 'Tab');
}

// Flink 2.3's shipped conf/config.yaml (its uncommented keys, nested as shipped) plus what a
// production job sets: RocksDB, a checkpoint directory, parallelism 4 on TaskManagers of 2 slots.
// The shared part is tests/fixtures/flink-2.3-config.yaml, which the engine's tests read too.
const CONFIG_YAML = readFileSync(new URL('../fixtures/flink-2.3-config.yaml', import.meta.url), 'utf8')
  + `execution:
  checkpointing:
    interval: 5s
    dir: file:///var/flink/checkpoints
`;

const vertexParallelism = async (page) =>
  (await page.locator('#job-graph .vertex .vertex-meta').allTextContents()).map((t) => t.trim());

test('a real config.yaml is accepted: modelled keys apply, the others are listed as not modelled', async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#sim-time', { timeout: 15000 });

  // Operators that set no parallelism of their own take parallelism.default: leave it empty on
  // everything behind the source (a forward chain, so they stay one vertex).
  const ops = await page.locator('.op-row').count();
  assert.ok(ops >= 3, `only ${ops} operators`);
  for (let i = 1; i < ops; i++) await type(page, `#op-${i}-parallelism`, '');
  assert.equal(await page.getAttribute('#op-1-parallelism', 'placeholder'), '1');
  await page.click('#editor-apply');
  await page.waitForFunction(() => document.querySelector('#job-graph')?.textContent.includes('Parallelism: 1'));
  assert.deepEqual(await vertexParallelism(page), ['Parallelism: 2', 'Parallelism: 1']);

  // An unknown key: refused, naming the line and the close key; nothing applies.
  await page.fill('#yaml', CONFIG_YAML.replace('  numberOfTaskSlots: 2', '  numberOfTaskSlot: 2'));
  await page.click('#yaml-apply');
  await page.waitForSelector('#yaml-errors li');
  assert.match(await page.textContent('#yaml-errors'),
    /line 19: unknown key 'taskmanager\.numberOfTaskSlot': not a Flink 2\.3 configuration key; did you mean 'taskmanager\.numberOfTaskSlots'\?/);
  assert.equal(await page.locator('#yaml-notes').count(), 0);
  assert.deepEqual(await vertexParallelism(page), ['Parallelism: 2', 'Parallelism: 1']);

  // The real file: accepted, the job restarts with parallelism 4.
  await page.fill('#yaml', CONFIG_YAML);
  await page.click('#yaml-apply');
  await page.waitForFunction(() => document.querySelector('#job-graph')?.textContent.includes('Parallelism: 4'));
  assert.equal(await page.locator('#yaml-errors').count(), 0);
  assert.deepEqual(await vertexParallelism(page), ['Parallelism: 2', 'Parallelism: 4']);

  // The notes are visible: every unmodelled key with its line, and the TaskManagers sized.
  const notes = page.locator('#yaml-notes');
  assert.ok(await notes.isVisible(), 'the notes are not visible');
  const items = (await notes.locator('li').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
  for (const expected of [
    /^line 5 env\.java\.opts\.all: not modelled$/,
    /^line 9 jobmanager\.rpc\.address: not modelled$/,
    /^line 13 jobmanager\.memory\.process\.size: not modelled: memory is not simulated$/,
    /^line 19 taskmanager\.numberOfTaskSlots: the job needs 4 slots: the cluster gets 2 TaskManagers of 2 slots/,
    /^line 26 rest\.address: not modelled/,
  ]) {
    assert.ok(items.some((t) => expected.test(t)), `no note ${expected} in ${JSON.stringify(items, null, 1)}`);
  }
  // state.backend.type: rocksdb (line 28) is modelled: no note, and the table shows it.
  assert.ok(!items.some((t) => /state\.backend\.type/.test(t)), JSON.stringify(items, null, 1));
  assert.equal(items.length, 12, JSON.stringify(items, null, 1));
  assert.match(await notes.textContent(), /Applied\. 12 notes:/);
  await notes.scrollIntoViewIfNeeded();
  await panelShot(page, '#config-panel', 'config-yaml-notes');

  // The modelled keys show in the table and the editor.
  const value = (key) => page.inputValue(`#config-table tr[data-key="${key}"] input`);
  assert.equal(await value('parallelism.default'), '4');
  assert.equal(await value('execution.checkpointing.dir'), 'file:///var/flink/checkpoints');
  assert.equal(await value('execution.checkpointing.interval'), '5s');
  assert.equal(await value('state.backend.type'), 'rocksdb');
  assert.equal(await page.getAttribute('#op-1-parallelism', 'placeholder'), '4');
  assert.equal(await page.inputValue('#op-1-parallelism'), '');
  assert.equal(await page.inputValue('#op-0-parallelism'), '2');

  assert.deepEqual(errors, []);
  await page.close();
});
