// Shared setup for the browser tests: a static server over dist/ on 127.0.0.1 and Debian's
// Chromium driven by playwright-core. Chromium needs the network flags below: this machine's
// network is closed, and without them it stalls on background connections.
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { extname, join, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';

const here = dirname(fileURLToPath(import.meta.url));
export const DIST = process.env.DIST ?? join(here, '..', '..', 'dist');
export const SHOTS = join(here, 'screenshots');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
};

/**
 * Serves dist/ on an ephemeral loopback port. Resolves to { url, close, hold, requests }.
 *
 * `prefix` serves the site under a sub-path, as static hosting does (`/barrier-lab/`): `url` ends
 * with it, anything outside it is 404, and the prefix without its slash redirects to it.
 * `hold(pattern)` holds back the responses to paths matching `pattern` (a slow link) until the
 * `release()` it returns is called; `requests` lists every path asked for with its status.
 * `isolated` serves every response cross-origin isolated (COOP same-origin, COEP require-corp):
 * the page's `performance.now()` then ticks in 5 µs instead of 100 µs, which the benchmark needs
 * to tell a 16.67 ms frame from a late one.
 */
export async function serveDist({ prefix = '/', isolated = false } = {}) {
  const isolation = isolated
    ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }
    : {};
  if (!prefix.startsWith('/') || !prefix.endsWith('/')) throw new Error(`prefix ${prefix}: /…/`);
  const held = [];
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const full = decodeURIComponent(url.pathname);
    const reply = (status, headers, body) => {
      requests.push({ path: full, status });
      res.writeHead(status, { ...isolation, ...headers }).end(body);
    };
    if (full + '/' === prefix) { reply(301, { location: prefix + url.search }); return; }
    if (!full.startsWith(prefix)) { reply(404, {}, 'not found'); return; }
    const path = '/' + full.slice(prefix.length);
    const file = normalize(join(DIST, path.endsWith('/') ? path + 'index.html' : path));
    if (!file.startsWith(DIST)) { reply(403, {}); return; }
    const hold = held.find((h) => h.pattern.test(path));
    if (hold) { hold.requested(); await hold.released; }
    try {
      const body = await readFile(file);
      reply(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }, body);
    } catch {
      reply(404, {}, 'not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    origin: `http://127.0.0.1:${port}`,
    requests,
    /** Holds responses to matching paths; `requested` resolves on the first such request. */
    hold(pattern) {
      const h = { pattern };
      h.released = new Promise((ok) => { h.release = ok; });
      const requested = new Promise((ok) => { h.requested = ok; });
      held.push(h);
      return {
        requested,
        release() {
          if (held.includes(h)) held.splice(held.indexOf(h), 1);
          h.release();
        },
      };
    },
    close: () => {
      for (const h of held.splice(0)) h.release();
      server.closeAllConnections?.();
      return new Promise((ok) => server.close(ok));
    },
  };
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** A page that records console errors and uncaught exceptions. */
export async function openPage(browser, url, viewport = { width: 1280, height: 720 }) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors };
}

export async function screenshot(page, name) {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Pauses the playground if it is playing. */
export async function pause(page) {
  if ((await page.getAttribute('#play', 'aria-pressed')) === 'true') await page.click('#play');
}

/** Starts the playground if it is paused. */
export async function play(page) {
  if ((await page.getAttribute('#play', 'aria-pressed')) !== 'true') await page.click('#play');
}

/** A screenshot of one panel, scrolled into view. */
export async function panelShot(page, selector, name) {
  await mkdir(SHOTS, { recursive: true });
  await page.locator(selector).scrollIntoViewIfNeeded();
  await page.locator(selector).screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** A playground fragment (without its leading `/`) made by the CLI's `share`, the codec's other user. */
export function cliLink(...args) {
  return share([], args);
}

/** The same from the release build, which the benchmark scripts use already. */
export function releaseLink(...args) {
  return share(['--release'], args);
}

function share(profile, args) {
  const out = execFileSync('cargo', ['run', '-q', ...profile, '-p', 'barrierlab-cli', '--', 'share', ...args],
    { encoding: 'utf8', cwd: join(here, '..', '..') });
  return out.trim().split('\n').pop().replace(/^\//, '');
}

/** Goes to `url` and lets its job run, consenting if the page asks first (a job over the budget). */
export async function openConsenting(page, url) {
  await page.goto(url);
  await page.waitForSelector('#sim-time', { timeout: 60000 });
  // The click's handler builds the job: dispatched from a timer so the click itself returns.
  if (await page.locator('#consent-run').count()) {
    await page.evaluate(() => setTimeout(() => document.getElementById('consent-run').click(), 0));
  }
  await page.waitForFunction(() => !document.querySelector('#consent'), null, { timeout: 120000, polling: 250 });
}

/** The native engine's fingerprint of `preset` run for `seconds` with `--set key=value`s. */
export function cliFingerprint(preset, seconds, sets = []) {
  const args = ['run', '--preset', preset, '--seconds', String(seconds), '--format', 'json',
    ...sets.flatMap((s) => ['--set', s])];
  const out = execFileSync('cargo', ['run', '-q', '-p', 'barrierlab-cli', '--', ...args],
    { encoding: 'utf8', cwd: join(here, '..', '..'), maxBuffer: 1 << 28 });
  return JSON.parse(out).fingerprint;
}

/** The simulated time the status bar shows, in seconds. */
export const simSeconds = async (page) =>
  Number((await page.textContent('#sim-time')).match(/([\d.]+) s/)?.[1] ?? NaN);
