import { BatchWriteCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type {
  ExecutionInfo,
  VisibilityChanges,
  VisibilityFilter,
  VisibilityList,
  VisibilityRow,
} from '../../core/visibility.js';
import type {
  VisibilityPage,
  VisibilityQuery,
  VisibilityStore,
} from '../../ports/visibility-store.js';
import type { TableRef } from './client.js';
import { shardOf } from './keys.js';

const BATCH = 25;
const LIST_CODE: Record<VisibilityList, string> = {
  open: 'O',
  'closed-by-start': 'CS',
  'closed-by-close': 'CC',
};

export interface VisibilityStoreOptions {
  /** Partitions per busy filter (all, type, tag, status), so one domain's list is not one hot key. */
  readonly shards?: number;
  readonly nowSeconds?: () => number;
}

/**
 * Visibility rows, one per (list, filter value, execution), keyed
 *   pk = V|<list>|<domain>|<filter>|<shard>     sk = <time in ms, 16 digits>|<runId>
 * so a time range of one filter is a key range. A workflowId's rows are few and never sharded.
 */
export class DynamoVisibilityStore implements VisibilityStore {
  private readonly shards: number;
  private readonly nowSeconds: () => number;

  constructor(
    private readonly table: TableRef,
    options: VisibilityStoreOptions = {},
  ) {
    this.shards = options.shards ?? 4;
    this.nowSeconds = options.nowSeconds ?? (() => Date.now() / 1000);
  }

  async apply(changes: VisibilityChanges, expiresAt: number | undefined): Promise<void> {
    const info = JSON.stringify(changes.info);
    const requests = [
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
    for (let i = 0; i < requests.length; i += BATCH) {
      let pending: Record<string, (typeof requests)[number][]> | undefined = {
        [this.table.tableName]: requests.slice(i, i + BATCH),
      };
      for (let attempt = 0; pending !== undefined && Object.keys(pending).length > 0; attempt++) {
        const result = await this.table.doc.send(new BatchWriteCommand({ RequestItems: pending }));
        pending = result.UnprocessedItems as typeof pending;
        if (pending !== undefined && Object.keys(pending).length > 0)
          await new Promise((r) => setTimeout(r, 10 * 2 ** Math.min(attempt, 6)));
      }
    }
  }

  async list(
    query: VisibilityQuery,
    page: { limit: number; reverse: boolean; after?: string },
  ): Promise<VisibilityPage> {
    // Newest first by default: `reverse` asks for oldest first (swf-api.md §4).
    const ascending = page.reverse;
    const partitions = this.partitions(query);
    const perShard = Math.ceil((page.limit + 1) / partitions.length) + 1;
    const cursors = partitions.map(
      (pk) =>
        new ShardCursor(this.table, this.baseQuery(query, pk, ascending), pk, page.after, perShard),
    );
    const rows: { sk: string; info: ExecutionInfo }[] = [];
    while (rows.length <= page.limit) {
      const heads = await Promise.all(cursors.map((c) => c.peek()));
      let best = -1;
      heads.forEach((head, i) => {
        const current = best < 0 ? undefined : heads[best];
        if (
          head !== undefined &&
          (current === undefined || (ascending ? head.sk < current.sk : head.sk > current.sk))
        )
          best = i;
      });
      const cursor = cursors[best];
      const row = cursor === undefined ? undefined : cursor.take();
      if (row === undefined) break;
      rows.push(row);
    }
    const shown = rows.slice(0, page.limit);
    const last = shown[shown.length - 1];
    const infos = shown.map((r) => r.info);
    return rows.length > page.limit && last !== undefined ? { infos, next: last.sk } : { infos };
  }

  async count(query: VisibilityQuery): Promise<{ count: number; truncated: boolean }> {
    let count = 0;
    for (const pk of this.partitions(query)) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const result = await this.table.doc.send(
          new QueryCommand({
            ...this.baseQuery(query, pk, true),
            Select: 'COUNT',
            ExclusiveStartKey: startKey,
          }),
        );
        count += result.Count ?? 0;
        startKey = result.LastEvaluatedKey;
      } while (startKey !== undefined);
    }
    return { count, truncated: false };
  }

  private baseQuery(query: VisibilityQuery, pk: string, ascending: boolean): QueryCommandInput {
    return {
      TableName: this.table.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
      // Rows past their retention may linger until DynamoDB's TTL deletes them: never show them.
      FilterExpression: 'attribute_not_exists(expiresAt) OR expiresAt > :now',
      ExpressionAttributeValues: {
        ':pk': pk,
        ':low': `${timeKey(query.range.oldest)}|`,
        ':high': `${timeKey(query.range.latest ?? 9_999_999_999_999)}|~`,
        ':now': this.nowSeconds(),
      },
      ScanIndexForward: ascending,
    };
  }

  private partitions(query: VisibilityQuery): string[] {
    const prefix = `V|${LIST_CODE[query.list]}|${query.domain}|${filterKey(query.filter)}`;
    if (query.filter.kind === 'workflowId') return [prefix];
    return Array.from({ length: this.shards }, (_, shard) => `${prefix}|${shard}`);
  }

  private rowKey(row: VisibilityRow): { pk: string; sk: string } {
    const prefix = `V|${LIST_CODE[row.list]}|${row.domain}|${filterKey(row.filter)}`;
    const pk =
      row.filter.kind === 'workflowId' ? prefix : `${prefix}|${shardOf(row.runId, this.shards)}`;
    return { pk, sk: `${timeKey(row.time)}|${row.runId}` };
  }
}

/** Milliseconds, zero-padded so that string order is time order. */
const timeKey = (seconds: number) =>
  String(Math.max(0, Math.round(seconds * 1000))).padStart(16, '0');

/** Names never contain `|` (the identifier rule); tags and statuses come last, so keys stay unambiguous. */
function filterKey(filter: VisibilityFilter): string {
  switch (filter.kind) {
    case 'all':
      return 'A';
    case 'workflowId':
      return `W|${filter.workflowId}`;
    case 'type':
      return `N|${filter.name}`;
    case 'typeVersion':
      return `NV|${filter.name}|${filter.version}`;
    case 'closeStatus':
      return `S|${filter.status}`;
    case 'tag':
      return `G|${filter.tag}`;
  }
}

/** Reads one shard lazily, a little at a time, for the k-way merge. */
class ShardCursor {
  private buffer: { sk: string; info: ExecutionInfo }[] = [];
  private startKey: Record<string, unknown> | undefined;
  private done = false;

  constructor(
    private readonly table: TableRef,
    private readonly query: QueryCommandInput,
    pk: string,
    after: string | undefined,
    private readonly batch: number,
  ) {
    this.startKey = after === undefined ? undefined : { pk, sk: after };
  }

  async peek(): Promise<{ sk: string; info: ExecutionInfo } | undefined> {
    while (this.buffer.length === 0 && !this.done) {
      const result = await this.table.doc.send(
        new QueryCommand({ ...this.query, Limit: this.batch, ExclusiveStartKey: this.startKey }),
      );
      this.buffer = (result.Items ?? []).map((item) => ({
        sk: String(item.sk),
        info: JSON.parse(String(item.info)) as ExecutionInfo,
      }));
      this.startKey = result.LastEvaluatedKey;
      this.done = this.startKey === undefined;
    }
    return this.buffer[0];
  }

  take(): { sk: string; info: ExecutionInfo } | undefined {
    return this.buffer.shift();
  }
}
