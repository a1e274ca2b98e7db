// Frame times and a CPU profile of the playground at a speed: `node tests/e2e/profile.mjs max`
// (NOPROF=1 for frame times only, GREP=regex to choose the inclusive-time rows). Not a test.
import { serveDist, launch, openPage } from './harness.mjs';
const site = await serveDist(); const browser = await launch();
const { page } = await openPage(browser, site.url);
await page.waitForSelector('#sim-time');
await page.selectOption('#speed', process.argv[2] ?? 'max');
await page.waitForTimeout(1000);
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
if (!process.env.NOPROF) await cdp.send('Profiler.start');
const frames = await page.evaluate((ms) => new Promise((done) => {
  const t = []; const start = performance.now();
  const f = (now) => { t.push(now); if (now - start < ms) requestAnimationFrame(f); else done(t); };
  requestAnimationFrame(f);
}), 4000);
if (process.env.NOPROF) { const d = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b); console.log('p95', d[Math.floor(d.length * 0.95)].toFixed(1), 'p50', d[Math.floor(d.length * 0.5)].toFixed(1), 'max', d[d.length-1].toFixed(1), 'frames', d.length); process.exit(0); }
const { profile } = await cdp.send('Profiler.stop');
const d = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
console.log('p95', d[Math.floor(d.length * 0.95)].toFixed(1), 'frames', d.length);
const self = new Map();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const dt = profile.timeDeltas; const counts = new Map();
profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)));
for (const [id, us] of counts) { const n = byId.get(id); const k = n.callFrame.functionName || `(${n.callFrame.url.split('/').pop()})`; self.set(k, (self.get(k) ?? 0) + us); }
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([k, v]) => `${(v / 1000).toFixed(0).padStart(6)} ms ${(100 * v / total).toFixed(1).padStart(5)}% ${k.slice(0, 110)}`).join('\n'));
// Inclusive time per function (a node counted once per sample even if recursive).
const parent = new Map(); for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const [id, us] of counts) {
  const seen = new Set(); let cur = id;
  while (cur !== undefined) { const n = byId.get(cur); const k = n.callFrame.functionName.replace(/::h[0-9a-f]{16}$/, ''); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + us); } cur = parent.get(cur); }
}
const want = process.env.GREP ? new RegExp(process.env.GREP) : /barrierlab|yew::|components|json_report|verification|graph_model|timeline/;
console.log('--- inclusive');
console.log([...incl].filter(([k]) => want.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 45).map(([k, v]) => `${(v / 1000).toFixed(0).padStart(6)} ms ${k.slice(0, 120)}`).join('\n'));
await browser.close(); await site.close();
