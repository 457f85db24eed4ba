import { UnknownResourceFault } from '@aws-sdk/client-swf';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFault, expectServiceError, oneViolation, unique } from '../support/contract.js';
import { SwfDriver, sleep } from '../support/decider.js';
import { serverForFile } from '../support/local.js';
import {
  allPages,
  type ClosedQuery,
  countClosed,
  countOpen,
  eventually,
  freshDomain,
  ids,
  listClosed,
  listOpen,
  ORDER_1,
  ORDER_2,
  SINCE,
  terminate,
} from '../support/visibility-listing.js';

const server = serverForFile({ polling: { maxWaitMs: 2_000 } });

describe('pagination', () => {
  let driver: SwfDriver;
  const names = ['p1', 'p2', 'p3', 'p4', 'p5'];

  beforeAll(async () => {
    driver = await freshDomain(server.swf);
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
    driver = await freshDomain(server.swf);
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
    const other = new SwfDriver(server.swf, unique('nowhere'));
    await expectFault(listOpen(other, { startTimeFilter: SINCE }), UnknownResourceFault);
    await expectFault(countClosed(other, { closeTimeFilter: SINCE }), UnknownResourceFault);
  });
});
