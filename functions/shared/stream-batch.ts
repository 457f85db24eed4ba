import middy from '@middy/core';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import {
  dynamoStreamRecords,
  type StreamRecordLike,
} from '../../lib/adapters/dynamodb/stream-records.js';
import type { OutboxDeps } from '../../lib/operations/outbox.js';
import { handleStreamRecords } from '../../lib/operations/stream-records.js';
import { isTransientFailure } from '../../lib/ports/transient-failure.js';

export interface StreamBatchOptions {
  /** Tries of one record before it is dead-lettered in the table. @default 5 */
  readonly maxAttempts?: number;
  /** Wait before the n-th retry of a record: n × this. @default 100 */
  readonly retryDelayMs?: number;
  /**
   * No record is begun when less than this is left before the Lambda deadline: it and the records
   * behind it are reported failed, so Lambda checkpoints what is done and delivers the rest again,
   * instead of the whole batch timing out and coming back from its first record. @default 15 s
   */
  readonly reserveMs?: number;
}

const DEFAULT_RESERVE_MS = 15_000;
/** Runs carried out side by side within one batch. */
const LANES_AT_ONCE = 16;

/**
 * The stream function: DynamoDB stream records from the table, each run's in order (runs side by side),
 * each carried out by the same handler the local stream poller runs (handleStreamRecords), which is
 * idempotent.
 *
 * - A record whose effects keep failing for a reason of its own (a poison record) is retried a bounded
 *   number of times, then written to the table's dead-letter list and skipped: it never blocks its shard.
 * - A record that fails for a transient reason (throttling, a service fault, a network error, or the
 *   dead-letter write itself failing) stops its run's lane, and the earliest such record of the batch
 *   is reported in `batchItemFailures`. Lambda checkpoints before it and delivers it and everything
 *   after it again (ReportBatchItemFailures); records of other runs already carried out change nothing
 *   the second time.
 */
export function streamBatchHandler(
  depsFor: (context: Context) => OutboxDeps,
  options: StreamBatchOptions = {},
) {
  const reserveMs = options.reserveMs ?? DEFAULT_RESERVE_MS;
  const handlingOptions = {
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
    isTransient: isTransientFailure,
    onDeadLetter: (record: StreamRecordLike, error: unknown) =>
      log('error', 'stream record dead-lettered', {
        eventID: record.eventID,
        sequenceNumber: record.dynamodb?.SequenceNumber,
        error: describe(error),
      }),
  };
  const handle = async (
    event: DynamoDBStreamEvent,
    context: Context,
  ): Promise<DynamoDBBatchResponse> => {
    const deps = depsFor(context);
    const records = event.Records;
    // A run's records in stream order; runs side by side, so one run's slow effect (a Lambda task)
    // holds up no other run's timers. The first record of each lane not carried out is remembered.
    const lanes = new Map<string, number[]>();
    records.forEach((record, index) => {
      const key = record.dynamodb?.Keys?.pk?.S ?? '';
      const lane = lanes.get(key);
      if (lane === undefined) lanes.set(key, [index]);
      else lane.push(index);
    });
    const undone: number[] = [];
    const runLane = async (lane: readonly number[]) => {
      for (const index of lane) {
        const record = records[index] as DynamoDBRecord;
        if (context.getRemainingTimeInMillis() < reserveMs) {
          log('warn', 'stream batch cut short before the Lambda deadline', {
            sequenceNumber: record.dynamodb?.SequenceNumber,
          });
          undone.push(index);
          return;
        }
        try {
          await handleStreamRecords(
            deps,
            [asStreamRecord(record)],
            dynamoStreamRecords(deps.runs),
            handlingOptions,
          );
        } catch (error) {
          log('warn', 'stream record failed transiently; Lambda will deliver it again', {
            eventID: record.eventID,
            sequenceNumber: record.dynamodb?.SequenceNumber,
            error: describe(error),
          });
          undone.push(index);
          return;
        }
      }
    };
    const queue = [...lanes.values()];
    await Promise.all(
      Array.from({ length: Math.min(LANES_AT_ONCE, queue.length) }, async () => {
        for (let lane = queue.shift(); lane !== undefined; lane = queue.shift())
          await runLane(lane);
      }),
    );
    if (undone.length === 0) return { batchItemFailures: [] };
    // Lambda resumes from the earliest record reported: what was done after it comes again, harmlessly.
    return failedFrom(records[Math.min(...undone)] as DynamoDBRecord);
  };
  // No early timeout from middy: the reserve above ends the batch in time and reports where it got to.
  return middy(handle, { timeoutEarlyInMillis: 0 });
}

/**
 * Lambda resumes a stream from the lowest sequence number reported, so the first record not carried
 * out is enough. Without a sequence number there is no checkpoint to give: the whole batch fails.
 */
function failedFrom(record: DynamoDBRecord): DynamoDBBatchResponse {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  if (sequenceNumber === undefined || sequenceNumber === '') {
    throw new Error(`stream record ${record.eventID ?? '?'} has no sequence number`);
  }
  return { batchItemFailures: [{ itemIdentifier: sequenceNumber }] };
}

/**
 * Lambda's records carry the same images as the Streams API's, in aws-lambda's looser typing; the
 * handler reads only string attributes of them.
 */
const asStreamRecord = (record: DynamoDBRecord): StreamRecordLike =>
  record as unknown as StreamRecordLike;

const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

function log(level: 'warn' | 'error', message: string, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, message, ...fields });
  if (level === 'error') console.error(line);
  else console.warn(line);
}
