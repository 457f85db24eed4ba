import { describe, expect, it } from 'vitest';

import { listingRequests } from '../../../console/src/queries.js';
import {
  DEFAULT_QUERY,
  type ExecutionQuery,
  hrefOf,
  parseRoute,
  type Route,
} from '../../../console/src/routes.js';
import { type HistoryEvent, newEvents } from '../../../console/src/swf.js';

describe('every view has a URL', () => {
  const query: ExecutionQuery = {
    ...DEFAULT_QUERY,
    status: 'closed',
    filter: 'type',
    value: 'OrderWorkflow',
    version: '1',
    timeField: 'close',
    range: 'custom',
    from: '2026-11-01T00:00',
    to: '2026-11-02T12:30:15',
    oldestFirst: true,
    size: 100,
  };
  it.each<Route>([
    { view: 'domains', status: 'REGISTERED' },
    { view: 'domains', status: 'DEPRECATED' },
    { view: 'executions', domain: 'orders', query: DEFAULT_QUERY },
    { view: 'executions', domain: 'a/b c?', query },
    { view: 'types', domain: 'orders', status: 'DEPRECATED' },
    {
      view: 'execution',
      domain: 'orders',
      execution: { workflowId: 'order/#1 ?', runId: 'r=1' },
      tab: 'summary',
    },
    {
      view: 'execution',
      domain: 'orders',
      execution: { workflowId: 'o', runId: 'r' },
      tab: 'history',
      event: 17,
    },
    {
      view: 'execution',
      domain: 'orders',
      execution: { workflowId: 'o', runId: 'r' },
      tab: 'timeline',
    },
    { view: 'start', domain: 'orders', type: { name: 'OrderWorkflow', version: '1' } },
    { view: 'start', domain: 'orders', from: { workflowId: 'o', runId: 'r' } },
    { view: 'metrics' },
    { view: 'metrics', domain: 'orders' },
  ])('%j', (route) => {
    expect(parseRoute(hrefOf(route))).toEqual(route);
  });

  it('an unknown path is a view of its own, not a blank page', () => {
    expect(parseRoute('#/nowhere/at/all')).toEqual({ view: 'notFound', path: '/nowhere/at/all' });
    expect(parseRoute('')).toEqual({ view: 'domains', status: 'REGISTERED' });
  });
});

describe("a listing is SWF's list and count requests, one page at a time", () => {
  const now = 1_800_000_000;
  it('open executions: a start-time filter (from the epoch for any time), the one filter, the page', () => {
    const { list, count } = listingRequests(
      'orders',
      { ...DEFAULT_QUERY, filter: 'workflowId', value: ' order-1 ' },
      now,
      'token-2',
    );
    expect(list).toEqual({
      action: 'ListOpenWorkflowExecutions',
      input: {
        domain: 'orders',
        startTimeFilter: { oldestDate: 0 },
        executionFilter: { workflowId: 'order-1' },
        maximumPageSize: 50,
        nextPageToken: 'token-2',
      },
    });
    expect(count).toEqual({
      action: 'CountOpenWorkflowExecutions',
      input: {
        domain: 'orders',
        startTimeFilter: { oldestDate: 0 },
        executionFilter: { workflowId: 'order-1' },
      },
    });
  });

  it('closed executions: by close time, a close status, oldest first, the last day', () => {
    const q: ExecutionQuery = {
      ...DEFAULT_QUERY,
      status: 'closed',
      timeField: 'close',
      filter: 'closeStatus',
      value: 'CANCELED',
      range: '24h',
      oldestFirst: true,
      size: 25,
    };
    expect(listingRequests('orders', q, now).list).toEqual({
      action: 'ListClosedWorkflowExecutions',
      input: {
        domain: 'orders',
        closeTimeFilter: { oldestDate: now - 86_400 },
        closeStatusFilter: { status: 'CANCELED' },
        maximumPageSize: 25,
        reverseOrder: true,
      },
    });
  });

  it('a type without a version, a tag, a custom range; a close status means nothing for open ones', () => {
    const typed = listingRequests(
      'd',
      {
        ...DEFAULT_QUERY,
        filter: 'type',
        value: 'Order',
        range: 'custom',
        from: '2026-01-01T00:00:00Z',
        to: '',
      },
      now,
    );
    expect(typed.count.input).toEqual({
      domain: 'd',
      startTimeFilter: { oldestDate: 1_767_225_600 },
      typeFilter: { name: 'Order' },
    });
    expect(
      listingRequests('d', { ...DEFAULT_QUERY, filter: 'tag', value: 'gift' }, now).count.input,
    ).toMatchObject({ tagFilter: { tag: 'gift' } });
    expect(
      listingRequests('d', { ...DEFAULT_QUERY, filter: 'closeStatus', value: 'FAILED' }, now).count
        .input,
    ).toEqual({
      domain: 'd',
      startTimeFilter: { oldestDate: 0 },
    });
  });
});

describe('a live history reads only what was added', () => {
  const events = Array.from(
    { length: 250 },
    (_, i): HistoryEvent => ({ eventId: i + 1, eventTimestamp: i, eventType: 'MarkerRecorded' }),
  );
  /** SWF's pages of 100, newest first. */
  const read = async (
    _d: string,
    _e: unknown,
    options: { token?: string; reverse?: boolean; size?: number },
  ) => {
    expect(options).toMatchObject({ reverse: true, size: 100 });
    const start = Number(options.token ?? 0);
    const newest = [...events].reverse();
    const items = newest.slice(start, start + 100);
    return {
      items,
      ...(start + 100 < newest.length ? { nextPageToken: String(start + 100) } : {}),
    };
  };
  it('newest first until the last event read, given back oldest first', async () => {
    const ids = async (last: number) =>
      (await newEvents('d', { workflowId: 'w', runId: 'r' }, last, undefined, read)).map(
        (e) => e.eventId,
      );
    expect(await ids(250)).toEqual([]);
    expect(await ids(247)).toEqual([248, 249, 250]);
    expect(await ids(20)).toEqual(events.slice(20).map((e) => e.eventId));
    expect(await ids(0)).toHaveLength(250);
  });
});
