import {
  dynamoStreamRecords,
  isOutboxRecord,
  type StreamRecordLike,
} from '../adapters/dynamodb/stream-records.js';
import type { OutboxDeps } from '../operations/outbox.js';
import { handleStreamRecords } from '../operations/stream-records.js';
import { isTransientFailure } from '../ports/transient-failure.js';

/**
 * Where Lambda's DynamoDB event source puts a batch it gave up on (the stream function's on-failure
 * destination, an SQS queue): the batch's place in the stream, not its records.
 */
export interface StreamBatchPointer {
  readonly streamArn: string;
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly batchSize?: number;
}

/** A message of the on-failure queue, received and not yet deleted. */
export interface PointerMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
}

export interface PointerQueue {
  /** Up to a batch of messages, hidden from other readers for a while; none when it is empty. */
  receive(): Promise<readonly PointerMessage[]>;
  remove(message: PointerMessage): Promise<void>;
  /** Makes a message kept in the queue visible again (it was hidden when received). */
  release(message: PointerMessage): Promise<void>;
}

/** The records of a pointer's range, or that the stream no longer holds them all (24 hours). */
export type ShardRange =
  | { readonly status: 'read'; readonly records: readonly StreamRecordLike[] }
  | { readonly status: 'aged-out'; readonly reason: string };

export interface StreamShards {
  read(pointer: StreamBatchPointer): Promise<ShardRange>;
}

export interface RedriveDeps {
  readonly queue: PointerQueue;
  readonly shards: StreamShards;
  readonly outbox: () => Promise<OutboxDeps>;
}

export type PointerOutcome =
  | { readonly outcome: 'unreadable'; readonly messageId: string; readonly reason: string }
  | {
      readonly outcome: 'aged-out';
      readonly messageId: string;
      readonly pointer: StreamBatchPointer;
      readonly reason: string;
    }
  | {
      readonly outcome: 'would-redrive' | 'redriven';
      readonly messageId: string;
      readonly pointer: StreamBatchPointer;
      readonly records: number;
    }
  | {
      readonly outcome: 'failed';
      readonly messageId: string;
      readonly pointer: StreamBatchPointer;
      readonly error: string;
    };

/**
 * Reads every pointer in the queue, fetches its records from the stream and runs them through the
 * stream handler's processing (idempotent: effects already carried out are not carried out twice).
 * A pointer is deleted only when that succeeded; one whose records have aged out of the stream, or
 * that failed, stays in the queue and is reported. A dry run reads, and changes nothing.
 */
export async function redriveStream(
  deps: RedriveDeps,
  dryRun: boolean,
): Promise<readonly PointerOutcome[]> {
  const outcomes: PointerOutcome[] = [];
  const kept: PointerMessage[] = [];
  const seen = new Set<string>();
  for (;;) {
    const fresh = (await deps.queue.receive()).filter((m) => !seen.has(m.messageId));
    // A message seen before ends the pass: each is looked at once.
    if (fresh.length === 0) break;
    for (const message of fresh) {
      seen.add(message.messageId);
      const outcome = await redriveOne(deps, message, dryRun);
      if (outcome.outcome !== 'redriven') kept.push(message);
      outcomes.push(outcome);
    }
  }
  // What stays in the queue is visible again at once, as before the pass (a dry run changes nothing).
  for (const message of kept) await deps.queue.release(message);
  return outcomes;
}

async function redriveOne(
  deps: RedriveDeps,
  message: PointerMessage,
  dryRun: boolean,
): Promise<PointerOutcome> {
  const { messageId } = message;
  const pointer = pointerOf(message.body);
  if (typeof pointer === 'string') return { outcome: 'unreadable', messageId, reason: pointer };
  const range = await deps.shards.read(pointer);
  if (range.status === 'aged-out')
    return { outcome: 'aged-out', messageId, pointer, reason: range.reason };
  const records = range.records.filter(isOutboxRecord);
  if (dryRun) return { outcome: 'would-redrive', messageId, pointer, records: records.length };
  const outbox = await deps.outbox();
  try {
    // As the stream function does: a record failing for its own reason is dead-lettered, a transient
    // failure is thrown and leaves the pointer for another try.
    await handleStreamRecords(outbox, records, dynamoStreamRecords(outbox.runs), {
      isTransient: isTransientFailure,
    });
  } catch (error) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { outcome: 'failed', messageId, pointer, error: text };
  }
  await deps.queue.remove(message);
  return { outcome: 'redriven', messageId, pointer, records: records.length };
}

/** The pointer of an on-failure message (Lambda's invocation record for a stream batch). */
export function pointerOf(body: string): StreamBatchPointer | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'the message is not JSON';
  }
  const info = field(parsed, 'DDBStreamBatchInfo');
  const text = (name: string) => {
    const value = field(info, name);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const streamArn = text('streamArn');
  const shardId = text('shardId');
  const start = text('startSequenceNumber');
  const end = text('endSequenceNumber');
  if (streamArn === undefined || shardId === undefined || start === undefined || end === undefined)
    return 'the message holds no DynamoDB stream batch (DDBStreamBatchInfo)';
  if (!/^\d+$/.test(start) || !/^\d+$/.test(end))
    return 'the batch has sequence numbers that are not numbers';
  const batchSize = field(info, 'batchSize');
  return {
    streamArn,
    shardId,
    startSequenceNumber: start,
    endSequenceNumber: end,
    ...(typeof batchSize === 'number' ? { batchSize } : {}),
  };
}

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
