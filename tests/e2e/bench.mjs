// The browser benchmark (issue #16): `node tests/e2e/bench.mjs` after `trunk build --release`.
// Not a test: it prints figures and judges none (a shared machine is too noisy to time).
//  - the engine natively (`barrierlab bench`, release build) beside the bare-loop floor;
//  - the same engine in Chromium (`window.barrierlabBench`, the page's wasm, no UI), with its
//    fingerprint, which must equal the native one (determinism across builds);
//  - the same again in the page's Web Worker (`barrierlab-worker`, what Compare modes runs in);
//  - bench-512 and the 4096-subtask job in the playground, with the UI drawing: simulated seconds
//    per wall second, rAF intervals and the work of each tick, at 1x and at max speed.
// BENCH_SECONDS (default 10) sets the engine runs' simulated seconds; BENCH_PLAYGROUND_ONLY=1 skips the
// engine runs (native, page, worker) and measures only the playground.
import { execFileSync } from 'node:child_process';
import { serveDist, launch, pause, releaseLink, openConsenting } from './harness.mjs';
import { INSTRUMENT, measure, fmt } from './frames.mjs';

const ROOT = new URL('../..', import.meta.url).pathname;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const cli = (...args) => execFileSync('cargo', ['run', '-q', '--release', '-p', 'barrierlab-cli', '--', ...args],
  { encoding: 'utf8', cwd: ROOT, maxBuffer: 1 << 26 });

const ONLY_PLAYGROUND = process.env.BENCH_PLAYGROUND_ONLY === '1';
console.log('# native');
const native = ONLY_PLAYGROUND ? '(skipped: BENCH_PLAYGROUND_ONLY=1)\n' : cli('bench', '--repeat', '1', '--large-seconds', String(SECONDS));
process.stdout.write(native);
const nativeRate = {};
const nativeFp = {};
for (const m of native.matchAll(/bench-512 on (\d+) TaskManager.*?([\d.]+) M record-hops\/s, fingerprint (\w+)/g)) {
  nativeRate[m[1]] = Number(m[2]);
  nativeFp[m[1]] = m[3];
}

const site = await serveDist({ isolated: true });
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await page.addInitScript(INSTRUMENT);
await page.goto(site.url);
await page.waitForSelector('#sim-time', { timeout: 60000 });
await pause(page);

console.log('\n# the engine in Chromium (main thread, no UI)');
for (const tms of ONLY_PLAYGROUND ? [] : [1, 8]) {
  const r = JSON.parse(await page.evaluate(([s, t]) => window.barrierlabBench(s, t), [SECONDS, tms]));
  if (r.error) throw new Error(r.error);
  const rate = r.record_hops / r.wall_ms / 1e3;
  const same = nativeFp[tms] === undefined ? 'no native run' : nativeFp[tms] === r.fingerprint ? 'same as native' : `DIFFERS from native ${nativeFp[tms]}`;
  console.log(`bench-512 on ${tms} TaskManager(s): ${SECONDS} s simulated in ${(r.wall_ms / 1000).toFixed(2)} s wall, ` +
    `${rate.toFixed(1)} M record-hops/s (${nativeRate[tms] ? (rate / nativeRate[tms]).toFixed(2) + 'x native' : 'no native figure'}), ` +
    `fingerprint ${r.fingerprint} (${same})`);
  snapshotLines('main thread', r);
}

console.log('\n# the engine in the page\'s Web Worker (barrierlab-worker, no UI)');
for (const tms of ONLY_PLAYGROUND ? [] : [1, 8]) {
  const answer = await page.evaluate(([s, t]) => new Promise((ok, fail) => {
    const w = new Worker('./worker-loader.js');
    w.onerror = () => fail(new Error('the worker did not start'));
    w.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m === 'Ready') w.postMessage(JSON.stringify({ Bench: { seconds: s, taskmanagers: t } }));
      else if (m.Bench) { w.terminate(); ok(m.Bench); }
      else if (m.Error) { w.terminate(); fail(new Error(m.Error)); }
    };
  }), [SECONDS, tms]);
  if (answer.Err) throw new Error(answer.Err);
  const r = answer.Ok;
  const rate = r.record_hops / r.wall_ms / 1e3;
  const same = nativeFp[tms] === undefined ? 'no native run' : nativeFp[tms] === r.fingerprint ? 'same as native' : `DIFFERS from native ${nativeFp[tms]}`;
  console.log(`bench-512 on ${tms} TaskManager(s): ${SECONDS} s simulated in ${(r.wall_ms / 1000).toFixed(2)} s wall, ` +
    `${rate.toFixed(1)} M record-hops/s (${nativeRate[tms] ? (rate / nativeRate[tms]).toFixed(2) + 'x native' : 'no native figure'}), ` +
    `${(SECONDS * 1000 / r.wall_ms).toFixed(2)} simulated s per wall s, fingerprint ${r.fingerprint} (${same})`);
  snapshotLines('worker', r);
}
await page.close();

/** The snapshot figures of a bench answer: what handing a job to the page costs there. */
function snapshotLines(where, r) {
  for (const [job, c] of [['bench-512 at its end', r.snapshot], ['seed-demo at 30 s', r.demo_snapshot]]) {
    console.log(`  ${where}, snapshot of ${job}: ${(c.bytes / 1024).toFixed(1)} KB, written in ${c.write_ms.toFixed(2)} ms, ` +
      `read in ${c.read_ms.toFixed(2)} ms; update after 100 ms more: ${(c.update_bytes / 1024).toFixed(1)} KB, ` +
      `written in ${c.update_write_ms.toFixed(2)} ms, applied in ${c.update_apply_ms.toFixed(2)} ms ` +
      `(the next in ${c.update_reuse_ms.toFixed(2)} ms, into the memory of the version before, as the page does)`);
  }
}

/** Opens `file` as a link (consenting if asked), plays it at 1x then max, prints the figures. */
async function playground(file) {
  const link = releaseLink(`${ROOT}${file}`);
  const p = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await p.addInitScript(INSTRUMENT);
  const t0 = Date.now();
  await openConsenting(p, `${site.url}${link}`);
  const opened = Date.now() - t0;
  const isolated = await p.evaluate(() => window.crossOriginIsolated);
  const out = [`${file}: open ${opened} ms (${isolated ? 'cross-origin isolated: the clock ticks in 5 µs' : 'not isolated: the clock ticks in 100 µs'})`];
  for (const speed of ['1', 'max']) {
    await p.selectOption('#speed', speed);
    // The first window starts after the job's first seconds: the hand-over to the worker and
    // its first, unasked update (a whole job of 6-21 MB) are not the pace it keeps.
    await p.waitForTimeout(speed === '1' ? 4000 : 1000);
    const where = (await p.locator('#sim-worker').count()) ? 'in the worker' : 'on the page';
    // The page's simulated time moves at each update the worker posts (a large job's come 0.3-1.2 s
    // apart), so the pace is read between the first and the last move seen in the window: the
    // simulated time the updates carried over the wall clock between them.
    await p.evaluate(() => {
      const moves = window.__simMoves = [];
      let last = null;
      window.__simSampler = setInterval(() => {
        const m = document.getElementById('sim-time')?.dataset.micros;
        if (m !== undefined && m !== last) { last = m; moves.push([performance.now(), Number(m)]); }
      }, 10);
    });
    // The worker's own shares of its time (the status bar's data, one per update it posts).
    const loads = new Map();
    const sampler = setInterval(() => p.evaluate(() => {
      const e = document.getElementById('sim-worker');
      return e && e.dataset.stepping ? `${e.dataset.stepping} ${e.dataset.writing} ${e.dataset.pace}` : null;
    }).then(l => { if (l) loads.set(l, l.split(' ').map(Number)); }).catch(() => {}), 250);
    const f = await measure(p, 6000);
    clearInterval(sampler);
    const moves = await p.evaluate(() => { clearInterval(window.__simSampler); return window.__simMoves.slice(1); });
    const [first, last] = [moves[0], moves[moves.length - 1]];
    const rate = moves.length > 1 ? (last[1] - first[1]) / 1e3 / (last[0] - first[0]) : NaN;
    const mean = i => [...loads.values()].reduce((a, l) => a + l[i], 0) / loads.size;
    const load = loads.size ? `; the worker: ${mean(2).toFixed(2)} simulated s per wall s, ${(mean(0) * 100).toFixed(0)} % simulating, ${(mean(1) * 100).toFixed(0)} % writing updates (mean of ${loads.size} updates seen)` : '';
    const span = moves.length > 1 ? `over ${moves.length - 1} updates in ${((last[0] - first[0]) / 1000).toFixed(1)} s` : 'fewer than two updates seen';
    out.push(`  ${speed === '1' ? '1x ' : 'max'}: ${rate.toFixed(2)} simulated s per wall s (${span}; the job plays ${where}${load}); ${fmt(f)}`);
  }
  const mem = await p.evaluate(() => window.barrierlabWasmMemory?.buffer?.byteLength ?? 0);
  const nodes = await p.evaluate(() => document.getElementsByTagName('*').length);
  out.push(`  wasm memory ${(mem / 2 ** 20).toFixed(0)} MiB, ${nodes} DOM nodes`);
  console.log(out.join('\n'));
  await p.close();
}

console.log('\n# the playground, UI drawing (the job plays in the worker; the page applies its updates and draws)');
await playground('tests/fixtures/scale/bench-512.json');
await playground('tests/fixtures/scale/job-4096.json');
await browser.close();
await site.close();
