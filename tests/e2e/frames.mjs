// Frame budget of the playground while the seed demo runs: `node tests/e2e/frames.mjs [seconds]`.
// Not a test (timings on a shared machine); playground2.test.mjs runs the same measurement with a
// generous bound. Prints, at 1× and at maximum speed:
//  - rAF intervals (p50/p95/max, frames over 25 ms = at least one vsync missed);
//  - the app's own work per tick: the timer callback that advances the simulation and reduces the
//    state ("simulating and reducing"), plus the microtasks in which Yew re-renders and patches
//    the DOM (and the browser's style/layout if it renders a frame before the next task);
//  - long animation frames (> 50 ms, Chrome's long-animation-frame entries) and their blocking time.
import { serveDist, launch, openPage } from './harness.mjs';

/** Wraps setInterval before the app loads so each tick's work is timed (gloo-timers looks the
 *  global up at call time), and collects long-animation-frame entries. */
export const INSTRUMENT = () => {
  const work = []; const sync = []; const loaf = [];
  window.__frames = { work, sync, loaf };
  const orig = window.setInterval;
  window.setInterval = function (fn, ms, ...args) {
    return orig.call(window, function (...a) {
      const t = performance.now();
      try { return fn.apply(this, a); } finally {
        sync.push(performance.now() - t);
        // Yew renders in microtasks after the callback; a posted message runs once they are
        // done (and after style/layout if the browser renders a frame in between: counted too).
        const ch = new MessageChannel();
        ch.port1.onmessage = () => { work.push(performance.now() - t); ch.port1.close(); };
        ch.port2.postMessage(0);
      }
    }, ms, ...args);
  };
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) loaf.push({ d: e.duration, b: e.blockingDuration ?? 0 }); })
      .observe({ type: 'long-animation-frame', buffered: true });
  } catch { /* older Chromium: no long-animation-frame entries */ }
};

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))] : NaN; };

/** Measures `ms` of frames on `page` (already running at the wanted speed). */
export async function measure(page, ms) {
  await page.evaluate(() => { for (const k of ['work', 'sync', 'loaf']) window.__frames[k].length = 0; });
  const ts = await page.evaluate((ms) => new Promise((done) => {
    const t = []; const start = performance.now();
    const f = (now) => { t.push(now); if (now - start < ms) requestAnimationFrame(f); else done(t); };
    requestAnimationFrame(f);
  }), ms);
  const { work, sync, loaf } = await page.evaluate(() => window.__frames);
  const iv = ts.slice(1).map((t, i) => t - ts[i]);
  return {
    frames: iv.length, raf_p50: pct(iv, 0.5), raf_p95: pct(iv, 0.95), raf_max: Math.max(...iv),
    over25: iv.filter((d) => d > 25).length,
    sync_p50: pct(sync, 0.5), sync_p95: pct(sync, 0.95),
    ticks: work.length, work_p50: pct(work, 0.5), work_p95: pct(work, 0.95), work_max: Math.max(...work),
    loaf: loaf.length, loaf_blocking: loaf.reduce((a, e) => a + e.b, 0),
  };
}

export const fmt = (r) => `rAF p50 ${r.raf_p50.toFixed(1)} / p95 ${r.raf_p95.toFixed(1)} / max ${r.raf_max.toFixed(1)} ms, ` +
  `${r.over25}/${r.frames} frames > 25 ms; tick work p50 ${r.work_p50.toFixed(1)} / p95 ${r.work_p95.toFixed(1)} / ` +
  `max ${r.work_max.toFixed(1)} ms over ${r.ticks} ticks (simulating and reducing alone: p50 ${r.sync_p50.toFixed(1)} / p95 ${r.sync_p95.toFixed(1)}); ${r.loaf} long animation frames (${r.loaf_blocking.toFixed(0)} ms blocking)`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const seconds = Number(process.argv[2] ?? 5);
  const site = await serveDist(); const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.addInitScript(INSTRUMENT);
  await page.goto(site.url);
  await page.waitForSelector('#sim-time', { timeout: 60000 });
  await page.waitForTimeout(1000);
  console.log(`1x:  ${fmt(await measure(page, seconds * 1000))}`);
  await page.selectOption('#speed', 'max');
  await page.waitForTimeout(1000);
  console.log(`max: ${fmt(await measure(page, seconds * 1000))}`);
  await browser.close(); await site.close();
}
