import type { DeadLetter } from '../ports/dead-letter-store.js';
import type { DeadlineFire } from '../ports/deadline-scheduler.js';
import type { DiscardOutcome, ReplayOutcome } from './dead-letters.js';
import type { RearmOutcome } from './runs.js';
import type { PointerOutcome } from './stream-redrive.js';

/** What a command says: text for a reader, JSON for a script, and its exit code. */
export interface Report {
  readonly exitCode: 0 | 1;
  /** Printed on stdout, as text. */
  readonly text: readonly string[];
  /** Printed on stdout instead of the text with --json. */
  readonly json: unknown;
  /** Why it could not be done: on stderr, as text. */
  readonly problems: readonly string[];
}

const done = (text: string[], json: unknown): Report => ({ exitCode: 0, text, json, problems: [] });
const notDone = (problem: string, json: unknown): Report => ({
  exitCode: 1,
  text: [],
  json,
  problems: [problem],
});

const iso = (ms: number) => new Date(ms).toISOString();
const firstLine = (text: string) => text.split('\n')[0] ?? '';

export function describeLetters(letters: readonly DeadLetter[]): Report {
  const json = letters.map(({ id, at, error }) => ({ id, at: iso(at), error }));
  if (letters.length === 0) return done(['No dead letters.'], json);
  const lines = letters.map((l) => `${iso(l.at)}  ${l.id}  ${firstLine(l.error)}`);
  return done([...lines, `${letters.length} dead letter(s)`], json);
}

export function showLetters(id: string, letters: readonly DeadLetter[]): Report {
  if (letters.length === 0) return notDone(`no dead letter ${id}`, { outcome: 'not-found', id });
  const shown = letters.map((l) => ({
    id: l.id,
    at: iso(l.at),
    error: l.error,
    record: parsed(l),
  }));
  const text = shown.flatMap((l) => [
    `Dead letter ${l.id}, written ${l.at}`,
    `Error: ${l.error}`,
    'Record:',
    typeof l.record === 'string' ? l.record : JSON.stringify(l.record, null, 2),
  ]);
  return done(text, shown);
}

/** The letter's record as JSON when it is whole, else the text it keeps. */
function parsed(letter: DeadLetter): unknown {
  try {
    return JSON.parse(letter.record);
  } catch {
    return letter.record;
  }
}

export function describeReplay(
  outcome: ReplayOutcome,
  handed: readonly DeadlineFire[] | undefined,
): Report {
  switch (outcome.outcome) {
    case 'not-found':
      return notDone(`no dead letter ${outcome.id} (replayed or discarded already?)`, outcome);
    case 'unreadable':
      return notDone(`dead letter ${outcome.id}: ${outcome.reason}`, outcome);
    case 'failed':
      return notDone(
        `dead letter ${outcome.id} (run ${outcome.runId}) failed again, and is kept: ${outcome.error}`,
        outcome,
      );
    case 'would-replay':
      return done(
        [`Would carry out dead letter ${outcome.id} (run ${outcome.runId}) again, then remove it.`],
        outcome,
      );
    case 'replayed':
      return done(
        [
          `Carried out dead letter ${outcome.id} (run ${outcome.runId}) again; removed ${outcome.letters} letter(s).`,
          ...localNote(handed),
        ],
        { ...outcome, ...localJson(handed) },
      );
  }
}

export function describeDiscard(outcome: DiscardOutcome): Report {
  switch (outcome.outcome) {
    case 'not-found':
      return notDone(`no dead letter ${outcome.id} (discarded or replayed already?)`, outcome);
    case 'would-discard':
      return done([`Would remove ${outcome.letters} letter(s) of ${outcome.id}.`], outcome);
    case 'discarded':
      return done([`Removed ${outcome.letters} letter(s) of ${outcome.id}.`], outcome);
  }
}

export function describeRedrive(outcomes: readonly PointerOutcome[]): Report {
  const lines = outcomes.map(redriveLine);
  const kept = outcomes.filter((o) => !['redriven', 'would-redrive'].includes(o.outcome));
  const summary = `${outcomes.length} pointer(s): ${outcomes.length - kept.length} ${
    outcomes.some((o) => o.outcome === 'would-redrive') ? 'would be redriven' : 'redriven'
  }, ${kept.length} kept in the queue`;
  const report = { exitCode: kept.length === 0 ? 0 : 1, json: outcomes } as const;
  if (outcomes.length === 0) return done(['No pointers in the queue.'], outcomes);
  return { ...report, text: [...lines, summary], problems: [] };
}

function redriveLine(o: PointerOutcome): string {
  const where =
    o.outcome === 'unreadable'
      ? ''
      : ` ${o.pointer.shardId} ${o.pointer.startSequenceNumber}..${o.pointer.endSequenceNumber}`;
  switch (o.outcome) {
    case 'unreadable':
      return `kept      ${o.messageId}: ${o.reason}`;
    case 'aged-out':
      return `AGED OUT  ${o.messageId}${where}: the stream no longer holds these records (${o.reason}); kept in the queue`;
    case 'failed':
      return `FAILED    ${o.messageId}${where}: ${o.error}; kept in the queue`;
    case 'would-redrive':
      return `would redrive ${o.messageId}${where}: ${o.records} record(s)`;
    case 'redriven':
      return `redriven  ${o.messageId}${where}: ${o.records} record(s); pointer deleted`;
  }
}

export function describeRearm(
  outcome: RearmOutcome,
  handed: readonly DeadlineFire[] | undefined,
): Report {
  switch (outcome.outcome) {
    case 'not-found':
      return notDone(`no run ${outcome.runId} (or past its retention)`, outcome);
    case 'closed':
      return done([`Run ${outcome.runId} is closed: it has no deadline to arm.`], outcome);
    case 'nothing-due':
      return done([`Run ${outcome.runId} has no pending deadline: nothing to arm.`], outcome);
    case 'would-arm':
      return done([`Would arm ${fireText(outcome.fire)}.`], outcome);
    case 'armed':
      return done(
        [
          `${handed === undefined ? 'Armed' : 'Found'} ${fireText(outcome.fire)}.`,
          ...localNote(handed),
        ],
        {
          ...outcome,
          ...localJson(handed),
        },
      );
  }
}

const fireText = (fire: DeadlineFire) =>
  `fire ${fire.key} (${deadlineName(fire.key)}) of run ${fire.runId}, due ${iso(fire.at * 1000)}`;

/** What a fire's key (lib/core/deadlines.ts) stands for, in SWF's words. */
function deadlineName(key: string): string {
  const [kind, eventId, timeoutType] = key.split(':');
  const type = timeoutType?.toLowerCase().replaceAll('_', '-');
  switch (kind) {
    case 'X':
      return "the execution's start-to-close timeout";
    case 'T':
      return `the timer started by event ${eventId}`;
    case 'A':
      return `the ${type} timeout of the activity task scheduled by event ${eventId}`;
    case 'D':
      return `the ${type} timeout of the decision task scheduled by event ${eventId}`;
    case 'L':
      return `the timeout of the Lambda task scheduled by event ${eventId}`;
    default:
      return 'a deadline';
  }
}

/** Locally, fires are armed by npm start: from the table, when it starts. */
function localNote(handed: readonly DeadlineFire[] | undefined): string[] {
  if (handed === undefined || handed.length === 0) return [];
  return [
    `Not armed by this command: locally, deadlines wait in npm start's memory, which another process cannot reach. npm start arms ${handed.length === 1 ? 'this fire' : `these ${handed.length} fires`}, with every open run's, when it starts again (keeping its data with --data DIR).`,
  ];
}

const localJson = (handed: readonly DeadlineFire[] | undefined) =>
  handed === undefined ? {} : { armedByLocalServiceOnStart: handed };
