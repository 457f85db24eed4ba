import {
  type CountClosedWorkflowExecutionsInput,
  type CountOpenWorkflowExecutionsInput,
  type Decision,
  DeleteWorkflowTypeCommand,
  DeprecateWorkflowTypeCommand,
  RegisterWorkflowTypeCommand,
  RequestCancelWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/local-service.js';
import { rawCall } from '../support/contract.js';
import { decide, type SwfDriver, sleep } from '../support/decider.js';
import { startTestServer } from '../support/local.js';
import {
  allPages,
  BILLING,
  type ClosedQuery,
  countClosed,
  countOpen,
  eventually,
  freshDomain,
  ids,
  listClosed,
  listOpen,
  type OpenQuery,
  ORDER_1,
  ORDER_2,
  SINCE,
  terminate,
} from '../support/visibility-listing.js';

let swf: SWFClient;
let close: () => Promise<void>;
let server: LocalService;

beforeAll(async () => {
  ({ swf, close, service: server } = await startTestServer({ polling: { maxWaitMs: 2_000 } }));
});
afterAll(() => close());

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
