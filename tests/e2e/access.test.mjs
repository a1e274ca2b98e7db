// Keyboard and clarity (issue #17, item 11): the help dialog takes the focus, subtasks in the job
// graph are reachable and selectable from the keyboard, Exit from a tutorial drops its step from
// the URL, and the verdict says which checkpointing mode it judged.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, pause, panelShot, cliLink } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });


test('? opens the help with the keyboard focus in its dialog; Escape closes it and gives the focus back', async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#barrierlab', { timeout: 15000 });
  await page.keyboard.press('?');
  await page.waitForSelector('#help-overlay');
  await page.waitForFunction(() => document.activeElement?.id === 'help-dialog', null, { timeout: 2000 });
  assert.equal(await page.getAttribute('#help-dialog', 'role'), 'dialog');
  // Tab starts inside the dialog: its Close button is next.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('#help-dialog') !== null), true);
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('#help-overlay').count(), 0);
  // Opened from a focused control, the focus goes back to it.
  await page.locator('#help-button').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.id === 'help-dialog', null, { timeout: 2000 });
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('#help-overlay').count(), 0);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'help-button');
  assert.deepEqual(errors, []);
  await page.close();
});

test('subtasks in the job graph are reached with Tab, show a focus ring and are selected with Enter or Space', async () => {
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('#job-graph .subtask', { timeout: 15000 });
  await pause(page);
  await page.locator('#preset').focus();
  let reached = null;
  for (let i = 0; i < 80 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => {
      const a = document.activeElement;
      return a?.classList?.contains('subtask')
        ? { vertex: a.closest('.vertex').dataset.vertex, subtask: a.dataset.subtask, label: a.getAttribute('aria-label') }
        : null;
    });
  }
  assert.ok(reached, 'Tab never reached a subtask');
  assert.match(reached.label, /#\d+ — busy [\d.]+ ?%, back pressure (OK|LOW|HIGH)/);
  // The focus ring: the accent colour, wider than any other outline.
  const ring = await page.evaluate(() => {
    const r = document.activeElement.querySelector('rect.busy-fill');
    const accent = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim();
    return { width: getComputedStyle(r).strokeWidth, stroke: getComputedStyle(r).stroke, accent };
  });
  assert.equal(ring.width, '3.5px', JSON.stringify(ring));
  await panelShot(page, '#job-graph', 'job-graph-keyboard-focus');
  const playing = await page.getAttribute('#play', 'aria-pressed');
  await page.keyboard.press('Enter');
  const sel = `.vertex[data-vertex="${reached.vertex}"] .subtask[data-subtask="${reached.subtask}"]`;
  await page.waitForSelector(`${sel}.selected`, { timeout: 5000 });
  assert.equal(await page.getAttribute(sel, 'aria-pressed'), 'true');
  // The next subtask, with Space: selects it, and does not play or pause the job.
  await page.keyboard.press('Tab');
  const next = await page.evaluate(() => {
    const a = document.activeElement;
    return a?.classList?.contains('subtask') ? { vertex: a.closest('.vertex').dataset.vertex, subtask: a.dataset.subtask } : null;
  });
  assert.ok(next, 'the next Tab stop is the next subtask');
  await page.keyboard.press(' ');
  await page.waitForSelector(`.vertex[data-vertex="${next.vertex}"] .subtask[data-subtask="${next.subtask}"].selected`, { timeout: 5000 });
  assert.equal(await page.locator('#job-graph .subtask.selected').count(), 1);
  assert.equal(await page.getAttribute('#play', 'aria-pressed'), playing, 'Space on a subtask is not play/pause');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Exit from a tutorial drops the tutorial step from the URL (and Close the picker)', async () => {
  const { page, errors } = await openPage(browser, `${site.url}#tutorial=alignment&step=2`);
  await page.waitForSelector('#tutorial[data-tutorial="alignment"][data-step="2"]', { timeout: 30000 });
  assert.match(page.url(), /#tutorial=alignment&step=2$/);
  await page.click('#tutorial-close');
  assert.equal(await page.locator('#tutorial').count(), 0);
  assert.equal(new URL(page.url()).hash, '');
  assert.equal(page.url(), site.url);
  // The URL now opens the playground, not the tutorial (a reload, a copied address).
  const again = await openPage(browser, page.url());
  await again.page.waitForSelector('#barrierlab', { timeout: 15000 });
  assert.equal(await again.page.locator('#tutorial').count(), 0);
  assert.deepEqual(again.errors, []);
  await again.page.close();
  // The picker's Close too.
  await page.click('#tutorials-open');
  await page.waitForSelector('#tutorial-picker', { timeout: 5000 });
  assert.match(page.url(), /#tutorials$/);
  await page.click('#tutorial-close');
  assert.equal(new URL(page.url()).hash, '');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the verdict says which checkpointing mode it judged: AT_LEAST_ONCE named as such', async () => {
  const atLeastOnce = cliLink('--preset', 'seed-2pc', '--set', 'execution.checkpointing.mode=AT_LEAST_ONCE',
    '--until', '12s');
  const { page, errors } = await openPage(browser, site.url + atLeastOnce);
  await page.waitForFunction(() => /paused/.test(document.querySelector('#job-status')?.textContent ?? ''),
    null, { timeout: 30000 });
  await page.waitForSelector('#verdict-mode');
  assert.equal(await page.getAttribute('#verdict', 'data-mode'), 'AT_LEAST_ONCE');
  const judged = await page.textContent('#verdict-mode');
  assert.match(judged, /checkpointing AT_LEAST_ONCE \(execution\.checkpointing\.mode\)/);
  assert.match(judged, /promises at-least-once/);
  await panelShot(page, '#verdict-panel', 'verdict-at-least-once');
  // The same job exactly-once says that instead.
  await page.goto(site.url + cliLink('--preset', 'seed-2pc', '--until', '12s'));
  await page.waitForFunction(() => /paused/.test(document.querySelector('#job-status')?.textContent ?? ''),
    null, { timeout: 30000 });
  assert.equal(await page.getAttribute('#verdict', 'data-mode'), 'EXACTLY_ONCE');
  assert.match(await page.textContent('#verdict-mode'), /checkpointing EXACTLY_ONCE/);
  assert.doesNotMatch(await page.textContent('#verdict-mode'), /AT_LEAST_ONCE/);
  assert.deepEqual(errors, []);
  await page.close();
});
