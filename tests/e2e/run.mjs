// Runs every *.test.mjs here with node's test runner, prints the spec report, then one summary
// line of passed/failed counts; exits non-zero on any failure.
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.test.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()
  .map((f) => join(here, f));

let passed = 0;
let failed = 0;
// A file's time limit, never below the soak test's own (soak.test.mjs: SOAK_SECONDS, 120 by
// default, after a warm-up of at most WARM_UP_WALL_MAX = 900 s, plus 60 s): a slow machine that
// warms up in 750 s must not be cut off by the runner before the test's own bound.
const timeout = Math.max(120_000, (Number(process.env.SOAK_SECONDS ?? 120) + 900 + 120) * 1000);
const stream = run({ files, concurrency: 1, timeout });
stream.on('test:pass', (t) => { if (t.details?.type !== 'suite' && t.nesting >= 0) passed++; });
stream.on('test:fail', (t) => { if (t.details?.type !== 'suite') failed++; });
stream.compose(spec).pipe(process.stdout);
stream.on('end', () => {
  // Files themselves report as tests at nesting 0 when run in isolation; count leaf tests only.
  console.log(`\ne2e: ${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
});
