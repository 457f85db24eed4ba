/**
 * Reading visibility in the contract files: a fresh domain per test, the list and count calls of one
 * domain, the workflowIds of a page and every page of a listing, read until visibility (eventually
 * consistent) shows what is awaited.
 */
import {
  CountClosedWorkflowExecutionsCommand,
  type CountClosedWorkflowExecutionsInput,
  CountOpenWorkflowExecutionsCommand,
  type CountOpenWorkflowExecutionsInput,
  ListClosedWorkflowExecutionsCommand,
  type ListClosedWorkflowExecutionsInput,
  ListOpenWorkflowExecutionsCommand,
  type ListOpenWorkflowExecutionsInput,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type SWFClient,
  TerminateWorkflowExecutionCommand,
  type WorkflowExecutionInfo,
} from '@aws-sdk/client-swf';
import { unique } from './contract.js';
import { SwfDriver, sleep } from './decider.js';

export const ORDER_1 = { name: 'order', version: '1' };
export const ORDER_2 = { name: 'order', version: '2' };
export const BILLING = { name: 'billing', version: '1' };
/** Every start time since the test run began. */
export const SINCE = { oldestDate: new Date(Date.now() - 3_600_000) };

/** A fresh domain with the three workflow types, so each test sees only its own executions. */
export async function freshDomain(client: SWFClient, retention = '1'): Promise<SwfDriver> {
  const domain = unique('vis');
  await client.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: retention }),
  );
  for (const type of [ORDER_1, ORDER_2, BILLING]) {
    await client.send(
      new RegisterWorkflowTypeCommand({
        domain,
        ...type,
        defaultExecutionStartToCloseTimeout: '3600',
        defaultTaskStartToCloseTimeout: '60',
        defaultChildPolicy: 'TERMINATE',
      }),
    );
  }
  return new SwfDriver(client, domain);
}

/** Calls `read` until `done` holds of its result (visibility is eventually consistent). */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  withinMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`not as awaited within ${withinMs} ms: ${JSON.stringify(value)}`);
    await sleep(20);
  }
}

export type OpenQuery = Omit<ListOpenWorkflowExecutionsInput, 'domain'>;
export type ClosedQuery = Omit<ListClosedWorkflowExecutionsInput, 'domain'>;

export const listOpen = (driver: SwfDriver, query: OpenQuery) =>
  driver.swf.send(new ListOpenWorkflowExecutionsCommand({ domain: driver.domain, ...query }));
export const listClosed = (driver: SwfDriver, query: ClosedQuery) =>
  driver.swf.send(new ListClosedWorkflowExecutionsCommand({ domain: driver.domain, ...query }));
export const countOpen = async (
  driver: SwfDriver,
  query: Omit<CountOpenWorkflowExecutionsInput, 'domain'>,
) => driver.swf.send(new CountOpenWorkflowExecutionsCommand({ domain: driver.domain, ...query }));
export const countClosed = async (
  driver: SwfDriver,
  query: Omit<CountClosedWorkflowExecutionsInput, 'domain'>,
) => driver.swf.send(new CountClosedWorkflowExecutionsCommand({ domain: driver.domain, ...query }));

/** The workflowIds of a page, in its order. */
export const ids = (out: { executionInfos?: WorkflowExecutionInfo[] | undefined }) =>
  (out.executionInfos ?? []).map((i) => i.execution?.workflowId);

/** Every page of a listing, following nextPageToken. */
export async function allPages(
  read: (token: string | undefined) => Promise<{
    executionInfos?: WorkflowExecutionInfo[] | undefined;
    nextPageToken?: string | undefined;
  }>,
): Promise<{ pages: (string | undefined)[][]; tokens: number }> {
  const pages: (string | undefined)[][] = [];
  let token: string | undefined;
  let tokens = 0;
  do {
    const out = await read(token);
    pages.push(ids(out));
    token = out.nextPageToken;
    if (token !== undefined) tokens++;
  } while (token !== undefined && pages.length < 50);
  return { pages, tokens };
}

export async function terminate(
  driver: SwfDriver,
  execution: { workflowId: string; runId: string },
) {
  await driver.swf.send(
    new TerminateWorkflowExecutionCommand({ domain: driver.domain, ...execution, reason: 'test' }),
  );
}
