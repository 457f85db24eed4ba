/**
 * Visibility through the official SDK: ListOpen/ListClosed and
 * CountOpen/CountClosedWorkflowExecutions with every filter, pagination in both orders, bad input,
 * and retention (closed executions vanish after the domain's retention).
 */

import { randomBytes } from 'node:crypto';
import {
  CountClosedWorkflowExecutionsCommand,
  type CountClosedWorkflowExecutionsInput,
  CountOpenWorkflowExecutionsCommand,
  type CountOpenWorkflowExecutionsInput,
  type Decision,
  DeleteWorkflowTypeCommand,
  DeprecateWorkflowTypeCommand,
  GetWorkflowExecutionHistoryCommand,
  ListClosedWorkflowExecutionsCommand,
  type ListClosedWorkflowExecutionsInput,
  ListOpenWorkflowExecutionsCommand,
  type ListOpenWorkflowExecutionsInput,
  RecordActivityTaskHeartbeatCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RequestCancelWorkflowExecutionCommand,
  type SWFClient,
  TerminateWorkflowExecutionCommand,
  UnknownResourceFault,
  type WorkflowExecutionInfo,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { replay } from '../../lib/core/replay.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION, type LocalService } from '../../lib/local/local-service.js';
import { carryOutRunChange } from '../../lib/operations/outbox.js';
import {
  expectFault,
  expectServiceError,
  oneViolation,
  rawCall,
  unique,
} from '../support/contract.js';
import { decide, SwfDriver, sleep } from '../support/decider.js';
import { startTestServer } from '../support/local.js';

let swf: SWFClient;
let close: () => Promise<void>;
let server: LocalService;

beforeAll(async () => {
  ({ swf, close, service: server } = await startTestServer({ polling: { maxWaitMs: 2_000 } }));
});
afterAll(() => close());

const ORDER_1 = { name: 'order', version: '1' };
const ORDER_2 = { name: 'order', version: '2' };
const BILLING = { name: 'billing', version: '1' };
/** Every start time since the test run began. */
const SINCE = { oldestDate: new Date(Date.now() - 3_600_000) };

/** A fresh domain with the three workflow types, so each test sees only its own executions. */
async function freshDomain(client: SWFClient, retention = '1'): Promise<SwfDriver> {
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
async function eventually<T>(
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

type OpenQuery = Omit<ListOpenWorkflowExecutionsInput, 'domain'>;
type ClosedQuery = Omit<ListClosedWorkflowExecutionsInput, 'domain'>;

const listOpen = (driver: SwfDriver, query: OpenQuery) =>
  driver.swf.send(new ListOpenWorkflowExecutionsCommand({ domain: driver.domain, ...query }));
const listClosed = (driver: SwfDriver, query: ClosedQuery) =>
  driver.swf.send(new ListClosedWorkflowExecutionsCommand({ domain: driver.domain, ...query }));
const countOpen = async (
  driver: SwfDriver,
  query: Omit<CountOpenWorkflowExecutionsInput, 'domain'>,
) => driver.swf.send(new CountOpenWorkflowExecutionsCommand({ domain: driver.domain, ...query }));
const countClosed = async (
  driver: SwfDriver,
  query: Omit<CountClosedWorkflowExecutionsInput, 'domain'>,
) => driver.swf.send(new CountClosedWorkflowExecutionsCommand({ domain: driver.domain, ...query }));

/** The workflowIds of a page, in its order. */
const ids = (out: { executionInfos?: WorkflowExecutionInfo[] | undefined }) =>
  (out.executionInfos ?? []).map((i) => i.execution?.workflowId);

/** Every page of a listing, following nextPageToken. */
async function allPages(
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

async function terminate(driver: SwfDriver, execution: { workflowId: string; runId: string }) {
  await driver.swf.send(
    new TerminateWorkflowExecutionCommand({ domain: driver.domain, ...execution, reason: 'test' }),
  );
}

describe('a new execution', () => {
  it('is listed as open within a second of its start, with what Describe shows', async () => {
    const driver = await freshDomain(swf);
    const { execution } = await driver.start(ORDER_1, { tagList: ['fresh'] });
    const started = Date.now();
    const out = await eventually(
      () => listOpen(driver, { startTimeFilter: SINCE }),
      (o) => ids(o).length === 1,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    const described = await driver.describe(execution);
    expect(out.executionInfos).toEqual([
      {
        execution,
        workflowType: ORDER_1,
        startTimestamp: described.executionInfo?.startTimestamp,
        executionStatus: 'OPEN',
        tagList: ['fresh'],
        cancelRequested: false,
      },
    ]);
    expect(out.nextPageToken).toBeUndefined();
  });
});

describe('the tag table of the SWF developer guide', () => {
  it('filters on Consumer and returns only Execution-One (tags match exactly, case-sensitively)', async () => {
    const driver = await freshDomain(swf);
    await driver.start(ORDER_1, {
      workflowId: 'Execution-One',
      tagList: ['Consumer', '2011-February'],
    });
    await driver.start(ORDER_1, {
      workflowId: 'Execution-Two',
      tagList: ['Wholesale', '2011-March'],
    });
    await eventually(
      () => countOpen(driver, { startTimeFilter: SINCE }),
      (o) => o.count === 2,
    );
    const consumer = await listOpen(driver, {
      startTimeFilter: SINCE,
      tagFilter: { tag: 'Consumer' },
    });
    expect(ids(consumer)).toEqual(['Execution-One']);
    expect(consumer.executionInfos?.[0]?.tagList).toEqual(['Consumer', '2011-February']);
    expect(
      ids(await listOpen(driver, { startTimeFilter: SINCE, tagFilter: { tag: '2011-March' } })),
    ).toEqual(['Execution-Two']);
    expect(
      ids(await listOpen(driver, { startTimeFilter: SINCE, tagFilter: { tag: 'consumer' } })),
    ).toEqual([]);
    expect(
      ids(await listOpen(driver, { startTimeFilter: SINCE, tagFilter: { tag: 'Consume' } })),
    ).toEqual([]);
    expect(
      await countOpen(driver, { startTimeFilter: SINCE, tagFilter: { tag: 'Consumer' } }),
    ).toMatchObject({ count: 1, truncated: false });
    // The SWF reference's own example request: a start-time window in 2010–2011 holds none of
    // today's executions.
    const seedWindow = {
      oldestDate: new Date(1262332800 * 1000),
      latestDate: new Date(1325348400 * 1000),
    };
    expect(
      ids(await listOpen(driver, { startTimeFilter: seedWindow, tagFilter: { tag: 'Consumer' } })),
    ).toEqual([]);
  });
});

describe('every filter', () => {
  let driver: SwfDriver;
  /** workflowIds by role, and their runs. */
  const run: Record<string, { workflowId: string; runId: string }> = {};
  const startedAt: Record<string, Date> = {};
  const closedAt: Record<string, Date> = {};

  /** Answers the one decision task of an execution with `decision`. */
  const answer = async (taskList: string, decision: Decision) =>
    driver.decide(taskList, () => [decision]);

  beforeAll(async () => {
    driver = await freshDomain(swf);
    // Starts in this order (distinct start times): A, B, C, D, E, F.
    const a = await driver.start(ORDER_1, { workflowId: 'A', tagList: ['red'] });
    const b = await driver.start(ORDER_2, { workflowId: 'B', tagList: ['blue'] });
    const c = await driver.start(BILLING, { workflowId: 'C', tagList: ['red', 'blue'] });
    const d = await driver.start(ORDER_1, { workflowId: 'D' });
    const e = await driver.start(ORDER_1, { workflowId: 'E', tagList: ['red'] });
    const f = await driver.start(BILLING, { workflowId: 'F' });
    Object.assign(run, {
      A: a.execution,
      B: b.execution,
      C: c.execution,
      D: d.execution,
      E: e.execution,
      F: f.execution,
    });
    // Closes in this order: E failed, A terminated, C completed, F continued as new (as F again).
    await answer(e.taskList, decide.fail('no'));
    await sleep(5);
    await terminate(driver, a.execution);
    await sleep(5);
    await answer(c.taskList, decide.complete());
    await sleep(5);
    await answer(
      f.taskList,
      decide.continueAsNew({ taskList: { name: f.taskList }, tagList: ['green'] }),
    );
    for (const name of ['A', 'B', 'C', 'D', 'E', 'F']) {
      const info = (await driver.describe(run[name] ?? { workflowId: '', runId: '' }))
        .executionInfo;
      if (info?.startTimestamp !== undefined) startedAt[name] = info.startTimestamp;
      if (info?.closeTimestamp !== undefined) closedAt[name] = info.closeTimestamp;
    }
    await eventually(
      () => countClosed(driver, { startTimeFilter: SINCE }),
      (o) => o.count === 4,
    );
    await eventually(
      () => countOpen(driver, { startTimeFilter: SINCE }),
      (o) => o.count === 3,
    );
  });

  it('lists open executions newest first: all, by workflowId, type, type and version, tag', async () => {
    const open = (extra: Partial<OpenQuery> = {}) =>
      listOpen(driver, { startTimeFilter: SINCE, ...extra });
    // F's successor run started last (its continue-as-new), then D, then B.
    expect(ids(await open())).toEqual(['F', 'D', 'B']);
    expect(ids(await open({ executionFilter: { workflowId: 'B' } }))).toEqual(['B']);
    expect(ids(await open({ executionFilter: { workflowId: 'A' } }))).toEqual([]);
    expect(ids(await open({ typeFilter: { name: 'order' } }))).toEqual(['D', 'B']);
    expect(ids(await open({ typeFilter: ORDER_2 }))).toEqual(['B']);
    expect(ids(await open({ typeFilter: ORDER_1 }))).toEqual(['D']);
    expect(ids(await open({ typeFilter: { name: 'billing' } }))).toEqual(['F']);
    expect(ids(await open({ tagFilter: { tag: 'blue' } }))).toEqual(['B']);
    expect(ids(await open({ tagFilter: { tag: 'green' } }))).toEqual(['F']);
    expect(ids(await open({ tagFilter: { tag: 'red' } }))).toEqual([]);
    expect(ids(await open({ reverseOrder: true }))).toEqual(['B', 'D', 'F']);
  });

  it('lists closed executions by start time: all, by close status, workflowId, type, tag', async () => {
    const closed = (extra: ClosedQuery = {}) =>
      listClosed(driver, { startTimeFilter: SINCE, ...extra });
    expect(ids(await closed())).toEqual(['F', 'E', 'C', 'A']);
    expect(ids(await closed({ closeStatusFilter: { status: 'TERMINATED' } }))).toEqual(['A']);
    expect(ids(await closed({ closeStatusFilter: { status: 'COMPLETED' } }))).toEqual(['C']);
    expect(ids(await closed({ closeStatusFilter: { status: 'FAILED' } }))).toEqual(['E']);
    expect(ids(await closed({ closeStatusFilter: { status: 'CONTINUED_AS_NEW' } }))).toEqual(['F']);
    expect(ids(await closed({ closeStatusFilter: { status: 'CANCELED' } }))).toEqual([]);
    expect(ids(await closed({ executionFilter: { workflowId: 'A' } }))).toEqual(['A']);
    expect(ids(await closed({ executionFilter: { workflowId: 'B' } }))).toEqual([]);
    expect(ids(await closed({ typeFilter: { name: 'order' } }))).toEqual(['E', 'A']);
    expect(ids(await closed({ typeFilter: BILLING }))).toEqual(['F', 'C']);
    expect(ids(await closed({ tagFilter: { tag: 'red' } }))).toEqual(['E', 'C', 'A']);
    expect(ids(await closed({ tagFilter: { tag: 'blue' } }))).toEqual(['C']);
    expect(ids(await closed({ reverseOrder: true }))).toEqual(['A', 'C', 'E', 'F']);
  });

  it('lists closed executions by close time when given a closeTimeFilter', async () => {
    const byClose = (extra: ClosedQuery = {}) =>
      listClosed(driver, { closeTimeFilter: SINCE, ...extra });
    expect(ids(await byClose())).toEqual(['F', 'C', 'A', 'E']);
    expect(ids(await byClose({ reverseOrder: true }))).toEqual(['E', 'A', 'C', 'F']);
    expect(ids(await byClose({ tagFilter: { tag: 'red' } }))).toEqual(['C', 'A', 'E']);
    const info = (await byClose({ executionFilter: { workflowId: 'A' } })).executionInfos ?? [];
    expect(info).toEqual([
      {
        execution: run.A,
        workflowType: ORDER_1,
        startTimestamp: startedAt.A,
        closeTimestamp: closedAt.A,
        executionStatus: 'CLOSED',
        closeStatus: 'TERMINATED',
        tagList: ['red'],
        cancelRequested: false,
      },
    ]);
  });

  it('applies time filters as inclusive ranges of fractional epoch seconds', async () => {
    const bStart = startedAt.B;
    const aClose = closedAt.A;
    if (bStart === undefined || aClose === undefined) throw new Error('times not read');
    // The SDK sends these Dates as fractional epoch seconds (milliseconds).
    const exactlyB = { oldestDate: bStart, latestDate: bStart };
    expect(ids(await listOpen(driver, { startTimeFilter: exactlyB }))).toEqual(['B']);
    const justAfterB = { oldestDate: new Date(bStart.getTime() + 1) };
    expect(ids(await listOpen(driver, { startTimeFilter: justAfterB }))).toEqual(['F', 'D']);
    const upToB = { oldestDate: SINCE.oldestDate, latestDate: bStart };
    expect(ids(await listOpen(driver, { startTimeFilter: upToB }))).toEqual(['B']);
    expect(ids(await listClosed(driver, { startTimeFilter: upToB }))).toEqual(['A']);
    const exactlyA = { oldestDate: aClose, latestDate: aClose };
    expect(ids(await listClosed(driver, { closeTimeFilter: exactlyA }))).toEqual(['A']);
    expect(await countClosed(driver, { closeTimeFilter: exactlyA })).toMatchObject({ count: 1 });
    const future = { oldestDate: new Date(Date.now() + 3_600_000) };
    expect(ids(await listOpen(driver, { startTimeFilter: future }))).toEqual([]);
    // A workflowId's open run (found through its open-run pointer) within the same bounds.
    const onlyB = { executionFilter: { workflowId: 'B' } };
    expect(ids(await listOpen(driver, { startTimeFilter: exactlyB, ...onlyB }))).toEqual(['B']);
    expect(ids(await listOpen(driver, { startTimeFilter: justAfterB, ...onlyB }))).toEqual([]);
    const beforeB = { oldestDate: SINCE.oldestDate, latestDate: new Date(bStart.getTime() - 1) };
    expect(ids(await listOpen(driver, { startTimeFilter: beforeB, ...onlyB }))).toEqual([]);
    expect(await countOpen(driver, { startTimeFilter: justAfterB, ...onlyB })).toMatchObject({
      count: 0,
    });
  });

  it('answers nothing, not a failure, for a range no execution can be in', async () => {
    const dayMs = 86_400_000;
    // Closed by close time before the domain's retention (1 day) began: gone, whatever the range.
    const beforeRetention = {
      oldestDate: new Date(Date.now() - 10 * dayMs),
      latestDate: new Date(Date.now() - 2 * dayMs),
    };
    expect(ids(await listClosed(driver, { closeTimeFilter: beforeRetention }))).toEqual([]);
    expect(await countClosed(driver, { closeTimeFilter: beforeRetention })).toMatchObject({
      count: 0,
    });
    const epoch = { oldestDate: new Date(0), latestDate: new Date(1_000_000) };
    expect(ids(await listClosed(driver, { closeTimeFilter: epoch }))).toEqual([]);
    // Within one millisecond, holding no whole one (the SDK sends milliseconds; raw clients may not).
    const start = startedAt.A;
    if (start === undefined) throw new Error('times not read');
    const inside = (start.getTime() + 0.2) / 1000;
    const window = { oldestDate: inside, latestDate: inside + 0.0005 };
    for (const [action, filter, member] of [
      ['ListOpenWorkflowExecutions', 'startTimeFilter', 'executionInfos'],
      ['ListClosedWorkflowExecutions', 'closeTimeFilter', 'executionInfos'],
      ['CountOpenWorkflowExecutions', 'startTimeFilter', 'count'],
      ['CountClosedWorkflowExecutions', 'startTimeFilter', 'count'],
    ] as const) {
      const response = await rawCall(server.endpoint, action, {
        domain: driver.domain,
        [filter]: window,
      });
      expect(response.status, `${action}: ${response.text}`).toBe(200);
      const body = JSON.parse(response.text) as Record<string, unknown>;
      expect(body[member], action).toEqual(member === 'count' ? 0 : []);
    }
  });

  it('counts open and closed executions with each filter', async () => {
    const open = async (extra: Partial<CountOpenWorkflowExecutionsInput> = {}) => {
      const out = await countOpen(driver, { startTimeFilter: SINCE, ...extra });
      expect(out.truncated).toBe(false);
      return out.count;
    };
    const closed = async (extra: Omit<CountClosedWorkflowExecutionsInput, 'domain'> = {}) => {
      const out = await countClosed(driver, { ...extra });
      expect(out.truncated).toBe(false);
      return out.count;
    };
    expect(await open()).toBe(3);
    expect(await open({ typeFilter: { name: 'order' } })).toBe(2);
    expect(await open({ typeFilter: ORDER_2 })).toBe(1);
    expect(await open({ tagFilter: { tag: 'blue' } })).toBe(1);
    expect(await open({ executionFilter: { workflowId: 'D' } })).toBe(1);
    expect(await closed({ startTimeFilter: SINCE })).toBe(4);
    expect(await closed({ closeTimeFilter: SINCE })).toBe(4);
    expect(await closed({ startTimeFilter: SINCE, closeStatusFilter: { status: 'FAILED' } })).toBe(
      1,
    );
    expect(await closed({ closeTimeFilter: SINCE, typeFilter: { name: 'order' } })).toBe(2);
    expect(await closed({ startTimeFilter: SINCE, tagFilter: { tag: 'red' } })).toBe(3);
    expect(await closed({ startTimeFilter: SINCE, executionFilter: { workflowId: 'F' } })).toBe(1);
  });

  it('shows cancelRequested once a cancel is requested', async () => {
    await driver.swf.send(
      new RequestCancelWorkflowExecutionCommand({ domain: driver.domain, workflowId: 'B' }),
    );
    const out = await eventually(
      () => listOpen(driver, { startTimeFilter: SINCE, executionFilter: { workflowId: 'B' } }),
      (o) => o.executionInfos?.[0]?.cancelRequested === true,
    );
    expect(out.executionInfos).toHaveLength(1);
    expect(out.executionInfos?.[0]?.executionStatus).toBe('OPEN');
  });
});

describe('a filter by type name', () => {
  it('merges the rows of every version, a deleted one included, page by page', async () => {
    const driver = await freshDomain(swf);
    const shipping = (version: string) => ({ name: 'shipping', version });
    for (const version of ['1', '2', '3']) {
      await swf.send(
        new RegisterWorkflowTypeCommand({
          domain: driver.domain,
          ...shipping(version),
          defaultExecutionStartToCloseTimeout: '3600',
          defaultTaskStartToCloseTimeout: '60',
          defaultChildPolicy: 'TERMINATE',
        }),
      );
    }
    // Started in this order: s1 (v1), s2 (v2), s3 (v1), s4 (v3); then v1 is deprecated and deleted.
    const started = [];
    for (const [id, version] of [
      ['s1', '1'],
      ['s2', '2'],
      ['s3', '1'],
      ['s4', '3'],
    ] as const) {
      started.push((await driver.start(shipping(version), { workflowId: id })).execution);
      await sleep(5);
    }
    await swf.send(
      new DeprecateWorkflowTypeCommand({ domain: driver.domain, workflowType: shipping('1') }),
    );
    await swf.send(
      new DeleteWorkflowTypeCommand({ domain: driver.domain, workflowType: shipping('1') }),
    );
    const byName = { startTimeFilter: SINCE, typeFilter: { name: 'shipping' } };
    await eventually(
      () => countOpen(driver, byName),
      (o) => o.count === 4,
    );
    expect(ids(await listOpen(driver, byName))).toEqual(['s4', 's3', 's2', 's1']);
    const pages = await allPages((token) =>
      listOpen(driver, {
        ...byName,
        maximumPageSize: 1,
        reverseOrder: true,
        ...(token === undefined ? {} : { nextPageToken: token }),
      }),
    );
    expect(pages.pages).toEqual([['s1'], ['s2'], ['s3'], ['s4']]);
    expect(ids(await listOpen(driver, { ...byName, typeFilter: shipping('1') }))).toEqual([
      's3',
      's1',
    ]);
    expect(ids(await listOpen(driver, { ...byName, typeFilter: { name: 'nothing' } }))).toEqual([]);
    // Closed, by close time: the same merge.
    for (const execution of started) await terminate(driver, execution);
    const closedByName = { closeTimeFilter: SINCE, typeFilter: { name: 'shipping' } };
    await eventually(
      () => countClosed(driver, closedByName),
      (o) => o.count === 4,
    );
    expect(ids(await listClosed(driver, closedByName))).toEqual(['s4', 's3', 's2', 's1']);
  });
});

describe('COMPLETED, read from the closed rows of all executions', () => {
  let driver: SwfDriver;

  beforeAll(async () => {
    driver = await freshDomain(swf);
    // c1..c7 started in order and closed in order: odd ones complete, even ones fail.
    const started = [];
    for (let i = 1; i <= 7; i++) {
      started.push(await driver.start(ORDER_1, { workflowId: `c${i}` }));
      await sleep(3);
    }
    for (const [i, run] of started.entries()) {
      const done = i % 2 === 0 ? decide.complete(`r${i + 1}`) : decide.fail('no');
      await driver.decide(run.taskList, () => [done]);
      await sleep(3);
    }
    await eventually(
      () => countClosed(driver, { startTimeFilter: SINCE }),
      (o) => o.count === 7,
    );
  });

  it('lists, pages and counts by start and by close time, in both orders', async () => {
    for (const time of ['startTimeFilter', 'closeTimeFilter'] as const) {
      const completed: ClosedQuery = {
        [time]: SINCE,
        closeStatusFilter: { status: 'COMPLETED' },
      };
      expect(ids(await listClosed(driver, completed))).toEqual(['c7', 'c5', 'c3', 'c1']);
      const newest = await allPages((nextPageToken) =>
        listClosed(driver, { ...completed, maximumPageSize: 3, nextPageToken }),
      );
      expect(newest.pages).toEqual([['c7', 'c5', 'c3'], ['c1']]);
      const oldest = await allPages((nextPageToken) =>
        listClosed(driver, { ...completed, maximumPageSize: 2, reverseOrder: true, nextPageToken }),
      );
      expect(oldest.pages).toEqual([
        ['c1', 'c3'],
        ['c5', 'c7'],
      ]);
      expect(await countClosed(driver, completed)).toEqual(
        expect.objectContaining({ count: 4, truncated: false }),
      );
      const failed: ClosedQuery = { [time]: SINCE, closeStatusFilter: { status: 'FAILED' } };
      expect(ids(await listClosed(driver, failed))).toEqual(['c6', 'c4', 'c2']);
      expect(await countClosed(driver, failed)).toEqual(expect.objectContaining({ count: 3 }));
    }
    const info = (
      await listClosed(driver, {
        startTimeFilter: SINCE,
        closeStatusFilter: { status: 'COMPLETED' },
        maximumPageSize: 1,
      })
    ).executionInfos?.[0];
    expect(info).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'COMPLETED' });
  });
});

describe('pagination', () => {
  let driver: SwfDriver;
  const names = ['p1', 'p2', 'p3', 'p4', 'p5'];

  beforeAll(async () => {
    driver = await freshDomain(swf);
    const runs = [];
    for (const workflowId of names) {
      runs.push((await driver.start(ORDER_1, { workflowId, tagList: ['paged'] })).execution);
      await sleep(3);
    }
    // Closed in the reverse order of their starts.
    for (const execution of [...runs].reverse()) {
      await terminate(driver, execution);
      await sleep(3);
    }
    await eventually(
      () => countClosed(driver, { startTimeFilter: SINCE }),
      (o) => o.count === 5,
    );
    for (const workflowId of names) await driver.start(ORDER_2, { workflowId });
    await eventually(
      () => countOpen(driver, { startTimeFilter: SINCE }),
      (o) => o.count === 5,
    );
  });

  it('pages open executions newest first, and oldest first with reverseOrder', async () => {
    const newest = await allPages((nextPageToken) =>
      listOpen(driver, { startTimeFilter: SINCE, maximumPageSize: 2, nextPageToken }),
    );
    expect(newest.pages).toEqual([['p5', 'p4'], ['p3', 'p2'], ['p1']]);
    const oldest = await allPages((nextPageToken) =>
      listOpen(driver, {
        startTimeFilter: SINCE,
        maximumPageSize: 2,
        reverseOrder: true,
        nextPageToken,
      }),
    );
    expect(oldest.pages).toEqual([['p1', 'p2'], ['p3', 'p4'], ['p5']]);
  });

  it('pages closed executions by close time and by start time, filtered, in both orders', async () => {
    const page = (query: ClosedQuery) =>
      allPages((nextPageToken) =>
        listClosed(driver, {
          maximumPageSize: 2,
          tagFilter: { tag: 'paged' },
          ...query,
          nextPageToken,
        }),
      );
    expect((await page({ closeTimeFilter: SINCE })).pages).toEqual([
      ['p1', 'p2'],
      ['p3', 'p4'],
      ['p5'],
    ]);
    expect((await page({ closeTimeFilter: SINCE, reverseOrder: true })).pages).toEqual([
      ['p5', 'p4'],
      ['p3', 'p2'],
      ['p1'],
    ]);
    expect((await page({ startTimeFilter: SINCE })).pages).toEqual([
      ['p5', 'p4'],
      ['p3', 'p2'],
      ['p1'],
    ]);
    expect((await page({ startTimeFilter: SINCE, reverseOrder: true })).pages).toEqual([
      ['p1', 'p2'],
      ['p3', 'p4'],
      ['p5'],
    ]);
  });

  it('omits nextPageToken when a page holds the rest exactly, and treats 0 as the maximum', async () => {
    const exact = await listOpen(driver, { startTimeFilter: SINCE, maximumPageSize: 5 });
    expect(ids(exact)).toEqual(['p5', 'p4', 'p3', 'p2', 'p1']);
    expect(exact.nextPageToken).toBeUndefined();
    const zero = await listOpen(driver, { startTimeFilter: SINCE, maximumPageSize: 0 });
    expect(ids(zero)).toHaveLength(5);
    expect(zero.nextPageToken).toBeUndefined();
  });

  it('refuses a page token with other arguments, or one that was altered', async () => {
    const first = await listOpen(driver, { startTimeFilter: SINCE, maximumPageSize: 2 });
    const token = first.nextPageToken;
    if (token === undefined) throw new Error('expected a next page');
    await expectServiceError(
      listOpen(driver, {
        startTimeFilter: SINCE,
        maximumPageSize: 2,
        reverseOrder: true,
        nextPageToken: token,
      }),
      'ValidationException',
      /different request/,
    );
    await expectServiceError(
      listClosed(driver, { startTimeFilter: SINCE, maximumPageSize: 2, nextPageToken: token }),
      'ValidationException',
    );
    const [payload = '', mac = ''] = token.split('.');
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const forged = `${Buffer.from(JSON.stringify({ ...body, c: '0000000000000000|x' })).toString('base64url')}.${mac}`;
    for (const tampered of [forged, `${token}x`, 'not-a-token', `${payload}.${mac.slice(1)}A`]) {
      await expectServiceError(
        listOpen(driver, { startTimeFilter: SINCE, maximumPageSize: 2, nextPageToken: tampered }),
        'ValidationException',
        /nextPageToken/,
      );
    }
  });
});

describe('bad input', () => {
  let driver: SwfDriver;
  beforeAll(async () => {
    driver = await freshDomain(swf);
  });

  it('refuses two exclusive filters at once, with the live service wording', async () => {
    await expectServiceError(
      listClosed(driver, {
        startTimeFilter: SINCE,
        typeFilter: { name: 'order' },
        closeStatusFilter: { status: 'FAILED' },
      }),
      'ValidationException',
      'Cannot specify more than one exclusive filters in the same query: [WorkflowTypeFilter, CloseStatusFilter]',
    );
    await expectServiceError(
      listOpen(driver, {
        startTimeFilter: SINCE,
        executionFilter: { workflowId: 'x' },
        tagFilter: { tag: 't' },
      }),
      'ValidationException',
      'Cannot specify more than one exclusive filters in the same query: [WorkflowExecutionFilter, TagFilter]',
    );
    await expectServiceError(
      countOpen(driver, {
        startTimeFilter: SINCE,
        typeFilter: { name: 'order' },
        tagFilter: { tag: 't' },
      }),
      'ValidationException',
      /exclusive filters/,
    );
    await expectServiceError(
      countClosed(driver, {
        startTimeFilter: SINCE,
        tagFilter: { tag: 't' },
        closeStatusFilter: { status: 'FAILED' },
      }),
      'ValidationException',
      /exclusive filters/,
    );
  });

  it('refuses both time filters, or neither, on closed executions', async () => {
    await expectServiceError(
      listClosed(driver, { startTimeFilter: SINCE, closeTimeFilter: SINCE }),
      'ValidationException',
      'Cannot specify both a startTimeFilter and a closeTimeFilter',
    );
    await expectServiceError(
      countClosed(driver, { startTimeFilter: SINCE, closeTimeFilter: SINCE }),
      'ValidationException',
    );
    await expectServiceError(
      listClosed(driver, {}),
      'ValidationException',
      'Either a startTimeFilter or a closeTimeFilter must be specified',
    );
    await expectServiceError(countClosed(driver, {}), 'ValidationException');
  });

  it('refuses an oldestDate after the latestDate', async () => {
    const backwards = { oldestDate: new Date(2_000_000_000_000), latestDate: new Date(1_000) };
    await expectServiceError(
      listOpen(driver, { startTimeFilter: backwards }),
      'ValidationException',
      /oldestDate .* is later than its latestDate/,
    );
    await expectServiceError(
      listClosed(driver, { closeTimeFilter: backwards }),
      'ValidationException',
      /closeTimeFilter/,
    );
    await expectServiceError(
      countOpen(driver, { startTimeFilter: backwards }),
      'ValidationException',
    );
    await expectServiceError(
      countClosed(driver, { startTimeFilter: backwards }),
      'ValidationException',
    );
  });

  it('refuses a page size over 1000', async () => {
    await expectServiceError(
      listOpen(driver, { startTimeFilter: SINCE, maximumPageSize: 1001 }),
      'ValidationException',
      oneViolation('1001', 'maximumPageSize', 'Member must have value less than or equal to 1000'),
    );
    await expectServiceError(
      listClosed(driver, { startTimeFilter: SINCE, maximumPageSize: 1001 }),
      'ValidationException',
    );
  });

  it('answers UnknownResourceFault for an unknown domain', async () => {
    const other = new SwfDriver(swf, unique('nowhere'));
    await expectFault(listOpen(other, { startTimeFilter: SINCE }), UnknownResourceFault);
    await expectFault(countClosed(other, { closeTimeFilter: SINCE }), UnknownResourceFault);
  });
});

describe('stream records delivered again', () => {
  it('change no listing: a replayed start does not reopen a closed execution, nor a replayed close double it', async () => {
    const driver = await freshDomain(swf);
    const { execution } = await driver.start(ORDER_1, { tagList: ['replayed'] });
    await terminate(driver, execution);
    await eventually(
      () => countClosed(driver, { startTimeFilter: SINCE }),
      (o) => o.count === 1,
    );
    const closed = (await server.outbox.runs.loadRun(execution.runId))?.state;
    const history = await server.outbox.runs.readHistory(execution.runId, {
      limit: 2,
      reverse: false,
    });
    if (closed === undefined) throw new Error('run not found');
    const opened = replay({ domain: driver.domain, execution }, history.events);
    expect(opened.status).toBe('OPEN');
    // The whole stream of the run again, in order, then its first record once more, late.
    await carryOutRunChange(server.outbox, undefined, opened);
    await carryOutRunChange(server.outbox, opened, closed);
    await carryOutRunChange(server.outbox, undefined, opened);
    const tagged = { tagFilter: { tag: 'replayed' } };
    expect(ids(await listOpen(driver, { startTimeFilter: SINCE, ...tagged }))).toEqual([]);
    expect(ids(await listClosed(driver, { startTimeFilter: SINCE, ...tagged }))).toEqual([
      execution.workflowId,
    ]);
    expect(ids(await listClosed(driver, { closeTimeFilter: SINCE }))).toEqual([
      execution.workflowId,
    ]);
    expect((await countOpen(driver, { startTimeFilter: SINCE })).count).toBe(0);
    expect((await countClosed(driver, { closeTimeFilter: SINCE, ...tagged })).count).toBe(1);
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('CLOSED');
  });
});

describe('retention', () => {
  let service: LocalService;
  let client: SWFClient;
  let stop: () => Promise<void>;
  /** The service's clock runs this far ahead of the real one (ms). */
  let offset = 0;

  beforeAll(async () => {
    ({
      service,
      swf: client,
      close: stop,
    } = await startTestServer({
      polling: { maxWaitMs: 1_000 },
      clock: { now: () => Date.now() + offset },
    }));
  });
  afterAll(() => stop());

  /** Every item of the table that belongs to a run: its own partition and its visibility rows. */
  async function itemsOf(runId: string): Promise<Record<string, unknown>[]> {
    const doc = createDocumentClient({
      endpoint: service.dynamoEndpoint,
      region: LOCAL_REGION,
      credentials: localCredentials,
    });
    try {
      const items: Record<string, unknown>[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const out = await doc.scan({ TableName: service.tableName, ExclusiveStartKey });
        items.push(...(out.Items ?? []));
        ExclusiveStartKey = out.LastEvaluatedKey;
      } while (ExclusiveStartKey !== undefined);
      return items.filter((i) => i.pk === `RUN|${runId}` || String(i.sk).endsWith(`|${runId}`));
    } finally {
      doc.destroy();
    }
  }

  const rowsOf = (items: readonly Record<string, unknown>[], list: 'CS' | 'CC') =>
    items.filter((i) => String(i.pk).startsWith(`V|${list}|`)).length;

  it('keeps a closed execution for the retention period, then answers UnknownResourceFault', async () => {
    const driver = await freshDomain(client, '1');
    const { execution } = await driver.start(ORDER_1, { tagList: ['kept'] });
    // Signals whose inputs do not deflate: history enough that its earlier events move to chunks.
    for (let i = 0; i < 3; i++)
      await driver.signal(execution, `s${i}`, randomBytes(600).toString('base64'));
    await terminate(driver, execution);
    const closedAt = (await driver.describe(execution)).executionInfo?.closeTimestamp;
    if (closedAt === undefined) throw new Error('no closeTimestamp');
    const expiresAt = Math.ceil(closedAt.getTime() / 1000 + 86_400);
    // Every item of the run, and its closed visibility rows, carry the TTL: the state exactly the run's
    // expiry, history written before the close its bound given up front (no earlier); open rows are gone.
    const items = await eventually(
      () => itemsOf(execution.runId),
      (all) =>
        all.length > 0 &&
        all.every((i) => typeof i.expiresAt === 'number' && i.expiresAt >= expiresAt) &&
        all.some((i) => i.sk === 'STATE' && i.expiresAt === expiresAt) &&
        // Every closed row is written (by start and by close time: all, workflowId, type, close
        // status and the tag), as the outbox's batches land one after the other.
        rowsOf(all, 'CS') === 5 &&
        rowsOf(all, 'CC') === 5,
    );
    for (const item of items)
      if (!String(item.sk).startsWith('H|')) expect(item.expiresAt).toBe(expiresAt);
    const runItems = items.filter((i) => i.pk === `RUN|${execution.runId}`).map((i) => i.sk);
    expect(runItems).toEqual(expect.arrayContaining(['STATE', expect.stringMatching(/^H\|/)]));
    expect(items.filter((i) => String(i.pk).startsWith('V|O|'))).toEqual([]);
    expect(items.filter((i) => String(i.pk).startsWith('V|CS|')).length).toBeGreaterThan(0);

    // Within the retention period it is still there.
    offset = 86_400_000 - 60_000;
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('CLOSED');
    expect(ids(await listClosed(driver, { closeTimeFilter: SINCE }))).toEqual([
      execution.workflowId,
    ]);
    expect(ids(await listClosed(driver, { startTimeFilter: SINCE }))).toEqual([
      execution.workflowId,
    ]);
    expect((await countClosed(driver, { startTimeFilter: SINCE })).count).toBe(1);

    // After it, gone everywhere, although DynamoDB's TTL has not deleted anything yet.
    offset = 86_400_000 + 2_000;
    await expectFault(driver.describe(execution), UnknownResourceFault);
    await expectFault(
      client.send(new GetWorkflowExecutionHistoryCommand({ domain: driver.domain, execution })),
      UnknownResourceFault,
    );
    expect(ids(await listClosed(driver, { closeTimeFilter: SINCE }))).toEqual([]);
    expect(ids(await listClosed(driver, { startTimeFilter: SINCE }))).toEqual([]);
    expect((await countClosed(driver, { startTimeFilter: SINCE })).count).toBe(0);
    expect((await countClosed(driver, { closeTimeFilter: SINCE })).count).toBe(0);
    expect((await itemsOf(execution.runId)).length).toBe(items.length);
    offset = 0;
  });

  it("marks an activity's heartbeat to expire when it is written: by the run's latest expiry at most", async () => {
    const driver = await freshDomain(client, '1');
    const activityType = { name: 'work', version: '1' };
    await client.send(
      new RegisterActivityTypeCommand({
        domain: driver.domain,
        ...activityType,
        defaultTaskList: { name: 'unused' },
        defaultTaskHeartbeatTimeout: '60',
        defaultTaskScheduleToStartTimeout: '60',
        defaultTaskStartToCloseTimeout: '60',
        defaultTaskScheduleToCloseTimeout: '120',
      }),
    );
    const { execution, taskList } = await driver.start(ORDER_1);
    const workers = unique('workers');
    await driver.decide(taskList, () => [
      decide.scheduleActivity({ activityId: 'a', activityType, taskList: { name: workers } }),
    ]);
    const task = await driver.pollActivity(workers);
    await client.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: task.taskToken, details: 'half way' }),
    );
    const startedAt = (await driver.describe(execution)).executionInfo?.startTimestamp;
    if (startedAt === undefined) throw new Error('no startTimestamp');
    const latest = Math.ceil(startedAt.getTime() / 1000 + 3600 + 86_400);
    const heartbeat = (await itemsOf(execution.runId)).find((i) => String(i.sk).startsWith('HB|'));
    expect(heartbeat).toMatchObject({ details: 'half way', expiresAt: latest });
  });

  it('keeps nothing after close with a retention of 0 days', async () => {
    offset = 0;
    const driver = await freshDomain(client, '0');
    const { execution } = await driver.start(ORDER_1);
    const open = await eventually(
      () => listOpen(driver, { startTimeFilter: SINCE }),
      (o) => ids(o).length === 1,
    );
    expect(ids(open)).toEqual([execution.workflowId]);
    await terminate(driver, execution);
    await eventually(
      () =>
        driver.describe(execution).then(
          () => 'visible',
          (error: unknown) => (error instanceof UnknownResourceFault ? 'gone' : String(error)),
        ),
      (outcome) => outcome === 'gone',
    );
    await expectFault(
      client.send(new GetWorkflowExecutionHistoryCommand({ domain: driver.domain, execution })),
      UnknownResourceFault,
    );
    await eventually(
      () => listOpen(driver, { startTimeFilter: SINCE }),
      (o) => ids(o).length === 0,
    );
    expect(ids(await listClosed(driver, { startTimeFilter: SINCE }))).toEqual([]);
    expect((await countClosed(driver, { closeTimeFilter: SINCE })).count).toBe(0);
    const runItems = (await itemsOf(execution.runId)).filter(
      (i) => i.pk === `RUN|${execution.runId}`,
    );
    // Whatever DynamoDB's TTL has not deleted yet carries its expiry.
    for (const item of runItems) expect(typeof item.expiresAt).toBe('number');
  });
});
