import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { keys } from '../adapters/dynamodb/keys.js';
import { unpackAttribute } from '../adapters/dynamodb/packed-json.js';
import { outboxRecords } from '../adapters/dynamodb/table-schema.js';
import type { ExecutionState } from '../core/execution-state.js';
import type { ExecutionStore } from '../ports/execution-store.js';
import { armDeadlines, carryOutRunChange, type OutboxDeps } from './outbox.js';

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

/**
 * Whether the stream function's event source delivers this record (infra/constructs/swf-outbox.ts
 * filters on the same): a change of a run's state item, unless its writer marked it as having no work
 * for the outbox. The local stream poller hands over the same records.
 */
export const isOutboxRecord = (record: StreamRecordLike): boolean =>
  isOutboxImage(record.dynamodb?.NewImage);

/** The same of an item's image (attribute values as DynamoDB's JSON gives them). */
export function isOutboxImage(image: Readonly<Record<string, unknown>> | undefined): boolean {
  const value = (name: string, type: 'S' | 'BOOL'): unknown => {
    const attribute = image?.[name];
    return typeof attribute === 'object' && attribute !== null
      ? Reflect.get(attribute, type)
      : undefined;
  };
  return (
    value(outboxRecords.entityAttribute, 'S') === outboxRecords.entity &&
    value(outboxRecords.workAttribute, 'BOOL') !== false
  );
}

/** The run states of a record, when it is a change of a run's state item; other items carry no effects. */
export interface RunChange {
  readonly before?: ExecutionState;
  readonly after: ExecutionState;
}

/**
 * The run states of a record. A state too big for its item was written apart from it, and the image
 * names it: it is read from `executions`.
 */
export async function runChange(
  record: StreamRecordLike,
  executions: Pick<ExecutionStore, 'readStateApart'>,
): Promise<RunChange | undefined> {
  const images = record.dynamodb;
  if (images?.NewImage === undefined) return undefined;
  const runId = keys.runIdOf(images.Keys?.pk?.S ?? images.NewImage.pk?.S ?? '');
  const after = await stateOf(images.NewImage, runId, executions);
  if (after === undefined) return undefined;
  const before =
    images.OldImage === undefined ? undefined : await stateOf(images.OldImage, runId, executions);
  return before === undefined ? { after } : { before, after };
}

async function stateOf(
  image: Record<string, AttributeValue>,
  runId: string,
  executions: Pick<ExecutionStore, 'readStateApart'>,
): Promise<ExecutionState | undefined> {
  // Only these attributes matter; other attributes of other items are never decoded here.
  if (image[outboxRecords.entityAttribute]?.S !== outboxRecords.entity) return undefined;
  const apart = image[outboxRecords.apartAttribute]?.S;
  if (apart !== undefined) return executions.readStateApart(runId, apart);
  // The state was packed by this service's own execution store.
  return unpackAttribute<ExecutionState>(image[outboxRecords.stateAttribute]);
}

/**
 * Carries out the effects of a batch of records, each run's in order. Each record is retried a bounded number of
 * times; one that still fails is written to the dead-letter list with its error and skipped.
 */
export async function handleStreamRecords(
  deps: OutboxDeps,
  records: readonly StreamRecordLike[],
  options: StreamHandlingOptions = {},
): Promise<void> {
  // A run's records are handled in stream order; different runs' records do not wait for each other,
  // so one run's slow effect (a Lambda task, a cross-execution commit) holds up no one else's timers.
  const byRun = new Map<string, StreamRecordLike[]>();
  for (const record of records) {
    const key = record.dynamodb?.Keys?.pk?.S ?? '';
    const lane = byRun.get(key);
    if (lane === undefined) byRun.set(key, [record]);
    else lane.push(record);
  }
  // Each record's states are decoded once, one record per turn of the event loop: a whole batch
  // decoded in one go would hold up every timer of the process meanwhile. One that cannot be decoded
  // is left to handleRecord (retried, then dead-lettered).
  const decoded = new Map<StreamRecordLike, RunChange | undefined>();
  for (const record of records) {
    await nextTurn();
    try {
      decoded.set(record, await runChange(record, deps.executions));
    } catch {
      // see above
    }
  }
  // Deadlines first: a timer must not wait behind other runs' slower effects. A record whose arms
  // fail here arms them again with the rest of its effects.
  const armed = new Set<StreamRecordLike>();
  await Promise.all(
    records.map(async (record) => {
      try {
        const change = decoded.get(record);
        if (change === undefined) return;
        await armDeadlines(deps, change.before, change.after);
        armed.add(record);
      } catch {
        // retried, and dead-lettered if it keeps failing, by handleRecord
      }
    }),
  );
  const lanes = [...byRun.values()];
  let next = 0;
  const workers = Array.from({ length: Math.min(RUN_CONCURRENCY, lanes.length) }, async () => {
    for (let lane = lanes[next++]; lane !== undefined; lane = lanes[next++]) {
      for (const record of lane) {
        const change = decoded.has(record) ? { change: decoded.get(record) } : undefined;
        await handleRecord(deps, record, options, armed.has(record), change);
      }
    }
  });
  const settled = await Promise.allSettled(workers);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/** Runs whose records are handled at once. */
const RUN_CONCURRENCY = 32;

/** Resumes on the event loop's next turn, after the timers and I/O that are due. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function handleRecord(
  deps: OutboxDeps,
  record: StreamRecordLike,
  options: StreamHandlingOptions,
  alreadyArmed: boolean,
  decoded?: { readonly change: RunChange | undefined },
): Promise<void> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      const change =
        decoded === undefined ? await runChange(record, deps.executions) : decoded.change;
      if (change !== undefined)
        await carryOutRunChange(deps, change.before, change.after, alreadyArmed);
      return;
    } catch (error) {
      if (attempt >= maxAttempts) {
        if (options.isTransient?.(error) === true) throw error;
        await deps.executions.putDeadLetter(
          record.eventID ?? record.dynamodb?.SequenceNumber ?? 'unknown',
          JSON.stringify(record),
          describe(error),
        );
        options.onDeadLetter?.(record, error);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, (options.retryDelayMs ?? 100) * attempt));
    }
  }
}

const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
