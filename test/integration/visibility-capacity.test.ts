/**
 * The visibility store at size, against DynamoDB Local: 10,000 executions' rows, then filtered pages
 * whose DynamoDB reads are counted (ScannedCount of every Query: the items DynamoDB read, before any
 * filter). Every filter must read about what it returns (docs/architecture.md, "Visibility"), never Scan.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import type { DynamoDocClient } from '../../lib/adapters/dynamodb/doc-client.js';
import { DynamoVisibilityStore } from '../../lib/adapters/dynamodb/visibility-store.js';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import { startRun, terminateExecution } from '../../lib/core/executions.js';
import {
  type ExecutionInfo,
  expiryOf,
  type VisibilityFilter,
  type VisibilityList,
  visibilityWrites,
} from '../../lib/core/visibility.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION } from '../../lib/local/local-service.js';
import type { VisibilityQuery } from '../../lib/ports/visibility-store.js';
import { runConfig } from '../support/core-builders.js';
import { dynamoEndpoint, freshTable } from '../support/local.js';

const EXECUTIONS = 10_000;
const T0 = 1_700_000_000;
const DOMAIN = 'busy';
const RETENTION = 30 * 86_400;
/** The store's clock: after every start and close, inside every closed run's retention. */
const NOW = T0 + EXECUTIONS + 1_000;

/** Execution i: started at T0 + i; type type-(i%5)/v(i%2); tag tag-(i%50); every 5th closed. */
function execution(i: number): ExecutionState {
  const open = startRun(
    {
      domain: DOMAIN,
      execution: { workflowId: `wf-${i}`, runId: `run-${String(i).padStart(5, '0')}` },
      workflowType: { name: `type-${i % 5}`, version: `v${i % 2}` },
      config: runConfig,
      tagList: [`tag-${i % 50}`],
    },
    T0 + i,
  ).state;
  if (i % 5 !== 0) return open;
  // Closed in the reverse order of their starts, so close order differs from start order.
  return terminateExecution(open, {}, T0 + 2 * EXECUTIONS - i + 0.5).state;
}

/** Counts what DynamoDB read: every Query's ScannedCount, and any Scan at all. */
class ReadCounter {
  scanned = 0;
  queries = 0;
  scans = 0;
  /** Queries out at this moment, and the most out at once since the last reset. */
  inFlight = 0;
  mostInFlight = 0;
  reset() {
    this.scanned = 0;
    this.queries = 0;
    this.scans = 0;
    this.mostInFlight = 0;
  }
}

let writer: DynamoVisibilityStore;
let reader: DynamoVisibilityStore;
let capped: DynamoVisibilityStore;
let counting: DynamoDocClient;
const reads = new ReadCounter();
const all: ExecutionState[] = [];

beforeAll(async () => {
  const { tableName, doc, client } = await freshTable('vis-cap');
  client.destroy();
  counting = createDocumentClient({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: localCredentials,
    intercept: async (operation, _input, send) => {
      if (operation === 'Query')
        reads.mostInFlight = Math.max(reads.mostInFlight, ++reads.inFlight);
      const output = await send().finally(() => {
        if (operation === 'Query') reads.inFlight--;
      });
      if (operation === 'Scan') reads.scans++;
      if (operation === 'Query') {
        reads.queries++;
        reads.scanned += Number(output.ScannedCount ?? 0);
      }
      return output;
    },
  });
  writer = new DynamoVisibilityStore({ doc, tableName }, { nowSeconds: () => NOW });
  reader = new DynamoVisibilityStore({ doc: counting, tableName }, { nowSeconds: () => NOW });
  capped = new DynamoVisibilityStore(
    { doc: counting, tableName },
    { nowSeconds: () => NOW, maxCount: 500 },
  );
  for (let i = 0; i < EXECUTIONS; i++) all.push(execution(i));
  // Written through the store in bulk: 25 rows to a BatchWriteItem, a few batches at a time.
  const chunk = 200;
  for (let i = 0; i < all.length; i += chunk) {
    await writer.applyMany(
      all.slice(i, i + chunk).map((state) => ({
        changes: visibilityWrites(undefined, state, state),
        expiresAt: expiryOf(state, RETENTION),
      })),
    );
  }
}, 600_000);
afterAll(() => counting?.destroy());

/** What a query should return, worked out from the states themselves, newest first. */
function expected(list: VisibilityList, filter: VisibilityFilter, oldest = 0, latest = Infinity) {
  const matches = (s: ExecutionState) => {
    if ((list === 'open') !== (s.status === 'OPEN')) return false;
    switch (filter.kind) {
      case 'all':
        return true;
      case 'workflowId':
        return s.execution.workflowId === filter.workflowId;
      case 'type':
        return s.workflowType.name === filter.name;
      case 'typeVersion':
        return s.workflowType.name === filter.name && s.workflowType.version === filter.version;
      case 'tag':
        return s.tagList.includes(filter.tag);
      case 'closeStatus':
        return s.closeStatus === filter.status;
    }
  };
  const time = (s: ExecutionState) =>
    list === 'closed-by-close' ? (s.closeTimestamp ?? 0) : s.startTimestamp;
  return all
    .filter((s) => matches(s) && time(s) >= oldest && time(s) <= latest)
    .sort((a, b) => time(b) - time(a))
    .map((s) => s.execution.runId);
}

const runIds = (infos: readonly ExecutionInfo[]) => infos.map((i) => i.execution.runId);

const query = (
  list: VisibilityList,
  filter: VisibilityFilter,
  range: { oldest: number; latest?: number } = { oldest: 0 },
): VisibilityQuery => ({
  domain: DOMAIN,
  list,
  filter,
  range,
  retention: RETENTION,
  // A type name covers the rows of its versions (every type here has v0 and v1).
  ...(filter.kind === 'type' ? { versions: ['v0', 'v1'] } : {}),
});

/** Reads a whole listing page by page, checking each page's reads against what it returned. */
async function readAll(q: VisibilityQuery, limit: number, reverse = false) {
  const seen: string[] = [];
  let after: string | undefined;
  let pages = 0;
  do {
    reads.reset();
    const page = await reader.list(q, {
      limit,
      reverse,
      ...(after === undefined ? {} : { after }),
    });
    const returned = page.infos.length;
    expect(reads.scans).toBe(0);
    expect(
      reads.scanned,
      `page ${pages} read ${reads.scanned} for ${returned}`,
    ).toBeLessThanOrEqual(1.5 * returned + limit);
    seen.push(...runIds(page.infos));
    after = page.next;
    pages++;
  } while (after !== undefined && pages < 200);
  return seen;
}

describe('a filtered list over 10,000 executions', () => {
  const cases: [string, VisibilityList, VisibilityFilter][] = [
    ['open, one tag', 'open', { kind: 'tag', tag: 'tag-7' }],
    ['open, type and version', 'open', { kind: 'typeVersion', name: 'type-3', version: 'v1' }],
    ['open, type name (its versions merged)', 'open', { kind: 'type', name: 'type-4' }],
    ['closed by close time, type name', 'closed-by-close', { kind: 'type', name: 'type-0' }],
    // (an open run of a workflowId is found through its open-run pointer, not rows)
    [
      'closed by start time, one workflowId',
      'closed-by-start',
      { kind: 'workflowId', workflowId: 'wf-4320' },
    ],
    [
      'closed by close time, close status',
      'closed-by-close',
      { kind: 'closeStatus', status: 'TERMINATED' },
    ],
    ['closed by start time, one tag', 'closed-by-start', { kind: 'tag', tag: 'tag-10' }],
    ['closed by close time, one tag', 'closed-by-close', { kind: 'tag', tag: 'tag-20' }],
  ];

  it.each(cases)('%s: the first page reads about what it returns', async (_, list, filter) => {
    const want = expected(list, filter);
    expect(want.length).toBeGreaterThan(0);
    for (const limit of [10, 100]) {
      reads.reset();
      const page = await reader.list(query(list, filter), { limit, reverse: false });
      expect(runIds(page.infos)).toEqual(want.slice(0, limit));
      expect(page.next === undefined).toBe(want.length <= limit);
      expect(reads.scans).toBe(0);
      expect(reads.scanned).toBeLessThanOrEqual(1.5 * page.infos.length + limit);
    }
  });

  it('pages through a whole tag, newest first and oldest first, reading about what it returns', async () => {
    const q = query('open', { kind: 'tag', tag: 'tag-33' });
    const want = expected('open', { kind: 'tag', tag: 'tag-33' });
    expect(await readAll(q, 25)).toEqual(want);
    expect(await readAll(q, 25, true)).toEqual([...want].reverse());
  });

  it('pages through the busiest list (every open execution) a full page of 1000 at a time', async () => {
    const q = query('open', { kind: 'all' });
    const want = expected('open', { kind: 'all' });
    expect(want.length).toBe(8_000);
    expect(await readAll(q, 1000)).toEqual(want);
  });

  it('answers a time range from its keys: a narrow window reads only that window', async () => {
    const range = { oldest: T0 + 5_000, latest: T0 + 5_299.999 };
    const want = expected('open', { kind: 'all' }, range.oldest, range.latest);
    expect(want.length).toBe(240);
    reads.reset();
    const page = await reader.list(query('open', { kind: 'all' }, range), {
      limit: 1000,
      reverse: false,
    });
    expect(runIds(page.infos)).toEqual(want);
    expect(page.next).toBeUndefined();
    expect(reads.scanned).toBe(want.length);
  });

  it('counts by reading exactly the matching rows', async () => {
    const filter: VisibilityFilter = { kind: 'tag', tag: 'tag-7' };
    reads.reset();
    const out = await reader.count(query('open', filter));
    expect(out).toEqual({ count: expected('open', filter).length, truncated: false });
    expect(reads.scanned).toBe(out.count);
    expect(reads.scans).toBe(0);
    const closed = await reader.count(query('closed-by-start', { kind: 'all' }));
    expect(closed).toEqual({ count: 2_000, truncated: false });
  });

  it('stops counting at its cap and says the count is truncated', async () => {
    reads.reset();
    const out = await capped.count(query('open', { kind: 'all' }));
    expect(out).toEqual({ count: 500, truncated: true });
    expect(reads.scanned).toBeLessThanOrEqual(501 + 4);
    expect(await capped.count(query('open', { kind: 'tag', tag: 'tag-7' }))).toEqual({
      count: expected('open', { kind: 'tag', tag: 'tag-7' }).length,
      truncated: false,
    });
  });

  it('cuts closed rows past their retention off by key range, without reading them', async () => {
    // With a retention that ends 60 % of the way through the closes, the older 60 % are gone.
    const retention = NOW - (T0 + 1.6 * EXECUTIONS);
    const q = { ...query('closed-by-close', { kind: 'all' }), retention };
    const want = expected('closed-by-close', { kind: 'all' }, NOW - retention);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(2_000);
    reads.reset();
    const page = await reader.list(q, { limit: 1000, reverse: true });
    expect(runIds(page.infos)).toEqual([...want].reverse());
    expect(reads.scanned).toBeLessThanOrEqual(1.5 * page.infos.length + 1000);
    reads.reset();
    expect((await reader.count(q)).count).toBe(want.length);
    expect(reads.scanned).toBe(want.length);
  });

  it('reads a type name of hundreds of versions with at most 16 queries out at once', async () => {
    // 300 versions of type-2 (two of them with rows) are 1,200 shards: a list or a count must not
    // send 1,200 queries at once.
    const versions = Array.from({ length: 300 }, (_, i) => `v${i}`);
    const filter: VisibilityFilter = { kind: 'type', name: 'type-2' };
    const q = { ...query('open', filter), versions };
    const want = expected('open', filter);
    reads.reset();
    const page = await reader.list(q, { limit: 100, reverse: false });
    expect(runIds(page.infos)).toEqual(want.slice(0, 100));
    expect(reads.queries).toBeGreaterThanOrEqual(versions.length * 4);
    expect(reads.mostInFlight).toBeLessThanOrEqual(16);
    reads.reset();
    expect(await reader.count(q)).toEqual({ count: want.length, truncated: false });
    expect(reads.queries).toBeGreaterThanOrEqual(versions.length * 4);
    expect(reads.mostInFlight).toBeLessThanOrEqual(16);
  });
});
