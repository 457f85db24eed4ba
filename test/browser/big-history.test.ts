/**
 * An execution at SWF's 25,000-event limit opens in the console in under 2 s: the history's first
 * page shows while the rest is read a page at a time (SWF's page tokens), and the table draws only
 * the rows in view. The figures are printed and kept with the test's artifacts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoute } from '../../lib/console/route.js';
import { bigHistory } from '../support/big-history.js';
import { ARTIFACTS, type Browser, openBrowser, screenshot } from '../support/browser.js';
import { registerDomain, startTestServer } from '../support/local.js';
import type { ExecutionRef } from '../support/order-runs.js';

const DOMAIN = 'console-big';
/** What "opens" is held to: the history's first rows on screen, from the link being followed. */
const OPENS_WITHIN_MS = 2_000;

let server: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let page: Page;
let run: ExecutionRef;
const figures: Record<string, number> = {};

beforeAll(async () => {
  server = await startTestServer({ polling: { maxWaitMs: 1_000 }, routes: consoleRoute() });
  await registerDomain(server.swf, DOMAIN);
  run = await bigHistory(server.swf, DOMAIN, 'at-the-limit');
  browser = await openBrowser();
  page = browser.page;
  // The bundle is built once per server: load it before anything is timed.
  await page.goto(
    `${server.service.endpoint}/console/#/domains/${DOMAIN}/executions?status=closed`,
  );
  await page.getByRole('link', { name: run.workflowId }).waitFor();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mkdir(ARTIFACTS, { recursive: true });
  await writeFile(
    join(ARTIFACTS, 'big-history-figures.json'),
    `${JSON.stringify(figures, null, 2)}\n`,
  );
  console.log('console, 25,000-event history (ms):', JSON.stringify(figures));
});

describe('an execution of 25,000 events', () => {
  it(`opens in under ${OPENS_WITHIN_MS} ms, and reads to its last event`, async () => {
    const started = Date.now();
    await page.getByRole('link', { name: run.workflowId }).click();
    await page.getByRole('link', { name: 'History' }).click();
    await page.locator('#event-1').waitFor();
    figures.firstRowsMs = Date.now() - started;
    await page.locator('.load-state[data-complete="true"]').waitFor({ timeout: 60_000 });
    figures.wholeHistoryMs = Date.now() - started;
    const loaded = await page.locator('.load-state').textContent();
    const count = Number(loaded?.match(/^([\d,]+) events/)?.[1]?.replaceAll(',', ''));
    figures.events = count;
    expect(count).toBeGreaterThanOrEqual(24_990);
    expect(count).toBeLessThanOrEqual(25_001);
    // Only the rows in view are drawn.
    expect(await page.locator('.history-line').count()).toBeLessThan(100);
    expect(figures.firstRowsMs).toBeLessThan(OPENS_WITHIN_MS);
  });

  it('goes to the last event with End, where the run was terminated at the limit', async () => {
    await page.locator('#event-1').focus();
    await page.keyboard.press('End');
    const last = page.getByRole('button', {
      name: /WorkflowExecutionTerminated.*EVENT_LIMIT_EXCEEDED/,
    });
    await last.waitFor();
    expect(await last.evaluate((el) => el.matches(':focus'))).toBe(true);
    await screenshot(page, 'big-history');
  });

  it('filters 25,000 events as one types', async () => {
    const started = Date.now();
    await page.getByLabel('Filter events').fill('ActivityTaskFailed');
    await page.getByText(/^10 of [\d,]+ events$/).waitFor();
    figures.filterMs = Date.now() - started;
  });

  it('draws its timeline: the retried activities, the markers as one path', async () => {
    const started = Date.now();
    await page.getByRole('link', { name: 'Timeline' }).click();
    const retried = page.locator('.lane', { hasText: 'Resize 1 · a0' });
    await retried.getByText('2 attempts').waitFor();
    figures.timelineMs = Date.now() - started;
    expect(
      await retried
        .locator('a.bar')
        .evaluateAll((bars) => bars.map((b) => b.getAttribute('data-outcome'))),
    ).toEqual(['failed', 'completed']);
    expect(await page.locator('.lane.instants svg path').count()).toBe(1);
    await screenshot(page, 'big-timeline', true);
    expect(browser.pageErrors).toEqual([]);
  });
});
