/**
 * What an activity task reports once its activity has settled: completed with its result, failed
 * with a reason and details, canceled, or nothing at all (the task is gone). Pure, so a worker and a
 * unit test of an activity (the testing kit's MockActivityContext) tell the same story.
 */
import { cutOrUndefined, cutText } from '../util.js';
import { ActivityFailure } from './context.js';

/** How the activity's function ended. */
export type Settled =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

/** How the task was stopped, if it was, as its worker knows it when the activity settles. */
export interface TaskStop {
  /** Its signal fired (a cancellation, the task gone, or the worker's shutdown). */
  readonly signalled: boolean;
  /** The decider asked for the cancellation (a heartbeat said so). */
  readonly cancelRequested: boolean;
  /** A heartbeat found the task gone: its execution closed or it timed out. */
  readonly gone: boolean;
  /** The details of the latest `ctx.heartbeat`, if any. */
  readonly heartbeatDetails: string | undefined;
}

/** The one report an activity task ends with. */
export type TaskReport =
  | { readonly kind: 'completed'; readonly result: string | undefined }
  | { readonly kind: 'failed'; readonly reason: string; readonly details: string | undefined }
  | { readonly kind: 'canceled'; readonly details: string }
  | { readonly kind: 'dropped' };

/** A report that is sent: a failure or a cancellation. */
export type ReportToSend = Extract<TaskReport, { kind: 'failed' | 'canceled' }>;

const REASON_MAX = 256;
export const DETAILS_MAX = 32_768;
/** The reason an activity stopped by its worker's shutdown (no cancellation requested) fails with. */
export const WORKER_SHUTDOWN = 'WorkerShutdown';
/** The reason an activity whose result has no JSON (a BigInt, a cycle) fails with. */
export const RESULT_NOT_SERIALIZABLE = 'ActivityResultNotSerializable';
/** The reason an activity whose result is over SWF's limit fails with. */
export const RESULT_TOO_LONG = 'ActivityResultTooLong';

export function taskReport(settled: Settled, stop: TaskStop): TaskReport {
  if (stop.gone) return { kind: 'dropped' };
  if (settled.ok) return completion(settled.value);
  if (stop.signalled) return stopped(stop, stop.heartbeatDetails ?? errorMessage(settled.error));
  return { kind: 'failed', ...failureOf(settled.error) };
}

/**
 * An activity stopped by its signal: canceled, if the decider asked; else (the worker shut down)
 * failed with reason WorkerShutdown. SWF's reference has RespondActivityTaskCanceled used only after
 * a heartbeat answered cancelRequested, and a decider reads ActivityTaskCanceled as its own request
 * honoured: an unrequested one would leave it waiting, or cancel its workflow.
 */
export function stopped(stop: TaskStop, details: string): ReportToSend {
  return stop.cancelRequested
    ? { kind: 'canceled', details }
    : { kind: 'failed', reason: WORKER_SHUTDOWN, details };
}

function completion(value: unknown): TaskReport {
  const serialized = serialize(value);
  if (!serialized.ok)
    return { kind: 'failed', reason: RESULT_NOT_SERIALIZABLE, details: serialized.why };
  const result = serialized.result;
  // A result SWF cannot take would be refused, and the task left to time out: it fails now, so
  // the decider hears why (a result is not cut: half a value is no value).
  if (result !== undefined && result.length > DETAILS_MAX) {
    const details = `The activity's result is ${result.length} characters long; RespondActivityTaskCompleted takes at most ${DETAILS_MAX}`;
    return { kind: 'failed', reason: RESULT_TOO_LONG, details };
  }
  return { kind: 'completed', result };
}

/** A result as SWF takes it: a string as is, any other value as JSON; or why it cannot be sent. */
function serialize(
  value: unknown,
): { ok: true; result: string | undefined } | { ok: false; why: string } {
  if (typeof value === 'string' || value === undefined) return { ok: true, result: value };
  try {
    const result = JSON.stringify(value);
    // A function or a symbol has no JSON: no result, as for undefined.
    return { ok: true, result };
  } catch (error) {
    return {
      ok: false,
      why: cutText(`The activity's result cannot be sent as JSON: ${textOf(error)}`, DETAILS_MAX),
    };
  }
}

/** An error's text, even for a value whose String() throws (an object without a prototype). */
function textOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

const errorMessage = (error: unknown) => cutText(textOf(error), DETAILS_MAX);

/** An ActivityFailure's reason and details; any other error's message and stack. */
export function failureOf(error: unknown): { reason: string; details: string | undefined } {
  if (error instanceof ActivityFailure)
    return {
      reason: cutText(error.reason, REASON_MAX),
      details: cutOrUndefined(error.details, DETAILS_MAX),
    };
  if (error instanceof Error)
    return {
      reason: cutText(error.message, REASON_MAX),
      details: cutOrUndefined(error.stack, DETAILS_MAX),
    };
  return { reason: cutText(textOf(error), REASON_MAX), details: undefined };
}
