import type { BatchWriteCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ThrottlingException } from '../../core/faults.js';
import {
  type ExecutionInfo,
  STATUS_READ_FROM_ALL,
  type VisibilityChanges,
  type VisibilityFilter,
  type VisibilityRow,
} from '../../core/visibility.js';
import type {
  VisibilityCount,
  VisibilityPage,
  VisibilityQuery,
  VisibilityStore,
} from '../../ports/visibility-store.js';
import { queryPages, type TableRef } from './client.js';
import { isDynamoError } from './doc-client.js';
import { keys, shardOf } from './keys.js';
import { mapLimited } from './parallel.js';

const BATCH = 25;
/** BatchWriteItem attempts for one batch's unprocessed items (their pauses add up to about 3 s). */
const MAX_BATCH_ATTEMPTS = 10;
/** Parallel writes when a closed run's items are marked for expiry. */
const EXPIRY_WRITES = 8;
/**
 * Queries one list or count has out at once: a typeFilter by name alone reads every version's shards,
 * and a domain may hold thousands of versions of a type.
 */
const PARALLEL_QUERIES = 16;

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

export interface VisibilityStoreOptions {
  /** Partitions per filter value (all but workflowId), so one domain's list is not one hot key. */
  readonly shards?: number;
  /** Counting stops here and answers `truncated: true` (SWF truncates counts too). */
  readonly maxCount?: number;
  readonly nowSeconds?: () => number;
}

/**
 * Visibility rows, one per (list, filter value, execution), keyed (see keys.visibilityPartition)
 *   pk = V|<list>|<domain>|<filter>|<shard>     sk = <time in ms, 16 digits>|<runId>
 * so a time range of one filter is a key range of each shard. A page is a k-way merge of the shards,
 * each read a little at a time, so a list reads about what it returns. Rows carry the
 * WorkflowExecutionInfo they show; closed rows carry `expiresAt` (the domain's retention).
 */
export class DynamoVisibilityStore implements VisibilityStore {
  private readonly shards: number;
  private readonly maxCount: number;
  private readonly nowSeconds: () => number;

  constructor(
    private readonly table: TableRef,
    options: VisibilityStoreOptions = {},
  ) {
    this.shards = options.shards ?? 4;
    this.maxCount = options.maxCount ?? 100_000;
    this.nowSeconds = options.nowSeconds ?? (() => Date.now() / 1000);
  }

  async apply(changes: VisibilityChanges, expiresAt: number | undefined): Promise<void> {
    await this.applyMany([{ changes, expiresAt }]);
  }

  /**
   * The row changes of many runs, packed 25 to a BatchWriteItem: for bulk loads (rebuilding the rows
   * of existing runs); the outbox writes one run at a time.
   */
  async applyMany(
    runs: readonly { changes: VisibilityChanges; expiresAt: number | undefined }[],
  ): Promise<void> {
    const requests = runs.flatMap(({ changes, expiresAt }) => this.requests(changes, expiresAt));
    const batches: WriteRequest[][] = [];
    for (let i = 0; i < requests.length; i += BATCH) batches.push(requests.slice(i, i + BATCH));
    await Promise.all(batches.map((batch) => this.writeBatch(batch)));
  }

  private requests(changes: VisibilityChanges, expiresAt: number | undefined): WriteRequest[] {
    const info = JSON.stringify(changes.info);
    return [
      ...changes.remove.map((row) => ({ DeleteRequest: { Key: this.rowKey(row) } })),
      ...changes.put.map((row) => ({
        PutRequest: {
          Item: {
            ...this.rowKey(row),
            entity: 'Visibility',
            info,
            ...(row.list !== 'open' && expiresAt !== undefined ? { expiresAt } : {}),
          },
        },
      })),
    ];
  }

  private async writeBatch(batch: WriteRequest[]): Promise<void> {
    let pending: WriteRequest[] = batch;
    for (let attempt = 0; pending.length > 0; attempt++) {
      // Items DynamoDB keeps leaving unprocessed (sustained throttling): given up after ~3 s as a
      // transient failure, so the stream batch is retried later instead of running into its function's timeout.
      if (attempt >= MAX_BATCH_ATTEMPTS) {
        throw new ThrottlingException(
          `DynamoDB left ${pending.length} visibility rows unprocessed through ${MAX_BATCH_ATTEMPTS} attempts`,
        );
      }
      if (attempt > 0) await sleep(10 * 2 ** Math.min(attempt, 6));
      const result = await this.table.doc.batchWrite({
        RequestItems: { [this.table.tableName]: pending },
      });
      pending = result.UnprocessedItems?.[this.table.tableName] ?? [];
    }
  }

  async list(
    query: VisibilityQuery,
    page: { limit: number; reverse: boolean; after?: string },
  ): Promise<VisibilityPage> {
    // Newest first by default: `reverse` asks for oldest first.
    const ascending = page.reverse;
    const partitions = this.partitions(query);
    // One clock reading per request: the retention cut-off must not move between the queries.
    const bounds = this.bounds(query);
    if (partitions.length === 0 || bounds.low > bounds.high) return { infos: [] };
    // Enough from each shard for an even spread of one page (plus the row that tells a next page
    // exists); a shard that runs dry mid-merge is read again, so an uneven spread costs a few queries.
    const batch = Math.ceil((page.limit + 1) / partitions.length) + 1;
    const cursors = partitions.map(
      (pk) =>
        new ShardCursor(this.table, this.query(pk, ascending, bounds), bounds, page.after, batch),
    );
    const rows: Row[] = [];
    while (rows.length <= page.limit) {
      const heads = await mapLimited(cursors, PARALLEL_QUERIES, (c) => c.peek());
      let best: number | undefined;
      heads.forEach((head, i) => {
        const current = best === undefined ? undefined : heads[best];
        if (head === undefined) return;
        if (current === undefined || (ascending ? head.sk < current.sk : head.sk > current.sk))
          best = i;
      });
      const row = best === undefined ? undefined : cursors[best]?.take();
      if (row === undefined) break;
      rows.push(row);
    }
    const shown = rows.slice(0, page.limit);
    const last = shown[shown.length - 1];
    const infos = shown.map((r) => r.info);
    return rows.length > page.limit && last !== undefined ? { infos, next: last.sk } : { infos };
  }

  /**
   * Counts with Select COUNT, reading at most one row more than the cap: an even share of it from every
   * shard at once, then what is left of it from the shards that have more.
   */
  async count(query: VisibilityQuery): Promise<VisibilityCount> {
    const partitions = this.partitions(query);
    const bounds = this.bounds(query);
    if (partitions.length === 0 || bounds.low > bounds.high) return { count: 0, truncated: false };
    const budget = this.maxCount + 1;
    const share = Math.ceil(budget / partitions.length);
    const first = await mapLimited(partitions, PARALLEL_QUERIES, (pk) =>
      this.countPage(pk, share, undefined, bounds),
    );
    let count = first.reduce((sum, page) => sum + page.count, 0);
    for (const [i, page] of first.entries()) {
      let next = page.next;
      while (next !== undefined && count < budget) {
        const more = await this.countPage(partitions[i] ?? '', budget - count, next, bounds);
        count += more.count;
        next = more.next;
      }
    }
    return count > this.maxCount
      ? { count: this.maxCount, truncated: true }
      : { count, truncated: false };
  }

  private async countPage(
    pk: string,
    limit: number,
    startKey: Record<string, unknown> | undefined,
    bounds: Bounds,
  ): Promise<{ count: number; next?: Record<string, unknown> }> {
    const result = await this.table.doc.query({
      ...this.query(pk, true, bounds),
      Select: 'COUNT',
      Limit: limit,
      ExclusiveStartKey: startKey,
    });
    const count = result.Count ?? 0;
    return result.LastEvaluatedKey === undefined
      ? { count }
      : { count, next: result.LastEvaluatedKey };
  }

  async expireRun(runId: string, expiresAt: number): Promise<void> {
    const unmarked: { pk: string; sk: string }[] = [];
    const pages = queryPages(this.table, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.runPartition(runId) },
      ProjectionExpression: 'pk, sk, expiresAt',
      ConsistentRead: true,
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        // Marked already, at this time or (written up front, see upFrontExpiry) later: reads go by the
        // state's expiry, so an item kept a little longer is never seen.
        if (typeof item.expiresAt === 'number' && item.expiresAt >= expiresAt) continue;
        unmarked.push({ pk: String(item.pk), sk: String(item.sk) });
      }
    }
    for (let i = 0; i < unmarked.length; i += EXPIRY_WRITES) {
      await Promise.all(
        unmarked.slice(i, i + EXPIRY_WRITES).map((key) => this.markExpiry(key, expiresAt)),
      );
    }
  }

  /** Sets the TTL attribute of an item that still exists (a deleted one is not brought back). */
  private async markExpiry(key: { pk: string; sk: string }, expiresAt: number): Promise<void> {
    try {
      await this.table.doc.update({
        TableName: this.table.tableName,
        Key: key,
        UpdateExpression: 'SET expiresAt = :e',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':e': expiresAt },
      });
    } catch (error) {
      if (!isDynamoError(error, 'ConditionalCheckFailedException')) throw error;
    }
  }

  /**
   * What one request reads, at one reading of the clock: its sort-key bounds and whether it reads
   * closed rows (then `now` hides those past their retention). A closed row's expiry is its close time
   * plus the domain's retention, so rows closed longer ago than that are cut off by the key range
   * itself in the by-close list. Bounds the wrong way round (`low > high`) hold no row: a range that
   * ended before the retention cut-off, or one inside a millisecond without a whole one in it (rows
   * are kept to the millisecond); DynamoDB refuses such a BETWEEN.
   */
  private bounds(query: VisibilityQuery): Bounds {
    const now = this.nowSeconds();
    const oldest =
      query.list === 'closed-by-close'
        ? Math.max(query.range.oldest, now - query.retention)
        : query.range.oldest;
    return {
      ...keys.visibilityRange(oldest, query.range.latest),
      closed: query.list !== 'open',
      now,
      ...(readFromAll(query) ? { status: STATUS_READ_FROM_ALL } : {}),
    };
  }

  private query(pk: string, ascending: boolean, bounds: Bounds): QueryCommandInput {
    return {
      TableName: this.table.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
      // Closed rows past their retention linger until DynamoDB's TTL deletes them (lazily): never show
      // them. Only the by-start list can meet such rows inside its key range (docs/swf-differences.md, "Retention").
      ...(bounds.closed ? { FilterExpression: closedFilter(bounds.status) } : {}),
      ExpressionAttributeValues: {
        ':pk': pk,
        ':low': bounds.low,
        ':high': bounds.high,
        ...(bounds.closed ? { ':now': bounds.now } : {}),
        // The row's info is JSON: a string member's quotes are escaped there, so this names the
        // closeStatus member and nothing else (rows written before this filter existed included).
        ...(bounds.status === undefined
          ? {}
          : { ':status': `"closeStatus":${JSON.stringify(bounds.status)}` }),
      },
      ScanIndexForward: ascending,
    };
  }

  /** The partitions a query reads: its filter's shards; a type name's, those of all its versions. */
  private partitions(query: VisibilityQuery): string[] {
    const filter = readFromAll(query) ? ({ kind: 'all' } as const) : query.filter;
    const filters: VisibilityFilter[] =
      filter.kind === 'type'
        ? (query.versions ?? []).map((version) => ({
            kind: 'typeVersion',
            name: filter.name,
            version,
          }))
        : [filter];
    const count = filter.kind === 'workflowId' ? 1 : this.shards;
    return filters.flatMap((f) =>
      Array.from({ length: count }, (_, shard) =>
        keys.visibilityPartition(query.list, query.domain, f, shard),
      ),
    );
  }

  private rowKey(row: VisibilityRow): { pk: string; sk: string } {
    return {
      pk: keys.visibilityPartition(
        row.list,
        row.domain,
        row.filter,
        shardOf(row.runId, this.shards),
      ),
      sk: keys.visibilitySort(row.time, row.runId),
    };
  }
}

interface Bounds {
  readonly low: string;
  readonly high: string;
  readonly closed: boolean;
  /** Epoch seconds the request was read at. */
  readonly now: number;
  /** The close status kept of the 'all' rows (see STATUS_READ_FROM_ALL). */
  readonly status?: string;
}

/** A closeStatusFilter answered from the 'all' rows. */
const readFromAll = (query: VisibilityQuery) =>
  query.list !== 'open' &&
  query.filter.kind === 'closeStatus' &&
  query.filter.status === STATUS_READ_FROM_ALL;

/** Closed rows within their retention, of one close status when given. */
const closedFilter = (status: string | undefined) =>
  status === undefined
    ? 'attribute_not_exists(expiresAt) OR expiresAt > :now'
    : '(attribute_not_exists(expiresAt) OR expiresAt > :now) AND contains(info, :status)';

interface Row {
  readonly sk: string;
  readonly info: ExecutionInfo;
}

/** Reads one shard lazily, `batch` rows at a time, for the k-way merge. */
class ShardCursor {
  private buffer: Row[] = [];
  private startKey: Record<string, unknown> | undefined;
  private done = false;

  constructor(
    private readonly table: TableRef,
    private readonly query: QueryCommandInput,
    range: { low: string; high: string },
    after: string | undefined,
    private readonly batch: number,
  ) {
    const pk = query.ExpressionAttributeValues?.[':pk'];
    const ascending = query.ScanIndexForward === true;
    if (after === undefined) return;
    // A cursor outside the key range (the retention cut-off moved past it since the last page) is
    // either all behind us or not yet reached; DynamoDB refuses a start key outside the range.
    const passedEnd = ascending ? after >= range.high : after <= range.low;
    const beforeStart = ascending ? after < range.low : after > range.high;
    if (passedEnd) this.done = true;
    else if (!beforeStart) this.startKey = { pk, sk: after };
  }

  async peek(): Promise<Row | undefined> {
    while (this.buffer.length === 0 && !this.done) {
      const result = await this.table.doc.query({
        ...this.query,
        Limit: this.batch,
        ExclusiveStartKey: this.startKey,
      });
      this.buffer = (result.Items ?? []).map((item) => ({
        sk: String(item.sk),
        // The row's JSON was written by this store's apply().
        info: JSON.parse(String(item.info)) as ExecutionInfo,
      }));
      this.startKey = result.LastEvaluatedKey;
      this.done = this.startKey === undefined;
    }
    return this.buffer[0];
  }

  take(): Row | undefined {
    return this.buffer.shift();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
