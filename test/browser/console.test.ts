/**
 * The console in a real browser against the local server: the order workflows (one completed, one
 * whose ShipOrder a CancelOrder signal cancels, one failed, one still shipping), found by filter,
 * their timeline and history read, a signal sent and a run terminated from the page, errors shown
 * with their fault, and the metrics charts hidden or drawn as GET /metrics answers.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SignalWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoute } from '../../lib/console/route.js';
import { type Browser, openBrowser, screenshot } from '../support/browser.js';
import { startTestServer } from '../support/local.js';
import { type OrderRuns, runOrders } from '../support/order-runs.js';

const DOMAIN = 'console-orders';
const METRICS = readFileSync(
  new URL('../unit/console/metrics-fixture.prom', import.meta.url),
  'utf8',
);

let server: Awaited<ReturnType<typeof startTestServer>>;
let orders: OrderRuns;
let browser: Browser;
let page: Page;
/** What GET /metrics answers: nothing (404) until a test sets the fixture. */
let metrics: string | undefined;

function metricsRoute(req: IncomingMessage, res: ServerResponse): boolean {
  if (new URL(req.url ?? '/', 'http://x').pathname !== '/metrics') return false;
  if (metrics === undefined)
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no metrics\n');
  else res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metrics);
  return true;
}

beforeAll(async () => {
  const console = consoleRoute();
  server = await startTestServer({
    polling: { maxWaitMs: 2_000 },
    routes: (req, res) => metricsRoute(req, res) || console(req, res),
  });
  orders = await runOrders(server.swf, DOMAIN);
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await orders?.stop();
  await server?.close();
});

const consoleUrl = (hash: string) => `${server.service.endpoint}/console/${hash}`;
const executionRow = (workflowId: string) => page.getByRole('row').filter({ hasText: workflowId });

describe('the console', () => {
  it('lists the closed executions and filters to the cancelled order', async () => {
    await page.goto(consoleUrl(`#/domains/${DOMAIN}/executions?status=closed`));
    for (const run of [orders.completed, orders.canceled, orders.failed])
      await executionRow(run.workflowId).waitFor();
    await page.getByText('3 closed executions').waitFor();
    await screenshot(page, 'executions', true);
    await page.getByLabel('Filter by').selectOption('closeStatus');
    await page
      .getByRole('combobox', { name: 'Close status', exact: true })
      .selectOption('CANCELED');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('1 closed execution', { exact: true }).waitFor();
    expect(page.url()).toContain('filter=closeStatus&value=CANCELED');
    // The count's text may come before the table's rows: wait for the row, then count them all.
    await executionRow(orders.canceled.workflowId).waitFor();
    const rows = page.locator('table.executions tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(orders.canceled.workflowId);
    expect(await rows.first().textContent()).toContain('CANCELED');
  });

  it('shows the cancelled order: ShipOrder cancelled in the timeline, ActivityTaskCanceled in the history', async () => {
    await page.getByRole('link', { name: orders.canceled.workflowId, exact: true }).click();
    await page.getByRole('heading', { name: orders.canceled.workflowId }).waitFor();
    await page.getByText('OrderWorkflow v1').first().waitFor();
    await screenshot(page, 'summary', true);
    await page.getByRole('link', { name: 'Timeline' }).click();
    const ship = page.locator('.lane', { hasText: 'ShipOrder 1 · ship' });
    const bar = ship.locator('a.bar');
    await bar.waitFor();
    expect(await bar.getAttribute('data-outcome')).toBe('canceled');
    expect(await bar.getAttribute('aria-label')).toMatch(
      /ShipOrder 1 · ship: canceled; .*cancel requested/,
    );
    expect(await ship.locator('.cancel-tick').count()).toBe(1);
    // The other steps of the cancelled order: verified, charged, refunded, emailed.
    for (const step of [
      'VerifyOrder 1 · verify',
      'ChargeCreditCard 1 · charge',
      'CancelOrder 1 · refund',
      'EmailCustomer 1 · email',
    ])
      expect(
        await page
          .locator('.lane', { hasText: step })
          .locator('a.bar')
          .getAttribute('data-outcome'),
      ).toBe('completed');
    await screenshot(page, 'timeline', true);
    await page.getByRole('link', { name: 'History' }).click();
    const canceled = page.getByRole('button', { name: /ActivityTaskCanceled/ });
    await canceled.click();
    expect(await canceled.getAttribute('aria-expanded')).toBe('true');
    expect(page.url()).toMatch(/\/history\?event=\d+$/);
    await page.getByText('scheduledEventId').waitFor();
    await screenshot(page, 'history', true);
  });

  it('a bar of the timeline links to its event, opened in the history', async () => {
    await page.getByRole('link', { name: 'Timeline' }).click();
    await page.locator('.lane', { hasText: 'ShipOrder 1 · ship' }).locator('a.bar').click();
    const scheduled = page.getByRole('button', { name: /ActivityTaskScheduled.*ShipOrder/ });
    await scheduled.waitFor();
    expect(await scheduled.getAttribute('aria-expanded')).toBe('true');
  });

  it('the history is read by keyboard: arrows move, Enter opens', async () => {
    const { workflowId, runId } = orders.completed;
    await page.goto(consoleUrl(`#/domains/${DOMAIN}/executions/${workflowId}/${runId}/history`));
    const first = page.locator('#event-1');
    await first.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const third = page.locator('#event-3');
    expect(await third.evaluate((el) => el.matches(':focus'))).toBe(true);
    expect(await third.getAttribute('aria-expanded')).toBe('true');
  });

  it('an open execution shows what happens to it, without a reload', async () => {
    const { workflowId, runId } = orders.open;
    await page.goto(consoleUrl(`#/domains/${DOMAIN}/executions/${workflowId}/${runId}/history`));
    await page.getByText(/events, live$/).waitFor();
    await server.swf.send(
      new SignalWorkflowExecutionCommand({
        domain: DOMAIN,
        workflowId,
        runId,
        signalName: 'FromTheSdk',
      }),
    );
    await page
      .getByRole('button', { name: /WorkflowExecutionSignaled.*FromTheSdk/ })
      .waitFor({ timeout: 10_000 });
  });

  it('sends a signal from the page, and the signal shows in the history', async () => {
    await page.getByRole('button', { name: 'Signal', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Send a signal' });
    await dialog.getByLabel('Signal name').fill('GiftNote');
    await dialog.getByLabel('Input').fill('{"note":"happy birthday"}');
    await dialog.getByRole('button', { name: 'Send signal' }).click();
    const signaled = page.getByRole('button', { name: /WorkflowExecutionSignaled.*GiftNote/ });
    await signaled.waitFor({ timeout: 10_000 });
    await signaled.click();
    await page.getByText('"note": "happy birthday"').waitFor();
    await screenshot(page, 'signal');
  });

  it('terminates a run after a confirmation, and its status changes', async () => {
    await page.getByRole('button', { name: 'Terminate', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Terminate/ });
    await dialog.getByText('It cannot be undone').waitFor();
    await dialog.getByLabel('Reason').fill('customer asked by phone');
    await dialog.getByRole('button', { name: 'Terminate' }).click();
    await page.locator('h1 .badge', { hasText: 'TERMINATED' }).waitFor({ timeout: 10_000 });
    await page
      .getByRole('button', { name: /WorkflowExecutionTerminated/ })
      .waitFor({ timeout: 10_000 });
    expect(await page.getByRole('button', { name: /WorkflowExecutionTerminated/ }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Signal', exact: true }).count()).toBe(0);
    await screenshot(page, 'terminated');
  });

  it("starts the cancelled order again with the same input, and the new run's summary shows it", async () => {
    const { workflowId, runId } = orders.canceled;
    await page.goto(
      consoleUrl(`#/domains/${DOMAIN}/start?fromWorkflowId=${workflowId}&fromRunId=${runId}`),
    );
    const input = page.getByLabel('Input');
    await expect.poll(() => input.inputValue()).toContain('"shippingMs":120000');
    expect(await page.getByLabel('Workflow ID').inputValue()).toBe(workflowId);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.waitForURL(
      (url) => url.hash.includes(`/executions/${workflowId}/`) && !url.hash.includes(runId),
    );
    await page.getByText('"shippingMs": 120000').waitFor();
  });

  it('shows an error from the endpoint with its SWF fault and message, never a blank page', async () => {
    await page.goto(consoleUrl(`#/domains/${DOMAIN}/executions/no-such-order/no-such-run`));
    const alert = page.getByRole('alert').first();
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      /UnknownResourceFault.*DescribeWorkflowExecution, HTTP 400/,
    );
    await page.goto(consoleUrl('#/domains/no-such-domain/executions'));
    expect(await page.getByRole('alert').first().textContent()).toMatch(/UnknownResourceFault/);
  });

  it('hides the metrics where GET /metrics answers 404, and charts them where it answers', async () => {
    await page.goto(consoleUrl('#/domains'));
    await page.getByRole('link', { name: DOMAIN }).waitFor();
    expect(await page.getByRole('link', { name: 'Metrics' }).count()).toBe(0);
    metrics = METRICS;
    await page.goto(consoleUrl('#/metrics'));
    await page.reload();
    await page.getByRole('link', { name: 'Metrics' }).waitFor();
    const workflows = page.getByRole('figure', { name: 'Workflow outcomes by workflow type' });
    await workflows.getByText('7 completed, 2 failed, 1 canceled').waitFor();
    const latency = page.getByRole('figure', {
      name: 'Activity task schedule-to-start time by activity type',
    });
    expect(await latency.textContent()).toMatch(
      /ShipOrder v1.*p50 78 ms, p90 1 s, p99 1 s; mean 1\.06 s over 10/,
    );
    await screenshot(page, 'metrics', true);
    metrics = undefined;
  });

  it('threw no error in the page', () => {
    expect(browser.pageErrors).toEqual([]);
  });
});
