/**
 * The console's other views in a real browser: domains registered, deprecated and undeprecated from the
 * page, a type's defaults and a start with them filled in, a listing paged by SWF's page tokens, and
 * the same console through the signing proxy (and its error when there are no credentials).
 */
import { RegisterWorkflowTypeCommand, StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProxy, startConsoleProxy } from '../../lib/console/proxy.js';
import { consoleRoute } from '../../lib/console/route.js';
import { signingFor } from '../../lib/console/signing.js';
import { type Browser, openBrowser, screenshot } from '../support/browser.js';
import { registerDomain, startTestServer } from '../support/local.js';

const DOMAIN = 'console-admin';
const BULK = { name: 'Bulk', version: '2' };
const STARTED = 30;

let server: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await startTestServer({ routes: consoleRoute() });
  await registerDomain(server.swf, DOMAIN);
  await server.swf.send(
    new RegisterWorkflowTypeCommand({
      domain: DOMAIN,
      ...BULK,
      description: 'a batch of many',
      defaultTaskList: { name: 'bulk-decisions' },
      defaultExecutionStartToCloseTimeout: '600',
      defaultTaskStartToCloseTimeout: '30',
      defaultChildPolicy: 'ABANDON',
      defaultTaskPriority: '3',
    }),
  );
  for (let i = 0; i < STARTED; i++)
    await server.swf.send(
      new StartWorkflowExecutionCommand({
        domain: DOMAIN,
        workflowId: `bulk-${i}`,
        workflowType: BULK,
        tagList: ['batch'],
      }),
    );
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const consoleUrl = (hash: string) => `${server.service.endpoint}/console/${hash}`;

describe('domains', () => {
  it('registers a domain from the page, deprecates it after a confirmation, and undeprecates it', async () => {
    await page.goto(consoleUrl('#/domains'));
    await page.getByRole('button', { name: 'Register a domain' }).click();
    const register = page.getByRole('dialog', { name: 'Register a domain' });
    await register.getByLabel('Name').fill('made-in-the-console');
    await register.getByLabel(/Retention/).fill('7');
    await register.getByLabel('Description').fill('from the browser test');
    await register.getByRole('button', { name: 'Register' }).click();
    const row = page.getByRole('row').filter({ hasText: 'made-in-the-console' });
    await row.getByText('from the browser test').waitFor();
    await row.getByRole('button', { name: 'Deprecate made-in-the-console' }).click();
    await page
      .getByRole('dialog', { name: 'Deprecate made-in-the-console?' })
      .getByRole('button', { name: 'Deprecate' })
      .click();
    await row.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Deprecated' }).click();
    await row.getByText('DEPRECATED').waitFor();
    await row.getByRole('button', { name: 'Undeprecate made-in-the-console' }).click();
    await row.waitFor({ state: 'detached' });
  });

  it('shows why a registration is refused, in the dialog', async () => {
    await page.goto(consoleUrl('#/domains'));
    await page.getByRole('button', { name: 'Register a domain' }).click();
    const register = page.getByRole('dialog', { name: 'Register a domain' });
    await register.getByLabel('Name').fill(DOMAIN);
    await register.getByRole('button', { name: 'Register' }).click();
    expect(await register.getByRole('alert').textContent()).toMatch(/DomainAlreadyExistsFault/);
    await page.keyboard.press('Escape');
    await register.waitFor({ state: 'hidden' });
  });
});

describe('types and starting an execution', () => {
  it("shows a type's defaults, and starts an execution with them filled in", async () => {
    await page.goto(consoleUrl(`#/domains/${DOMAIN}/types`));
    await page.getByText('a batch of many').click();
    await page.getByText('bulk-decisions').waitFor();
    expect(await page.locator('.facts').textContent()).toMatch(/Child policyABANDON/);
    await screenshot(page, 'types');
    await page.getByRole('link', { name: 'Start' }).click();
    await expect
      .poll(() => page.getByLabel('Decision task list').inputValue())
      .toBe('bulk-decisions');
    expect(await page.getByLabel('Execution start-to-close timeout (s)').inputValue()).toBe('600');
    expect(await page.getByLabel('Child policy').inputValue()).toBe('ABANDON');
    expect(await page.getByLabel('Task priority').inputValue()).toBe('3');
    await page.getByLabel('Workflow ID').fill('started-in-the-console');
    await page.getByLabel('Input').fill('{"items":3}');
    await page.getByLabel('Tags').fill('ui, manual');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('heading', { name: /started-in-the-console/ }).waitFor();
    const summary = page.locator('.summary');
    await summary.getByText('bulk-decisions').waitFor();
    expect(await summary.textContent()).toMatch(/Child policyABANDON/);
    expect(await summary.textContent()).toMatch(/uimanual/);
  });
});

describe('a listing of executions', () => {
  it("pages by SWF's page tokens, with the count of all that match", async () => {
    await page.goto(consoleUrl(`#/domains/${DOMAIN}/executions?filter=tag&value=batch&size=25`));
    await page.getByText(`${STARTED} open executions`).waitFor();
    const rows = page.locator('table.executions tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.getByText('Page 2').waitFor();
    await expect.poll(() => rows.count()).toBe(STARTED - 25);
    expect(await page.getByRole('button', { name: 'Next →' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: '← Previous' }).click();
    await expect.poll(() => rows.count()).toBe(25);
  });
});

describe('live', () => {
  it('a listing of open executions shows one started meanwhile, without a reload', async () => {
    await page.goto(
      consoleUrl(`#/domains/${DOMAIN}/executions?filter=workflowId&value=late-arrival`),
    );
    await page.getByText('No executions match.').waitFor();
    await server.swf.send(
      new StartWorkflowExecutionCommand({
        domain: DOMAIN,
        workflowId: 'late-arrival',
        workflowType: BULK,
      }),
    );
    await page.getByRole('link', { name: 'late-arrival' }).waitFor({ timeout: 12_000 });
    await page.getByText('1 open execution', { exact: true }).waitFor();
  });
});

describe('the console through the signing proxy', () => {
  let proxy: RunningProxy | undefined;
  afterAll(() => proxy?.close());

  it('works against an endpoint through the proxy', async () => {
    const signing = signingFor({ endpoint: server.service.endpoint }, {});
    proxy = await startConsoleProxy({
      signing,
      credentials: async () => ({ accessKeyId: 'local', secretAccessKey: 'local' }),
    });
    await page.goto(`${proxy.url}/console/#/domains/${DOMAIN}/executions`);
    await page.getByText(`${STARTED + 2} open executions`).waitFor();
    expect(await page.getByRole('link', { name: 'Metrics' }).count()).toBe(0);
    await proxy.close();
    proxy = undefined;
  });

  it('shows a refused credential as an error, with its fault', async () => {
    const signing = signingFor(
      { endpoint: 'https://abc123.execute-api.eu-west-1.amazonaws.com' },
      {},
    );
    proxy = await startConsoleProxy({
      signing,
      credentials: () => Promise.reject(new Error('Could not load credentials from any providers')),
    });
    await page.goto(`${proxy.url}/console/#/domains`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      /CredentialsProviderError.*No AWS credentials to sign with: Could not load credentials from any providers.*ListDomains, HTTP 401/,
    );
    expect(browser.pageErrors).toEqual([]);
  });
});
