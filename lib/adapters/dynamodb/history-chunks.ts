import type { HistoryEvent } from '../../core/history-event.js';
import type { HistoryPage } from '../../ports/run-store.js';
import type { TableRef } from './client.js';
import { isDynamoError } from './doc-client.js';
import { keys } from './keys.js';
import { isPacked, packJson, unpackJson } from './packed-json.js';

/** UTF-8 bytes of events' JSON per history chunk (deflate never grows them by more than a few bytes). */
const MAX_CHUNK_BYTES = 300_000;

/** The events a packed attribute holds (a chunk's, or the state item's recent ones). */
export const parseEvents = (stored: unknown): HistoryEvent[] =>
  isPacked(stored) ? unpackJson(stored) : [];

/**
 * Splits a commit's events into chunks that each fit comfortably in one item, by their UTF-8 bytes (a
 * character outside ASCII takes two to four: counted in characters, a chunk could pass 400 KB).
 */
export function chunksOf(events: readonly HistoryEvent[]): HistoryEvent[][] {
  const chunks: HistoryEvent[][] = [];
  let current: HistoryEvent[] = [];
  let size = 0;
  for (const event of events) {
    const eventSize = Buffer.byteLength(JSON.stringify(event));
    if (current.length > 0 && size + eventSize > MAX_CHUNK_BYTES) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(event);
    size += eventSize;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** A page of a run's history as readHistory is asked for it. */
export interface HistoryPageRequest {
  readonly after?: number;
  readonly limit: number;
  readonly reverse: boolean;
  /** The run's recent events, when the caller has read its state item already. */
  readonly recent?: readonly HistoryEvent[];
}

interface ChunkQuery {
  readonly low: string;
  readonly high: string;
  readonly forward: boolean;
  readonly limit?: number;
  readonly startKey?: Record<string, unknown>;
}

/**
 * A run's history: chunks of its committed events, each an item keyed by its first event, and the
 * latest events, which its state item holds.
 */
export class HistoryChunks {
  constructor(private readonly table: TableRef) {}

  chunkItem(
    runId: string,
    events: readonly HistoryEvent[],
    expiresAt: number | undefined,
  ): Record<string, unknown> {
    const first = events[0]?.eventId ?? 0;
    return {
      ...keys.historyChunk(runId, first),
      entity: 'History',
      first,
      last: first + events.length - 1,
      events: packJson(events),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
  }

  /**
   * Writes committed events as the chunk keyed by the first. Every writer that loaded the same version
   * writes the same events; a writer that loaded an older version may hold fewer of them than a chunk
   * written since, so a chunk is only ever replaced by one that ends at the same event or later.
   */
  async put(
    runId: string,
    events: readonly HistoryEvent[],
    expiresAt: number | undefined,
  ): Promise<void> {
    try {
      await this.table.doc.put({
        TableName: this.table.tableName,
        Item: this.chunkItem(runId, events, expiresAt),
        ConditionExpression: 'attribute_not_exists(pk) OR #last <= :last',
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: { ':last': (events[0]?.eventId ?? 0) + events.length - 1 },
      });
    } catch (error) {
      // A longer chunk is there already.
      if (!isDynamoError(error, 'ConditionalCheckFailedException')) throw error;
    }
  }

  /**
   * Events from `after` (inclusive) on, in either direction: the history chunks, then the latest events
   * the state item holds (which win where a chunk written by a slower writer overlaps them). Chunks are
   * read only as far as the page needs: from the one holding `after`, until the page is full plus one
   * event, so `next` is set only when more follow.
   */
  async readHistory(runId: string, page: HistoryPageRequest): Promise<HistoryPage> {
    const from = page.after ?? (page.reverse ? Number.MAX_SAFE_INTEGER : 1);
    const recent = page.recent ?? (await this.readRecent(runId));
    const recentFrom = recent[0]?.eventId ?? Number.MAX_SAFE_INTEGER;
    const inPage = (e: HistoryEvent) => (page.reverse ? e.eventId <= from : e.eventId >= from);
    const events: HistoryEvent[] = [];
    const take = (item: Record<string, unknown>) => {
      const chunk = parseEvents(item.events).filter((e) => e.eventId < recentFrom);
      events.push(...(page.reverse ? chunk.reverse() : chunk).filter(inPage));
    };
    if (page.reverse) events.push(...[...recent].reverse().filter(inPage));
    if (page.reverse || from < recentFrom) await this.readChunks(runId, page, from, events, take);
    if (!page.reverse) events.push(...recent.filter(inPage));
    const next = events[page.limit]?.eventId;
    const shown = events.slice(0, page.limit);
    return next === undefined ? { events: shown } : { events: shown, next };
  }

  private async readRecent(runId: string): Promise<HistoryEvent[]> {
    const { Item } = await this.table.doc.get({
      TableName: this.table.tableName,
      Key: keys.runState(runId),
      ProjectionExpression: 'recent',
      ConsistentRead: true,
    });
    return parseEvents(Item?.recent);
  }

  private async readChunks(
    runId: string,
    page: { limit: number; reverse: boolean },
    from: number,
    events: HistoryEvent[],
    take: (item: Record<string, unknown>) => void,
  ): Promise<void> {
    const low = page.reverse ? 'H|' : await this.forwardStart(runId, from, take);
    let startKey: Record<string, unknown> | undefined;
    while (events.length <= page.limit) {
      const result = await this.queryChunks(runId, {
        low,
        high: page.reverse ? keys.historyChunkSort(Math.min(from, 99_999_999)) : 'H|~',
        forward: !page.reverse,
        ...(startKey === undefined ? {} : { startKey }),
      });
      for (const item of result.items) take(item);
      startKey = result.next;
      if (startKey === undefined) break;
    }
  }

  /**
   * Where a forward read starts. Chunks are keyed by their first event: reading from event 1 starts
   * at the first chunk; from later on, the chunk holding `from` is the last one that starts at or
   * before it (taken here), and the read goes on after it.
   */
  private async forwardStart(
    runId: string,
    from: number,
    take: (item: Record<string, unknown>) => void,
  ): Promise<string> {
    if (from <= 1) return keys.historyChunkSort(1);
    const holding = await this.queryChunks(runId, {
      low: 'H|',
      high: keys.historyChunkSort(from),
      forward: false,
      limit: 1,
    });
    const item = holding.items[0];
    if (item === undefined) return keys.historyChunkSort(from);
    take(item);
    return `${String(item.sk)}\u0000`;
  }

  private async queryChunks(
    runId: string,
    q: ChunkQuery,
  ): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
    const result = await this.table.doc.query({
      TableName: this.table.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
      ExpressionAttributeValues: {
        ':pk': keys.runPartition(runId),
        ':low': q.low,
        ':high': q.high,
      },
      ScanIndexForward: q.forward,
      ConsistentRead: true,
      ...(q.limit === undefined ? {} : { Limit: q.limit }),
      ...(q.startKey === undefined ? {} : { ExclusiveStartKey: q.startKey }),
    });
    const items = result.Items ?? [];
    return result.LastEvaluatedKey === undefined
      ? { items }
      : { items, next: result.LastEvaluatedKey };
  }
}
