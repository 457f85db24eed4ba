import type { ActivityTask } from '@aws-sdk/client-swf';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { aborted, cutOrUndefined, type ReportOutcome, report, sleep } from '../util.js';
import {
  type Activity,
  ActivityCancelledError,
  type ActivityContext,
  CancelReason,
} from './context.js';
import { Heartbeater, intervalForHeartbeatTimeout } from './heartbeat.js';
import {
  DETAILS_MAX,
  failureOf,
  type ReportToSend,
  type Settled,
  stopped,
  type TaskStop,
  taskReport,
} from './task-report.js';

/** What became of one activity task, reported when its slot is freed. */
export interface TaskEnd {
  readonly activityId: string;
  readonly activityType: string;
  readonly workflowId: string;
  readonly runId: string;
  /**
   * completed / failed / canceled: what was reported (or would have been). dropped: the task was gone
   * (its execution closed or it timed out), so nothing was reported. abandoned: the activity ignored
   * its signal past the grace period.
   */
  readonly outcome: 'completed' | 'failed' | 'canceled' | 'dropped' | 'abandoned';
  readonly cancelReason: CancelReason | undefined;
  /** What the service said to the Respond* call, or 'none' when none was made. */
  readonly reported: ReportOutcome | 'none';
  readonly startedAt: number;
  /** When the signal fired (epoch ms), if it did. */
  readonly signalledAt: number | undefined;
  readonly endedAt: number;
}

/** The calls one task makes, bound to its token. */
export interface TaskCalls {
  heartbeat(details: string | undefined, signal?: AbortSignal): Promise<boolean>;
  completed(result: string | undefined): Promise<unknown>;
  failed(reason: string, details: string | undefined): Promise<unknown>;
  canceled(details: string | undefined): Promise<unknown>;
}

export interface RunTaskOptions {
  readonly task: ActivityTask & { taskToken: string };
  readonly activity: Activity | undefined;
  readonly heartbeatIntervalMs: number;
  /**
   * The task's heartbeat timeout (seconds, or NONE) once known: heartbeats then go out at least
   * three times within it, however long `heartbeatIntervalMs` is.
   */
  readonly heartbeatTimeout?: Promise<string | undefined> | undefined;
  readonly cancelGraceMs: number;
  readonly shuttingDown: AbortSignal;
  readonly logger: Logger;
  readonly swf: TaskCalls;
}

export interface RunningTask {
  cancel(reason: CancelReason): void;
  readonly done: Promise<TaskEnd>;
}

export { RESULT_NOT_SERIALIZABLE, RESULT_TOO_LONG, WORKER_SHUTDOWN } from './task-report.js';

/** Runs one activity task: heartbeats, signal, grace period, and the one report it ends with. */
export function runActivityTask(o: RunTaskOptions): RunningTask {
  const cancel = new AbortController();
  let gone = false;
  /** The decider asked (a heartbeat said so), whatever fired the signal first. */
  let requested = false;
  let details: string | undefined;
  let signalledAt: number | undefined;
  const startedAt = Date.now();
  const cancelWith = (reason: CancelReason) => {
    if (cancel.signal.aborted) return;
    signalledAt = Date.now();
    cancel.abort(new ActivityCancelledError(reason));
  };
  const heartbeater = new Heartbeater({
    send: (d, signal) => o.swf.heartbeat(d, signal),
    intervalMs: o.heartbeatIntervalMs,
    details: () => details,
    onCancelRequested: () => {
      requested = true;
      cancelWith(CancelReason.cancelRequested);
    },
    onTaskGone: () => {
      gone = true;
      cancelWith(CancelReason.taskGone);
    },
    logger: o.logger,
  });
  const ctx = context(o, cancel.signal, (d) => {
    details = d;
  });
  const fields = {
    activityId: o.task.activityId ?? '',
    activityType: o.task.activityType?.name ?? '',
    workflowId: o.task.workflowExecution?.workflowId ?? '',
    runId: o.task.workflowExecution?.runId ?? '',
  };

  /** What became of the task, as it ends now. */
  const end = (outcome: TaskEnd['outcome'], reported: TaskEnd['reported']): TaskEnd => ({
    ...fields,
    outcome,
    cancelReason: ctx.cancelReason,
    reported,
    startedAt,
    signalledAt,
    endedAt: Date.now(),
  });
  /** RespondActivityTaskFailed, retried as every report is. */
  const fail = (reason: string, details: string | undefined) =>
    report(() => o.swf.failed(reason, details), 'fail', o.logger);

  const run = async (): Promise<TaskEnd> => {
    if (o.activity === undefined) {
      const reason = `unknown activity type ${fields.activityType}`;
      o.logger.error(reason, fields);
      return end('failed', await fail(reason, undefined));
    }
    heartbeater.start();
    void o.heartbeatTimeout?.then((timeout) => {
      const intervalMs = intervalForHeartbeatTimeout(timeout);
      if (intervalMs !== undefined) heartbeater.tighten(intervalMs);
    });
    const settled = settle(o.activity, o.task.input, ctx);
    let first = await Promise.race([settled, aborted(cancel.signal).then(() => undefined)]);
    if (first === undefined) {
      const grace = new AbortController();
      first = await Promise.race([
        settled,
        sleep(o.cancelGraceMs, grace.signal).then(() => undefined),
      ]);
      grace.abort();
      if (first === undefined) {
        heartbeater.stop();
        o.logger.warn('activity ignored its cancellation past the grace period; abandoned', {
          ...fields,
          reason: ctx.cancelReason,
          graceMs: o.cancelGraceMs,
        });
        if (gone) return end('abandoned', 'none');
        // The decider learns how far it got, as from a cancellation the activity acknowledged.
        const why =
          details ?? `abandoned: did not stop within ${o.cancelGraceMs} ms of cancellation`;
        return end('abandoned', await send(stopped(stop(), why)));
      }
    }
    heartbeater.stop();
    return finish(first);
  };

  const finish = async (outcome: Settled): Promise<TaskEnd> => {
    const r = taskReport(outcome, stop());
    if (r.kind === 'dropped') {
      o.logger.warn(
        'the activity task was gone (timed out, or its execution closed); nothing was reported',
        { ...fields, tookMs: Date.now() - startedAt },
      );
      return end('dropped', 'none');
    }
    if (r.kind === 'completed') {
      const reported = await report(() => o.swf.completed(r.result), 'complete', o.logger);
      if (reported === 'taskGone') warnGone();
      return end('completed', reported);
    }
    return end(r.kind, await send(r));
  };

  /** How the task stands as its activity settles. */
  const stop = (): TaskStop => ({
    signalled: cancel.signal.aborted,
    cancelRequested: requested,
    gone,
    heartbeatDetails: details,
  });

  /** Sends a failure or a cancellation, retried as every report is. */
  const send = (r: ReportToSend) =>
    r.kind === 'canceled'
      ? report(() => o.swf.canceled(r.details), 'cancel', o.logger)
      : fail(r.reason, r.details);

  /** A result that found its task gone: most often an activity slower than its timeout. */
  const warnGone = () =>
    o.logger.warn(
      'the activity task was gone when its result came: it timed out (is the activity slower than its start-to-close timeout?), or its execution closed',
      { ...fields, tookMs: Date.now() - startedAt },
    );

  // Whatever goes wrong here (a bug of this SDK's own) ends the task as failed, reported if it can
  // be: `done` never rejects, so a worker's slot is always freed.
  const done = run().catch(async (error: unknown): Promise<TaskEnd> => {
    heartbeater.stop();
    o.logger.error('running the activity task failed', { ...fields, error: describeError(error) });
    const { reason, details: failure } = failureOf(error);
    return end('failed', await fail(reason, failure));
  });
  return { cancel: cancelWith, done };
}

function context(
  o: RunTaskOptions,
  signal: AbortSignal,
  record: (details: string | undefined) => void,
): ActivityContext {
  const { task } = o;
  return {
    taskToken: task.taskToken,
    activityId: task.activityId ?? '',
    activityType: task.activityType ?? { name: '', version: '' },
    workflowExecution: task.workflowExecution ?? { workflowId: '', runId: '' },
    startedEventId: task.startedEventId ?? 0,
    input: task.input,
    signal,
    shuttingDown: o.shuttingDown,
    get cancelReason() {
      const reason: unknown = signal.reason;
      return signal.aborted && reason instanceof ActivityCancelledError ? reason.reason : undefined;
    },
    heartbeat: (details) => record(cutOrUndefined(details, DETAILS_MAX)),
    logger: o.logger,
  };
}

/** Runs the activity, turning a synchronous throw into a rejection; never rejects itself. */
function settle(activity: Activity, input: string | undefined, ctx: ActivityContext) {
  return Promise.resolve()
    .then(() => activity(input, ctx))
    .then(
      (value): Settled => ({ ok: true, value }),
      (error: unknown): Settled => ({ ok: false, error }),
    );
}
