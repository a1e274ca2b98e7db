// The event log links every event's Flink class#method to its line of Flink's source on GitHub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, panelShot, pause } from './harness.mjs';

let site, browser;
before(async () => { site = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

// A line of a .java file under a Flink module, at a tag or commit.
const SOURCE_LINK = /^https:\/\/github\.com\/apache\/flink\/blob\/[\w.-]+\/flink-[\w-]+\/src\/main\/java\/org\/apache\/flink\/[\w/]+\/(\w+)\.java#L([1-9]\d*)$/;

/** The event log's lines' source links; fails when a line has none. */
async function sourceLinks(page) {
  const n = await page.locator('#event-log .log-line').count();
  assert.ok(n > 20, `only ${n} lines`);
  const links = await page.$$eval('#event-log .log-line a.flink', (as) => as.map((a) => ({
    href: a.getAttribute('href'), target: a.target, rel: a.rel, title: a.title, text: a.textContent,
    described: a.getAttribute('aria-describedby'),
  })));
  assert.equal(links.length, n, 'a line without a source link');
  return links;
}

test('event log lines link their class#method to its line of Flink 2.3.0 on GitHub', async () => {
  const { page, errors } = await openPage(browser, site.url, { width: 1440, height: 900 });
  // The network is closed here: GitHub answers from the test, so opening a link loads nothing.
  await page.context().route('https://github.com/**', (r) => r.fulfill({ status: 200, contentType: 'text/plain', body: 'flink source' }));
  await page.waitForSelector('#sim-time', { timeout: 15000 });
  await page.selectOption('#speed', 'max');
  await page.click('#tab-history');
  await page.waitForSelector('#checkpoint-history tr[data-status="COMPLETED"]', { timeout: 10000 });
  await pause(page);

  // Every line has one link (the newest lines: records), and so do the lines of the checkpoint's
  // many steps; every link is a real line of a .java file, opened in a new tab.
  const unfiltered = await sourceLinks(page);
  await page.fill('#log-filter', 'checkpoint');
  const steps = await sourceLinks(page);
  assert.ok(new Set(steps.map((l) => l.href)).size >= 5, `few distinct links: ${steps.map((l) => l.text)}`);
  for (const l of [...unfiltered, ...steps]) {
    const m = l.href.match(SOURCE_LINK);
    assert.ok(m, `not a line of Flink's source: ${l.href}`);
    assert.equal(l.target, '_blank');
    assert.match(l.rel, /\bnoopener\b/);
    assert.ok(l.text.startsWith(`${m[1]}.`), `${l.text} links to ${m[1]}.java`);
    assert.ok(l.title.includes(`${m[1]}.java line ${m[2]}`), `title ${l.title} does not name ${m[1]}.java line ${m[2]}`);
    // Screen readers hear what the link does (a hidden description, once for the whole log).
    assert.equal(l.described, 'flink-source-hint');
  }
  assert.match(await page.textContent('#flink-source-hint'), /new tab/);
  await panelShot(page, '#event-log', 'event-log-source-links-1440x900');

  // A CheckpointCoordinator trigger line links to CheckpointCoordinator.java.
  await page.fill('#log-filter', 'trigger checkpoint');
  const trigger = page.locator('#event-log .log-line', { hasText: /trigger checkpoint \d+/ }).first();
  const link = trigger.locator('a.flink');
  assert.equal(await link.textContent(), 'CheckpointCoordinator.startTriggeringCheckpoint');
  assert.match(await link.getAttribute('href'),
    /^https:\/\/github\.com\/apache\/flink\/blob\/release-2\.3\.0\/flink-runtime\/src\/main\/java\/org\/apache\/flink\/runtime\/checkpoint\/CheckpointCoordinator\.java#L\d+$/);

  // The keyboard reaches the link; following it opens GitHub and leaves the time cursor alone.
  await trigger.locator('button.t').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('href')), await link.getAttribute('href'));
  await panelShot(page, '#event-log', 'event-log-trigger-link-focused-1440x900');
  const time = await page.textContent('#sim-time');
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.keyboard.press('Enter')]);
  await popup.waitForLoadState();
  assert.equal(popup.url(), await link.getAttribute('href'));
  await popup.close();
  assert.equal(await page.locator('#event-log .log-line.cursor').count(), 0, 'the link moved the time cursor');
  assert.equal(await page.textContent('#sim-time'), time);
  // (The line's time button still time-travels.)
  await trigger.locator('button.t').click();
  await page.waitForSelector('#event-log .log-line.cursor');

  // The filter still finds lines by their Flink class.
  await page.fill('#log-filter', 'SubtaskCheckpointCoordinatorImpl');
  const stepLinks = await page.$$eval('#event-log .log-line a.flink', (as) => as.map((a) => a.getAttribute('href')));
  assert.ok(stepLinks.length > 0);
  assert.ok(stepLinks.every((h) => /SubtaskCheckpointCoordinatorImpl\.java#L\d+$/.test(h)), stepLinks.join(' '));
  assert.deepEqual(errors, []);
  await page.close();
});
