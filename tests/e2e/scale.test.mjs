// A production-sized job in the browser (issue #16): 8 operators x 512 subtasks open, run and
// stay usable. The job graph folds subtasks and channels (with a drill-down), the timeline draws
// only the rows in view, the backpressure table lists vertices and the worst subtasks. Frame
// figures and memory are printed, never judged; only gross breakage fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, panelShot, cliLink, simSeconds } from './harness.mjs';

const ROOT = new URL('../..', import.meta.url).pathname;
let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });


/** rAF intervals over `ms`: p50, p95, max and count. */
async function frames(page, ms) {
  const t = await page.evaluate((ms) => new Promise((done) => {
    const t = []; const start = performance.now();
    const f = (now) => { t.push(now); if (now - start < ms) requestAnimationFrame(f); else done(t); };
    requestAnimationFrame(f);
  }), ms);
  const d = t.slice(1).map((x, i) => x - t[i]).sort((a, b) => a - b);
  return { n: d.length, p50: d[d.length >> 1], p95: d[Math.floor(d.length * 0.95)], max: d[d.length - 1] };
}

test('a 4096-subtask job opens, runs and stays usable', async () => {
  const link = cliLink(`${ROOT}tests/fixtures/scale/job-4096.json`);
  const { page, errors } = await openPage(browser, `${site.url}${link}`, { width: 1400, height: 900 });
  await page.waitForSelector('#consent', { timeout: 30000 });
  // The click's handler builds the job: dispatched from a timer so the click itself returns.
  const t0 = Date.now();
  await page.evaluate(() => setTimeout(() => document.getElementById('consent-run').click(), 0));
  await page.waitForFunction(() => document.querySelectorAll('.job-graph .vertex').length === 8,
    null, { timeout: 120000, polling: 250 });
  const openMs = Date.now() - t0;

  // Folded: 64 cells a vertex, no per-subtask box in the graph, at most 64 rows an edge.
  assert.equal(await page.locator('.job-graph .subtask-group').count(), 8 * 64);
  assert.equal(await page.locator('.job-graph .subtask[data-subtask]').count(), 0);
  const rows = await page.$$eval('.job-graph .edge', (es) => es.map((e) => e.querySelectorAll('.channel').length));
  assert.ok(rows.every((n) => n >= 1 && n <= 64), `channel rows per edge: ${rows}`);
  assert.match(await page.getAttribute('.job-graph .edge', 'aria-label') ?? '', /262144 channels/);

  // Drill down: a cell of the keyed count lists its 8 subtasks; one opens in the inspector.
  await page.click('.job-graph .vertex[data-vertex="1"] .subtask-group[data-first="8"]');
  await page.waitForSelector('#subtask-drill');
  assert.equal(await page.locator('#subtask-drill .subtask-chip').count(), 8);
  await page.click('#subtask-drill .subtask-chip[data-subtask="11"]');
  await page.waitForSelector('#insp-title');
  assert.match(await page.textContent('#insp-title'), /count #11/);

  // It runs: simulated time moves, and the page answers between frames.
  const s0 = await simSeconds(page);
  const w0 = Date.now();
  const oneX = await frames(page, 4000);
  const s1 = await simSeconds(page);
  assert.ok(s1 > s0, `simulated time moved: ${s0} -> ${s1}`);
  assert.ok(oneX.n >= 3 && oneX.max < 5000, `the page stopped drawing: ${JSON.stringify(oneX)}`);
  const rate = (s1 - s0) / ((Date.now() - w0) / 1000);

  // The first checkpoint's 4096 subtask rows: the timeline scrolls and draws only what is in view.
  await page.waitForSelector('.timeline-scroll.tall', { timeout: 240000 });
  const total = Number(await page.getAttribute('.timeline-scroll.tall', 'data-rows'));
  assert.ok(total > 4096, `rows: ${total}`);
  const drawn = await page.locator('.timeline .tl-row.subtask').count();
  assert.ok(drawn > 0 && drawn < 300, `rows drawn: ${drawn} of ${total}`);
  await page.$eval('.timeline-scroll.tall', (e) => { e.scrollTop = e.scrollHeight; });
  await page.waitForFunction(() => [...document.querySelectorAll('.timeline .tl-label')]
    .some((t) => /^sink: Writer #511$/.test(t.textContent)), null, { timeout: 10000 });

  // A completed checkpoint's details: an operator's 512 subtasks a page of 128 at a time.
  await page.click('#tab-history');
  await page.waitForSelector('#checkpoint-history tr[data-status="COMPLETED"]', { timeout: 240000 });
  await page.click('#checkpoint-history tr[data-status="COMPLETED"]');
  await page.click('#checkpoint-details .operator-row');
  assert.equal(await page.locator('#checkpoint-details .subtasks tbody tr').count(), 128);
  assert.match(await page.textContent('#checkpoint-details .subtask-pager'), /subtasks 0–127 of 512/);
  await page.click('#checkpoint-details .pager-next');
  await page.waitForFunction(() => /subtasks 128–255 of 512/
    .test(document.querySelector('#checkpoint-details .subtask-pager')?.textContent ?? ''));
  assert.equal(await page.locator('#checkpoint-details .subtasks tbody tr').count(), 128);

  // The backpressure table: each vertex, then the 50 most backpressured subtasks.
  assert.match(await page.textContent('#backpressure-summary'), /4096 subtasks/);
  assert.equal(await page.locator('#backpressure-table tbody tr').count(), 8 + 50);

  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  assert.ok(nodes < 60000, `DOM nodes: ${nodes}`);
  await page.selectOption('#speed', 'max');
  const maxSpeed = await frames(page, 4000);
  const memory = await page.evaluate(() => window.barrierlabWasmMemory?.buffer?.byteLength ?? 0);
  console.log(`job-4096: opened in ${openMs} ms, ${nodes} DOM nodes, ${drawn} of ${total} timeline rows drawn; ` +
    `${rate.toFixed(2)} simulated s per wall s at 1x; rAF 1x p50 ${oneX.p50.toFixed(1)} / p95 ${oneX.p95.toFixed(1)} ms, ` +
    `max speed p50 ${maxSpeed.p50.toFixed(1)} / p95 ${maxSpeed.p95.toFixed(1)} ms; wasm memory ${(memory / 2 ** 20).toFixed(0)} MiB ` +
    `(${(memory / 4096 / 1024).toFixed(1)} KiB per subtask, the page's whole heap over its subtasks)`);
  await panelShot(page, '#job-graph', 'scale-4096-job-graph');
  await panelShot(page, '#timeline', 'scale-4096-timeline');
  assert.deepEqual(errors, []);
  await page.close();
});
