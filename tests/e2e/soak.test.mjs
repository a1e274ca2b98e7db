// A long run at maximum speed stays flat in memory: the module's memory (which only grows) and
// the JavaScript heap after a collection, sampled over minutes of seed-unaligned at max speed.
// SOAK_SECONDS=3600 node tests/e2e/run.mjs soak   measures an hour (the figures are printed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage } from './harness.mjs';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
// Every bounded structure must be full before the slope means anything: the stats summaries
// hold 10,000 checkpoints (50,000 simulated s), and the 16 time-travel snapshots peak just before
// each thinning (about 131,000, 262,000 and 524,000 simulated s), when the module's memory may
// take one more page-growth step. From 300,000 s a two-minute window sees no such step up to
// about 1,800 simulated s per wall s.
const WARM_UP_SIM = 300_000;
// The warm-up's wall time depends on the machine: CI machines here reach 530-1,100 simulated s
// per wall s, so 300,000 s take 270-570 s. The bound only catches a page that stopped running.
const WARM_UP_WALL_MAX = 900;
const MB = 1024 * 1024;
let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

/** Least-squares slope of ys over xs. */
function slope(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) { num += (xs[i] - mx) * (ys[i] - my); den += (xs[i] - mx) ** 2; }
  return num / den;
}

test(`seed-unaligned at max speed keeps its memory flat for ${SECONDS} s after the warm-up`, { timeout: (SECONDS + WARM_UP_WALL_MAX + 60) * 1000 }, async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#sim-time', { timeout: 15000 });
  await page.selectOption('#preset', 'seed-unaligned');
  await page.selectOption('#speed', 'max');
  const cdp = await page.context().newCDPSession(page);
  const sample = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = await cdp.send('Runtime.getHeapUsage');
    const wasm = await page.evaluate(() => window.barrierlabWasmMemory.buffer.byteLength);
    const sim = Number((await page.textContent('#sim-time')).match(/([\d.]+) s/)?.[1] ?? NaN);
    return { wasm, js: heap.usedSize, sim };
  };
  const start = Date.now();
  const wall = () => (Date.now() - start) / 1000;
  let warm = null;
  const samples = [];
  while (warm === null || wall() - warm < SECONDS) {
    await page.waitForTimeout(10_000);
    const s = await sample();
    s.t = wall();
    console.log(`soak t=${s.t.toFixed(0)} s: simulated ${s.sim.toFixed(0)} s, wasm memory ${(s.wasm / MB).toFixed(1)} MB, JS heap ${(s.js / MB).toFixed(1)} MB`);
    if (warm === null && s.sim >= WARM_UP_SIM) warm = s.t;
    if (warm === null) {
      assert.ok(s.t < WARM_UP_WALL_MAX, `${WARM_UP_SIM} simulated s not reached in ${WARM_UP_WALL_MAX} s`);
      continue;
    }
    samples.push(s);
  }
  const steady = samples;
  assert.ok(steady.length >= 3, 'too few samples after the warm-up');
  const first = steady[0];
  const last = steady[steady.length - 1];
  const minutes = (last.t - first.t) / 60;
  const wasmSlope = slope(steady.map((s) => s.t / 60), steady.map((s) => s.wasm / MB));
  const jsSlope = slope(steady.map((s) => s.t / 60), steady.map((s) => s.js / MB));
  console.log(`soak: ${((last.sim - first.sim) / (last.t - first.t)).toFixed(0)} simulated s per wall s; ` +
    `after ${WARM_UP_SIM} simulated s: wasm memory ${(first.wasm / MB).toFixed(1)} -> ${(last.wasm / MB).toFixed(1)} MB ` +
    `(slope ${wasmSlope.toFixed(2)} MB/min), JS heap ${(first.js / MB).toFixed(1)} -> ${(last.js / MB).toFixed(1)} MB ` +
    `(slope ${jsSlope.toFixed(2)} MB/min) over ${minutes.toFixed(1)} min`);
  assert.ok(last.sim > first.sim, 'the simulation did not advance');
  // Before bounding, the page grew about 13 MB/s (780 MB/min). Memory only grows in pages and
  // the allocator may take one more step late: allow 1 MB/min, a per-hour bound of 60 MB.
  assert.ok(wasmSlope < 1, `wasm memory grows ${wasmSlope.toFixed(2)} MB/min`);
  assert.ok(jsSlope < 1, `JS heap grows ${jsSlope.toFixed(2)} MB/min`);
  assert.ok(!errors.some((e) => /panicked|RuntimeError/.test(e)), errors.join('\n'));
  await page.close();
});
