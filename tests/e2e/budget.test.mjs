// Hostile scenarios in the browser (issue #18): the worst cases of `barrierlab fuzz-scenarios`
// (tests/fixtures/scenario-fuzz/) open as links. Over-budget ones wait for consent while the
// running job goes on; the costliest accepted ones run, and the page keeps answering. The editor
// shows the same estimate and asks before applying a scenario beyond the budget.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { serveDist, launch, openPage, panelShot, cliLink, simSeconds } from './harness.mjs';

const ROOT = new URL('../..', import.meta.url).pathname;
const CORPUS = `${ROOT}tests/fixtures/scenario-fuzz`;
let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });


/** How long the page takes to answer a round trip through its event loop, in ms. */
async function answerMs(page) {
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
  return Date.now() - t0;
}

const files = (prefix) => readdirSync(CORPUS).filter((f) => f.startsWith(prefix)).sort();

test('an over-budget link asks first; the demo waits and nothing starts until "Run anyway"', async () => {
  const over = files('over-budget-');
  assert.ok(over.length >= 1, 'the corpus holds over-budget cases');
  for (const file of over.slice(0, 3)) {
    const { page, errors } = await openPage(browser, `${site.url}${cliLink(`${CORPUS}/${file}`)}`);
    await page.waitForSelector('#consent', { timeout: 20000 });
    const text = await page.textContent('#consent');
    assert.match(text, /over the cost budget/);
    assert.match(text, /above the budget/, `${file}: the estimate and the budget are named`);
    assert.ok(await answerMs(page) < 5000, 'the page answers while the question is open');
    await page.click('#consent-cancel');
    assert.equal(await page.locator('#consent').count(), 0);
    assert.deepEqual(errors, [], file);
    await page.close();
  }
});

test('the costliest accepted fuzz cases run in the page, which keeps answering', async () => {
  const costly = files('costliest-');
  assert.ok(costly.length >= 1, 'the corpus holds the costliest accepted cases');
  for (const file of costly.slice(0, 4)) {
    const { page, errors } = await openPage(browser, `${site.url}${cliLink(`${CORPUS}/${file}`)}`);
    await page.waitForSelector('#sim-time', { timeout: 20000 });
    assert.equal(await page.locator('#consent').count(), 0, `${file} is within the budget`);
    const t0 = await simSeconds(page);
    const waits = [];
    for (let i = 0; i < 5; i++) {
      waits.push(await answerMs(page));
      await page.waitForTimeout(400);
    }
    const t1 = await simSeconds(page);
    console.log(`  ${file}: simulated ${t0} -> ${t1} s in ~2 s, event-loop round trips ${waits.join(', ')} ms`);
    assert.ok(t1 > t0, `${file}: the job advances`);
    assert.ok(Math.max(...waits) < 5000, `${file}: the page answers`);
    assert.deepEqual(errors, [], file);
    await page.close();
  }
});

const HEAVY = ['--preset', 'seed-demo',
  ...['datagen', 'count-per-key', 'checkpoint-aware-map', 'discard-sink']
    .flatMap((op) => ['--set', `operator.${op}.parallelism=256`]),
  '--set', 'execution.checkpointing.interval=10ms'];

test('the editor shows the estimate; applying a draft over the budget asks, and the job goes on', async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#sim-time', { timeout: 20000 });
  await page.waitForSelector('#editor-cost');
  assert.match(await page.textContent('#editor-cost'), /Cost estimate: .* per simulated second/);
  assert.equal(await page.locator('#editor-cost.over').count(), 0);
  // 600 subtasks per operator: 360,000 channels over the hash edge, past the channel budget.
  for (let i = 0; i < 4; i++) {
    await page.fill(`#op-${i}-parallelism`, '600');
    await page.press(`#op-${i}-parallelism`, 'Tab');
  }
  await page.waitForSelector('#editor-cost.over');
  assert.match(await page.textContent('#editor-cost'), /applying asks first/);
  await panelShot(page, '#editor-panel', 'budget-editor-over');
  const before = await simSeconds(page);
  await page.click('#editor-apply');
  await page.waitForSelector('#consent');
  await panelShot(page, '#consent', 'budget-consent');
  assert.match(await page.textContent('#consent'), /channels/);
  await page.waitForTimeout(800);
  assert.ok(await simSeconds(page) > before, 'the demo keeps running while the question is open');
  await page.click('#consent-cancel');
  assert.equal(await page.locator('#consent').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('"Run anyway" runs an over-budget link, and a reset does not ask again', async () => {
  const { page, errors } = await openPage(browser, `${site.url}${cliLink(...HEAVY)}`);
  await page.waitForSelector('#consent', { timeout: 20000 });
  await page.click('#consent-run');
  await page.waitForFunction(() => !document.querySelector('#consent'));
  // The editor shows the running job: the link's, at 256 subtasks per operator.
  await page.waitForFunction(() => document.querySelector('#op-0-parallelism')?.value === '256',
    null, { timeout: 20000 });
  const t0 = await simSeconds(page);
  await page.waitForTimeout(1500);
  const t1 = await simSeconds(page);
  const wait = await answerMs(page);
  console.log(`  heavy job by consent: simulated ${t0} -> ${t1} s in 1.5 s, event-loop round trip ${wait} ms`);
  assert.ok(t1 > t0, 'the heavy job runs');
  assert.ok(wait < 5000, 'the page answers with the heavy job running');
  await page.click('#reset');
  await page.waitForTimeout(300);
  assert.equal(await page.locator('#consent').count(), 0, 'a reset of a consented job does not ask');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the configuration panel and a pasted config.yaml go through the same estimate and question', async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#sim-time', { timeout: 20000 });
  // Every operator on parallelism.default (1), so the configuration decides the job's size.
  for (let i = 0; i < 4; i++) {
    await page.fill(`#op-${i}-parallelism`, '');
    await page.press(`#op-${i}-parallelism`, 'Tab');
  }
  await page.click('#editor-apply');
  await page.waitForFunction(() => document.querySelector('#job-graph')?.textContent.includes('Parallelism: 1'));
  // The table: a draft at parallelism.default 600 shows its estimate, over the budget.
  const input = page.locator('#config-table tr[data-key="parallelism.default"] input');
  await input.fill('600');
  await input.press('Tab');
  await page.waitForSelector('#config-cost.over');
  assert.match(await page.textContent('#config-cost'), /channels/);
  await page.click('#config-apply');
  await page.waitForSelector('#consent');
  await page.click('#consent-cancel');
  // The same through a pasted config.yaml.
  await page.fill('#yaml', 'parallelism.default: 600\n');
  await page.click('#yaml-apply');
  await page.waitForSelector('#consent');
  assert.match(await page.textContent('#consent'), /above the budget/);
  await page.click('#consent-cancel');
  assert.ok(await page.textContent('#job-graph').then((t) => t.includes('Parallelism: 1')), 'the job kept its size');
  assert.deepEqual(errors, []);
  await page.close();
});
