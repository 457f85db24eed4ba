import type { RunChange, RunChangeRecords } from '../ports/run-changes.js';
import { armDeadlines, carryOutRunChange, type OutboxDeps } from './outbox.js';

export interface StreamHandlingOptions<R> {
  /** Attempts per record before it is dead-lettered (a poison record must not block its shard). */
  readonly maxAttempts?: number;
  readonly retryDelayMs?: number;
  /**
   * An error this calls transient (throttling, a network fault) is not the record's fault: once the
   * attempts are spent it is thrown, for the caller to retry the batch, instead of dead-lettered.
   */
  readonly isTransient?: (error: unknown) => boolean;
  readonly onDeadLetter?: (record: R, error: unknown) => void;
}

/**
 * Carries out the effects of a batch of records, each run's in order. Each record is retried a bounded number of
 * times; one that still fails is written to the dead-letter list with its error and skipped.
 */
export async function handleStreamRecords<R>(
  deps: OutboxDeps,
  records: readonly R[],
  stream: RunChangeRecords<R>,
  options: StreamHandlingOptions<R> = {},
): Promise<void> {
  // A run's records are handled in stream order; different runs' records do not wait for each other,
  // so one run's slow effect (a Lambda task, a cross-execution commit) holds up no one else's timers.
  const byRun = new Map<string, R[]>();
  for (const record of records) {
    const key = stream.runOf(record);
    const lane = byRun.get(key);
    if (lane === undefined) byRun.set(key, [record]);
    else lane.push(record);
  }
  // Each record's states are decoded once, one record per turn of the event loop: a whole batch
  // decoded in one go would hold up every timer of the process meanwhile. One that cannot be decoded
  // is left to handleRecord (retried, then dead-lettered).
  const decoded = new Map<R, RunChange | undefined>();
  for (const record of records) {
    await nextTurn();
    try {
      decoded.set(record, await stream.changeOf(record));
    } catch {
      // see above
    }
  }
  // Deadlines first: a timer must not wait behind other runs' slower effects. A record whose arms
  // fail here arms them again with the rest of its effects.
  const armed = new Set<R>();
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
        await handleRecord(deps, stream, record, options, armed.has(record), change);
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

async function handleRecord<R>(
  deps: OutboxDeps,
  stream: RunChangeRecords<R>,
  record: R,
  options: StreamHandlingOptions<R>,
  alreadyArmed: boolean,
  decoded?: { readonly change: RunChange | undefined },
): Promise<void> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      const change = decoded === undefined ? await stream.changeOf(record) : decoded.change;
      if (change !== undefined)
        await carryOutRunChange(deps, change.before, change.after, alreadyArmed);
      return;
    } catch (error) {
      if (attempt >= maxAttempts) {
        if (options.isTransient?.(error) === true) throw error;
        await deps.deadLetters.putDeadLetter(
          stream.idOf(record),
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
