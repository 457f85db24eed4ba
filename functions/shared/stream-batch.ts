import middy from '@middy/core';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import type { OutboxDeps } from '../../lib/operations/outbox.js';
import { handleStreamRecords, type StreamRecordLike } from '../../lib/operations/stream-records.js';
import { isTransientError } from './transient.js';

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

/**
 * The stream function: DynamoDB stream records from the table, in order, each carried out by the same
 * handler the local stream poller runs (handleStreamRecords), which is idempotent.
 *
 * - A record whose effects keep failing for a reason of its own (a poison record) is retried a bounded
 *   number of times, then written to the table's dead-letter list and skipped: it never blocks its shard.
 * - A record that fails for a transient reason (throttling, a service fault, a network error, or the
 *   dead-letter write itself failing) is reported in `batchItemFailures` with the records behind it left
 *   undone. Lambda checkpoints before it and delivers it again (ReportBatchItemFailures); replaying the
 *   records it had already carried out would change nothing either.
 */
export function streamBatchHandler(
  depsFor: (context: Context) => OutboxDeps,
  options: StreamBatchOptions = {},
) {
  const reserveMs = options.reserveMs ?? DEFAULT_RESERVE_MS;
  const handlingOptions = {
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
    isTransient: isTransientError,
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
    for (const [index, record] of records.entries()) {
      if (context.getRemainingTimeInMillis() < reserveMs) {
        log('warn', 'stream batch cut short before the Lambda deadline', {
          done: index,
          left: records.length - index,
        });
        return failedFrom(record);
      }
      try {
        await handleStreamRecords(deps, [asStreamRecord(record)], handlingOptions);
      } catch (error) {
        log('warn', 'stream record failed transiently; Lambda will deliver it again', {
          eventID: record.eventID,
          sequenceNumber: record.dynamodb?.SequenceNumber,
          error: describe(error),
        });
        return failedFrom(record);
      }
    }
    return { batchItemFailures: [] };
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
