// Embeds that teach (docs/sharing.md#embedding, docs/tutorials.md): the embed lays out for its
// size with the timeline's phase bars in view, one tutorial step embeds, the example page says
// what the simulator shows under backpressure, and tutorials load from JSON files (a URL or a
// file picked in the picker) with clear messages for bad files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync } from 'node:fs';
import { serveDist, launch, openPage, screenshot, DIST } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const EXAMPLE_FILE = readFileSync(new URL('../../docs/tutorial-example.json', import.meta.url), 'utf8');
/** Where the before/after screenshots of the embed go (besides tests/e2e/screenshots). */
const SHOTS_DIR = process.env.EMBED_SHOTS ?? '/work/shots';
const VIEWPORTS = [{ width: 800, height: 480 }, { width: 390, height: 844 }];

/** The backpressure embed of the example page (an `embed=1` scenario link). */
function backpressureLink() {
  const html = readFileSync(`${DIST}/embed-example.html`, 'utf8');
  return html.match(/id="embed-backpressure" src="\.\/(#v1[^"]+)"/)[1].replace(/&amp;/g, '&');
}

async function waitPaused(page) {
  await page.waitForFunction(() => /paused/.test(document.querySelector('#job-status')?.textContent ?? ''),
    null, { timeout: 30000 });
}

async function shot(page, name) {
  await screenshot(page, name);
  try {
    mkdirSync(SHOTS_DIR, { recursive: true });
    await page.screenshot({ path: `${SHOTS_DIR}/after-${name}.png` });
  } catch { /* the extra copy is a convenience */ }
}

/**
 * What of the newest checkpoint's timeline group is really on screen: its subtask rows whose
 * label is hit-testable inside the viewport (not clipped by a panel, not below the fold), and
 * its phase bars likewise.
 */
function visibleTimeline(page) {
  return page.evaluate(() => {
    // On screen: its middle lies in the viewport and inside every ancestor that clips.
    const onScreen = (el) => {
      const b = el.getBoundingClientRect();
      if (b.width <= 0 || b.height <= 0) return false;
      const x = b.left + b.width / 2;
      const y = b.top + b.height / 2;
      if (x < 0 || x >= innerWidth || y < 0 || y >= innerHeight) return false;
      for (let a = el.parentElement; a; a = a.parentElement) {
        const st = getComputedStyle(a);
        if (st.display === 'none' || st.visibility === 'hidden') return false;
        if (/(hidden|auto|scroll|clip)/.test(st.overflow + st.overflowX + st.overflowY)) {
          const c = a.getBoundingClientRect();
          if (x < c.left || x > c.right || y < c.top || y > c.bottom) return false;
        }
      }
      return true;
    };
    const group = document.querySelector('#timeline .tl-group');
    if (!group) return { rows: 0, shown: 0, bars: 0 };
    const rows = [...group.querySelectorAll('.tl-row.subtask')];
    const shown = rows.filter((r) => onScreen(r.querySelector('.tl-label'))).length;
    const bars = [...group.querySelectorAll('.tl-row.subtask rect.phase')].filter(onScreen).length;
    return { rows: rows.length, shown, bars };
  });
}

for (const vp of VIEWPORTS) {
  test(`embed at ${vp.width}x${vp.height}: the newest checkpoint's subtask rows and phase bars are in view`, async () => {
    const { page, errors } = await openPage(browser, site.url + backpressureLink(), vp);
    await page.waitForSelector('#barrierlab.embed', { timeout: 20000 });
    await waitPaused(page);
    await page.waitForSelector('#timeline .tl-group .tl-row.subtask', { timeout: 10000 });
    const v = await visibleTimeline(page);
    assert.ok(v.rows >= 4, `the newest checkpoint has its subtask rows: ${JSON.stringify(v)}`);
    assert.equal(v.shown, v.rows, `every subtask row of the newest checkpoint is on screen: ${JSON.stringify(v)}`);
    assert.ok(v.bars >= 3, `its phase bars are on screen: ${JSON.stringify(v)}`);
    // Nothing scrolls: the embed is laid out for the iframe.
    const overflow = await page.evaluate(() => document.documentElement.scrollHeight - innerHeight);
    assert.ok(overflow <= 1, `the page does not scroll (${overflow} px)`);
    await shot(page, `embed-${vp.width}x${vp.height}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('a tutorial step embeds: its narration, the run stopped at the step, a link to the full step', async () => {
  // The step in the full playground, for its fingerprint.
  const full = await openPage(browser, site.url + '#tutorial=alignment&step=4');
  await full.page.waitForSelector('#tutorial[data-tutorial="alignment"][data-step="4"]', { timeout: 30000 });
  const print = (await full.page.textContent('#tutorial-fingerprint')).trim();
  await full.page.close();
  for (const vp of VIEWPORTS) {
    const { page, errors } = await openPage(browser, site.url + '#tutorial=alignment&step=4&embed=1', vp);
    await page.waitForSelector('#barrierlab.embed #tutorial[data-tutorial="alignment"][data-step="4"]', { timeout: 30000 });
    await waitPaused(page);
    assert.match(await page.textContent('#tutorial-step-title'), /Where the time went/);
    assert.match(await page.textContent('#tutorial-stop'), /completed 2 in/);
    assert.equal((await page.textContent('#fingerprint')).includes(print), true, 'the same trace as the step');
    // Compact: no Back / Next / link box; "Open" leads to the step in the full playground.
    for (const id of ['tutorial-back', 'tutorial-next', 'tutorial-link', 'checkpoints', 'event-log']) {
      assert.equal(await page.locator(`#${id}`).count(), 0, `#${id} is not in the embed`);
    }
    const href = await page.getAttribute('#open-full', 'href');
    assert.equal(href, site.url + '#tutorial=alignment&step=4');
    // The narration starts on screen, and the run's phase bars are in view too.
    const textTop = await page.evaluate(() => document.querySelector('#tutorial-text').getBoundingClientRect().top);
    assert.ok(textTop < vp.height - 40, `narration in view (top ${textTop})`);
    const v = await visibleTimeline(page);
    assert.ok(v.rows >= 4 && v.shown === v.rows && v.bars >= 4, JSON.stringify(v));
    assert.equal(await page.url().includes('embed=1'), true, 'the embed keeps its own URL');
    await shot(page, `embed-tutorial-${vp.width}x${vp.height}`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('the embed example says the slow phase under backpressure is start delay, as the simulator shows', async () => {
  const { page, errors } = await openPage(browser, site.url + 'embed-example.html', { width: 1000, height: 1600 });
  const prose = await page.textContent('#backpressure-explained');
  assert.match(prose, /start delay/);
  assert.match(prose, /alignment itself[^.]*stays short/);
  assert.doesNotMatch(await page.textContent('body'), /alignment takes long/);
  const frame = await (await page.waitForSelector('#embed-backpressure')).contentFrame();
  await frame.waitForSelector('#barrierlab.embed', { timeout: 20000 });
  await frame.waitForFunction(() => /paused/.test(document.querySelector('#job-status').textContent),
    null, { timeout: 30000 });
  // The newest finished checkpoint of the backpressured run: start delay dwarfs alignment.
  const widths = await frame.evaluate(() => {
    const group = [...document.querySelectorAll('#timeline .tl-group')]
      .find((g) => /COMPLETED/.test(g.querySelector('.tl-header').textContent));
    const sum = (cls) => [...group.querySelectorAll(`rect.phase.${cls}`)]
      .reduce((a, r) => a + Number(r.getAttribute('width')), 0);
    return { start: sum('start-delay'), alignment: sum('alignment') };
  });
  assert.ok(widths.start > 3 * widths.alignment, JSON.stringify(widths));
  const tutorial = await (await page.waitForSelector('#embed-tutorial')).contentFrame();
  await tutorial.waitForSelector('#tutorial[data-step="4"]', { timeout: 30000 });
  await screenshot(page, 'embed-example-start-delay');
  assert.deepEqual(errors, []);
  await page.close();
});

/** A page whose `tutorials/<name>` requests are answered with `body` (status `status`). */
async function withFile(vp, name, body, status = 200) {
  const page = await browser.newPage({ viewport: vp });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route(`**/tutorials/${name}`, (route) =>
    route.fulfill({ status, contentType: 'application/json', body }));
  return { page, errors };
}

test('a tutorial file loads from #tutorial-url=, runs to its stop conditions and links back to itself', async () => {
  const { page, errors } = await withFile({ width: 1280, height: 900 }, 'mine.json', EXAMPLE_FILE);
  await page.goto(site.url + '#tutorial-url=tutorials/mine.json&step=2');
  await page.waitForSelector('#tutorial[data-tutorial="my-first-tutorial"][data-step="2"]', { timeout: 30000 });
  assert.match(await page.textContent('#tutorial-stop'), /trigger checkpoint 1/);
  assert.match(await page.textContent('#tutorial-text'), /startTriggeringCheckpoint began checkpoint 1\. The Checkpoints panel/);
  assert.equal(await page.inputValue('#tutorial-link'), site.url + '#tutorial-url=tutorials/mine.json&step=2');
  await page.click('#tutorial-next');
  await page.waitForSelector('#tutorial[data-step="3"]', { timeout: 30000 });
  assert.match(await page.textContent('#tutorial-stop'), /count-per-key.*barrier 1 on channel/);
  const print3 = (await page.textContent('#tutorial-fingerprint')).trim();
  // The last step: a new setup with a fault, highlighting a named subtask.
  await page.click('#tutorial-next');
  await page.click('#tutorial-next');
  await page.waitForSelector('#tutorial[data-step="5"]', { timeout: 30000 });
  assert.match(await page.textContent('#tutorial-stop'), /committed \d+ records up to 3/);
  // The step link reproduces the step in a fresh page.
  const again = await withFile({ width: 1280, height: 900 }, 'mine.json', EXAMPLE_FILE);
  await again.page.goto(site.url + '#tutorial-url=tutorials/mine.json&step=3');
  await again.page.waitForSelector('#tutorial[data-step="3"]', { timeout: 30000 });
  assert.equal((await again.page.textContent('#tutorial-fingerprint')).trim(), print3);
  // And it is in the picker.
  await again.page.click('#tutorial-all');
  assert.equal(await again.page.locator('.tutorial-pick[data-id="my-first-tutorial"]').count(), 1);
  await screenshot(again.page, 'tutorial-from-url');
  assert.deepEqual([...errors, ...again.errors], []);
  await page.close();
  await again.page.close();
});

test('a bad tutorial file, from a URL or a file, gets a message naming what is wrong', async () => {
  const typo = EXAMPLE_FILE.replace('"operator": "count-per-key"', '"operator": "count-per-kye"');
  const cases = [
    ['typo.json', typo, 200, /typo\.json.*step 3 \(“The second barrier at count-per-key”\): until\.operator: the scenario has no operator “count-per-kye”/],
    ['broken.json', '{"id": "x", ', 200, /broken\.json.*cannot be used: EOF while parsing/],
    ['event.json', EXAMPLE_FILE.replace('"event": "completed"', '"event": "complete"'), 200, /step 4: unknown variant `complete`, expected one of `triggered`/],
    ['missing.json', 'not found', 404, /Could not fetch the tutorial file “tutorials\/missing\.json”: the server answered HTTP 404/],
  ];
  for (const [name, body, status, want] of cases) {
    const { page, errors } = await withFile({ width: 1280, height: 800 }, name, body, status);
    await page.goto(site.url + `#tutorial-url=tutorials/${name}&step=1`);
    await page.waitForSelector('#tutorial-error', { timeout: 20000 });
    assert.match(await page.textContent('#tutorial-error'), want, name);
    assert.equal(await page.locator('#tutorial-picker').count(), 1, 'the picker is shown');
    assert.equal(await page.locator('#panic-overlay').count(), 0);
    assert.deepEqual(errors, [], name);
    await page.close();
  }
  // The picker's file input: a good file opens at step 1, a bad one says why.
  const { page, errors } = await openPage(browser, site.url + '#tutorials');
  await page.waitForSelector('#tutorial-file', { timeout: 15000 });
  await page.setInputFiles('#tutorial-file', { name: 'typo.json', mimeType: 'application/json', buffer: Buffer.from(typo) });
  await page.waitForSelector('#tutorial-error', { timeout: 20000 });
  assert.match(await page.textContent('#tutorial-error'), /“typo\.json” cannot be used: step 3/);
  await page.setInputFiles('#tutorial-file', { name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from(EXAMPLE_FILE) });
  await page.waitForSelector('#tutorial[data-tutorial="my-first-tutorial"][data-step="1"]', { timeout: 30000 });
  assert.match(await page.textContent('#tutorial-stop'), /Paused until 0\.300 s/);
  await screenshot(page, 'tutorial-from-file');
  assert.deepEqual(errors, []);
  await page.close();
});
