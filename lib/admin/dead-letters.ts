import { keys } from '../adapters/dynamodb/keys.js';
import {
  dynamoStreamRecords,
  isOutboxRecord,
  type StreamRecordLike,
} from '../adapters/dynamodb/stream-records.js';
import type { OutboxDeps } from '../operations/outbox.js';
import { handleStreamRecords } from '../operations/stream-records.js';
import type { DeadLetter, DeadLetterStore } from '../ports/dead-letter-store.js';
import { isTransientFailure } from '../ports/transient-failure.js';

/** What the dead-letter commands work with. */
export interface DeadLetterAdminDeps {
  readonly letters: Pick<DeadLetterStore, 'listDeadLetters'>;
  readonly removeLetter: (at: number, id: string) => Promise<void>;
  /** The outbox a replay carries effects out with (built on first use: only replay needs it). */
  readonly outbox: () => Promise<OutboxDeps>;
}

/**
 * A letter is filed under its record's id (the stream's event id). A record handled again after a
 * failed batch can be dead-lettered twice: every command by id covers all of its letters.
 */
export async function lettersOf(deps: DeadLetterAdminDeps, id: string): Promise<DeadLetter[]> {
  return (await deps.letters.listDeadLetters()).filter((letter) => letter.id === id);
}

export type DiscardOutcome =
  | { readonly outcome: 'not-found'; readonly id: string }
  | {
      readonly outcome: 'would-discard' | 'discarded';
      readonly id: string;
      readonly letters: number;
    };

export async function discardLetters(
  deps: DeadLetterAdminDeps,
  id: string,
  dryRun: boolean,
): Promise<DiscardOutcome> {
  const letters = await lettersOf(deps, id);
  if (letters.length === 0) return { outcome: 'not-found', id };
  if (dryRun) return { outcome: 'would-discard', id, letters: letters.length };
  for (const letter of letters) await deps.removeLetter(letter.at, letter.id);
  return { outcome: 'discarded', id, letters: letters.length };
}

export type ReplayOutcome =
  | { readonly outcome: 'not-found'; readonly id: string }
  | { readonly outcome: 'unreadable'; readonly id: string; readonly reason: string }
  | { readonly outcome: 'would-replay'; readonly id: string; readonly runId: string }
  | {
      readonly outcome: 'replayed';
      readonly id: string;
      readonly runId: string;
      readonly letters: number;
    }
  | {
      readonly outcome: 'failed';
      readonly id: string;
      readonly runId: string;
      readonly error: string;
    };

/**
 * Carries out a dead letter's record again through the stream handler that gave up on it (its
 * effects are idempotent: what was done before is not done twice). Its letters are removed only once
 * that succeeds; a failure is reported with its error, and no new letter is written for it.
 */
export async function replayLetter(
  deps: DeadLetterAdminDeps,
  id: string,
  dryRun: boolean,
): Promise<ReplayOutcome> {
  const letters = await lettersOf(deps, id);
  const [letter] = letters;
  if (letter === undefined) return { outcome: 'not-found', id };
  const record = recordOf(letter);
  if (typeof record === 'string') return { outcome: 'unreadable', id, reason: record };
  const runId = keys.runIdOf(record.dynamodb?.Keys?.pk?.S ?? '');
  if (dryRun) return { outcome: 'would-replay', id, runId };
  const error = await carryOut(await deps.outbox(), record);
  if (error !== undefined) return { outcome: 'failed', id, runId, error };
  for (const each of letters) await deps.removeLetter(each.at, each.id);
  return { outcome: 'replayed', id, runId, letters: letters.length };
}

/** The stream handler's processing of one record: the error it gave up with, if it did. */
export async function carryOut(
  outbox: OutboxDeps,
  record: StreamRecordLike,
): Promise<string | undefined> {
  let failure: string | undefined;
  // The handler dead-letters what it gives up on: here that is the answer, not a new letter.
  const capturing: OutboxDeps = {
    ...outbox,
    deadLetters: {
      putDeadLetter: async (_id, _record, error) => {
        failure = error;
      },
      listDeadLetters: () => outbox.deadLetters.listDeadLetters(),
    },
  };
  try {
    await handleStreamRecords(capturing, [record], dynamoStreamRecords(outbox.runs), {
      maxAttempts: REPLAY_ATTEMPTS,
      isTransient: isTransientFailure,
    });
  } catch (error) {
    failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  return failure;
}

/** Tries of a replayed record before its failure is reported (transient faults pass meanwhile). */
const REPLAY_ATTEMPTS = 3;

/** The stream record a letter keeps, or why it cannot be carried out again. */
function recordOf(letter: DeadLetter): StreamRecordLike | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(letter.record);
  } catch {
    return letter.record.endsWith(' characters)')
      ? 'the letter keeps only the start of its record (it was too long): it cannot be carried out again; see the run with `run show` and `run rearm`'
      : 'the letter does not hold a stream record (not JSON)';
  }
  if (typeof parsed !== 'object' || parsed === null)
    return 'the letter does not hold a stream record';
  const record = parsed as StreamRecordLike;
  if (!isOutboxRecord(record)) return "the letter's record is not a change of a run's state";
  return record;
}
