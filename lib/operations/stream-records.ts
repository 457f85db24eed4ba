import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ExecutionState } from '../core/execution-state.js';
import { carryOutRunChange, type OutboxDeps } from './outbox.js';

/** A DynamoDB stream record as both Lambda and the Streams API deliver it (AttributeValue images). */
export interface StreamRecordLike {
  readonly eventID?: string | undefined;
  readonly eventName?: string | undefined;
  readonly dynamodb?:
    | {
        readonly Keys?: Record<string, AttributeValue> | undefined;
        readonly OldImage?: Record<string, AttributeValue> | undefined;
        readonly NewImage?: Record<string, AttributeValue> | undefined;
        readonly SequenceNumber?: string | undefined;
      }
    | undefined;
}

export interface StreamHandlingOptions {
  /** Attempts per record before it is dead-lettered (a poison record must not block its shard). */
  readonly maxAttempts?: number;
  readonly retryDelayMs?: number;
  /**
   * An error this calls transient (throttling, a network fault) is not the record's fault: once the
   * attempts are spent it is thrown, for the caller to retry the batch, instead of dead-lettered.
   */
  readonly isTransient?: (error: unknown) => boolean;
  readonly onDeadLetter?: (record: StreamRecordLike, error: unknown) => void;
}

/** The run states of a record, when it is a change of a run's state item; other items carry no effects. */
export function runChange(
  record: StreamRecordLike,
): { before?: ExecutionState; after: ExecutionState } | undefined {
  const images = record.dynamodb;
  if (images?.NewImage === undefined) return undefined;
  const after = stateOf(images.NewImage);
  if (after === undefined) return undefined;
  const before = images.OldImage === undefined ? undefined : stateOf(images.OldImage);
  return before === undefined ? { after } : { before, after };
}

function stateOf(image: Record<string, AttributeValue>): ExecutionState | undefined {
  // Only two attributes matter; other attributes of other items are never decoded here.
  if (image.entity?.S !== 'Run' || image.state?.S === undefined) return undefined;
  // The state JSON was written by this service's own execution store.
  return JSON.parse(image.state.S) as ExecutionState;
}

/**
 * Carries out the effects of a batch of records, in order. Each record is retried a bounded number of
 * times; one that still fails is written to the dead-letter list with its error and skipped.
 */
export async function handleStreamRecords(
  deps: OutboxDeps,
  records: readonly StreamRecordLike[],
  options: StreamHandlingOptions = {},
): Promise<void> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (const record of records) {
    for (let attempt = 1; ; attempt++) {
      try {
        const change = runChange(record);
        if (change !== undefined) await carryOutRunChange(deps, change.before, change.after);
        break;
      } catch (error) {
        if (attempt >= maxAttempts) {
          if (options.isTransient?.(error) === true) throw error;
          await deps.executions.putDeadLetter(
            record.eventID ?? record.dynamodb?.SequenceNumber ?? 'unknown',
            JSON.stringify(record),
            describe(error),
          );
          options.onDeadLetter?.(record, error);
          break;
        }
        await new Promise((resolve) =>
          setTimeout(resolve, (options.retryDelayMs ?? 100) * attempt),
        );
      }
    }
  }
}

const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
