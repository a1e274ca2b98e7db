// The page's memory over time while a job plays (issue #16): `node tests/e2e/memory.mjs` after
// `trunk build --release`. Not a test: it prints, every 15 s of wall time, the simulated time and
// the wasm memory (which never shrinks: its peak so far) and the live heap (what is allocated now,
// and the time-travel snapshots' share of it: `window.barrierlabHeap()`). JOB (default the 4096-subtask job, run
// after consent), SPEED (default max) and N (readings, default 8; 240 is an hour). Also the
// renderer process's resident memory, which holds the worker that plays the job.
import { readdirSync, readFileSync } from 'node:fs';
import { serveDist, launch, releaseLink, openConsenting } from './harness.mjs';

// The job plays in the page's Web Worker, whose wasm memory the page cannot see; the worker lives
// in the page's renderer process, so that process's resident memory (Linux /proc) covers both.
function rendererRss() {
  let kib = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      kib += Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
    } catch { /* the process ended while we read */ }
  }
  return kib * 1024;
}
const ROOT = new URL('../..', import.meta.url).pathname;
const file = process.env.JOB ?? 'tests/fixtures/scale/job-4096.json';
const link = releaseLink(`${ROOT}${file}`);
const site = await serveDist();
const browser = await launch();
const p = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await openConsenting(p, `${site.url}${link}`);
await p.selectOption('#speed', process.env.SPEED ?? 'max');
for (let i = 0; i < Number(process.env.N ?? 8); i++) {
  await p.waitForTimeout(15000);
  const mem = await p.evaluate(() => window.barrierlabWasmMemory?.buffer?.byteLength ?? 0);
  const heap = JSON.parse(await p.evaluate(() => window.barrierlabHeap?.() ?? '{"live":0,"travel":0}'));
  console.log(`${(i + 1) * 15} s wall: ${await p.textContent('#sim-time')}, wasm ${(mem / 2 ** 20).toFixed(0)} MiB, ` +
    `live ${(heap.live / 2 ** 20).toFixed(0)} MiB of which time travel ${(heap.travel / 2 ** 20).toFixed(0)} MiB, ` +
    `renderer process (page and worker) ${(rendererRss() / 2 ** 20).toFixed(0)} MiB resident`);
}
await browser.close(); await site.close();
