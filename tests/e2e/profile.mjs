// Where the page's time goes while a job plays (issue #16): a CPU profile of the playground in
// Chromium, by function. Not a test. Build with function names first, into a directory of its own:
//   CARGO_PROFILE_WASM_RELEASE_STRIP=none trunk build --release --dist /tmp/dist-names
//   DIST=/tmp/dist-names node tests/e2e/profile.mjs
// JOB (default the 4096-subtask job, run after consent), SPEED (default 1), SECONDS (default 8),
// CALLERS (a regular expression: also print the callers of the functions it matches).
import { serveDist, launch, releaseLink, openConsenting } from './harness.mjs';
const ROOT = new URL('../..', import.meta.url).pathname;
const file = process.env.JOB ?? 'tests/fixtures/scale/job-4096.json';
const link = releaseLink(`${ROOT}${file}`);
const site = await serveDist();
const browser = await launch();
const p = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await openConsenting(p, `${site.url}${link}`);
await p.selectOption('#speed', process.env.SPEED ?? '1');
await p.waitForTimeout(5000);
const cdp = await p.context().newCDPSession(p);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
await p.waitForTimeout(1000 * Number(process.env.SECONDS ?? 8));
const { profile } = await cdp.send('Profiler.stop');
await browser.close(); await site.close();

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (id) => (byId.get(id).callFrame.functionName || '(anonymous)').replace(/::h[0-9a-f]{16}$/, '');
const stack = (id) => { const s = []; for (let cur = id; cur !== undefined; cur = parent.get(cur)) s.push(name(cur)); return s; };
const counts = new Map();
for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
const total = profile.samples.length;
const self = new Map();
const inclusive = new Map();
const callers = new Map();
const pattern = process.env.CALLERS ? new RegExp(process.env.CALLERS) : null;
for (const [id, c] of counts) {
  const s = stack(id);
  self.set(s[0], (self.get(s[0]) ?? 0) + c);
  for (const f of new Set(s)) inclusive.set(f, (inclusive.get(f) ?? 0) + c);
  const i = pattern ? s.findIndex((f) => pattern.test(f)) : -1;
  if (i >= 0) { const k = s.slice(i, i + 4).join('  <-  '); callers.set(k, (callers.get(k) ?? 0) + c); }
}
const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k)
  .map(([n, c]) => `${(100 * c / total).toFixed(1).padStart(5)} %  ${n.slice(0, 160)}`).join('\n');
console.log(`${total} samples of 0.2 ms\n--- self ---\n${top(self, 30)}\n--- inclusive ---\n${top(inclusive, 40)}`);
if (pattern) console.log(`--- callers of /${process.env.CALLERS}/ ---\n${top(callers, 12)}`);
