/**
 * An activity's context without a service: to unit-test an activity function. It keeps the heartbeats
 * the activity records, lets the test cancel it (`ctx.signal`) or shut its worker down, carries the
 * task's attributes, and `run` tells what the worker would report for the activity's outcome.
 */
import type { ActivityType, WorkflowExecution } from '@aws-sdk/client-swf';
import {
  DETAILS_MAX,
  type Settled,
  type TaskReport,
  taskReport,
} from '../sdk/activity/task-report.js';
import {
  type Activity,
  ActivityCancelledError,
  type ActivityContext,
  CancelReason,
  type Logger,
} from '../sdk/index.js';
import { cutOrUndefined } from '../sdk/util.js';

/** The task's attributes as PollForActivityTask gives them; each has a default. */
export interface MockActivityTask {
  readonly input?: string | undefined;
  readonly activityId?: string;
  readonly activityType?: ActivityType;
  readonly workflowExecution?: WorkflowExecution;
  readonly startedEventId?: number;
  readonly taskToken?: string;
}

/** A line the activity logged. */
export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

/** What the worker would report for a run (`dropped`: nothing, as the task was gone). */
export type ActivityOutcome = TaskReport;

export class MockActivityContext implements ActivityContext {
  readonly taskToken: string;
  readonly activityId: string;
  readonly activityType: ActivityType;
  readonly workflowExecution: WorkflowExecution;
  readonly startedEventId: number;
  readonly input: string | undefined;
  /** Every `heartbeat(details)` call's details, in order (cut to SWF's 32,768 characters, as sent). */
  readonly heartbeats: (string | undefined)[] = [];
  /** What the activity logged through `ctx.logger`. */
  readonly logged: LoggedLine[] = [];
  readonly logger: Logger;
  readonly #cancel = new AbortController();
  readonly #shutdown = new AbortController();
  readonly #listeners: ((details: string | undefined) => void)[] = [];
  #gone = false;

  constructor(task: MockActivityTask = {}) {
    this.input = task.input;
    this.activityId = task.activityId ?? 'activity-1';
    this.activityType = task.activityType ?? { name: 'Activity', version: '1' };
    this.workflowExecution = task.workflowExecution ?? { workflowId: 'workflow-1', runId: 'run-1' };
    this.startedEventId = task.startedEventId ?? 6;
    this.taskToken = task.taskToken ?? 'mock-task-token';
    const at =
      (level: LoggedLine['level']) => (message: string, fields?: Record<string, unknown>) =>
        void this.logged.push({ level, message, fields });
    this.logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }

  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  get shuttingDown(): AbortSignal {
    return this.#shutdown.signal;
  }

  get cancelReason(): CancelReason | undefined {
    const reason: unknown = this.#cancel.signal.reason;
    return this.#cancel.signal.aborted && reason instanceof ActivityCancelledError
      ? reason.reason
      : undefined;
  }

  heartbeat(details?: string): void {
    const sent = cutOrUndefined(details, DETAILS_MAX);
    this.heartbeats.push(sent);
    for (const listener of [...this.#listeners]) listener(sent);
  }

  /** The details of the latest heartbeat: what an ActivityTaskTimedOut would carry. */
  get lastHeartbeatDetails(): string | undefined {
    return this.heartbeats.at(-1);
  }

  /** Calls `listener` on each heartbeat from now on (to cancel after the third, say). */
  onHeartbeat(listener: (details: string | undefined) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Fires `ctx.signal` as the worker does: `cancelRequested` (the default) when the decider asked,
   * `taskGone` when a heartbeat found the task gone (timed out, or its execution closed), `shutdown`
   * when the worker's shutdown grace ran out.
   */
  cancel(reason: CancelReason = CancelReason.cancelRequested): void {
    if (this.#cancel.signal.aborted) return;
    if (reason === CancelReason.taskGone) this.#gone = true;
    this.#cancel.abort(new ActivityCancelledError(reason));
  }

  /** Fires `ctx.shuttingDown`: the worker begins shutting down (`ctx.signal` fires only later). */
  shutdown(): void {
    this.#shutdown.abort();
  }

  /**
   * Runs `activity` with this context and its input, and answers what the worker would report:
   * `completed` with the result as sent (JSON unless a string), `failed` with a reason and details,
   * `canceled`, or `dropped` when the task was gone.
   */
  async run(activity: Activity): Promise<ActivityOutcome> {
    let settled: Settled;
    try {
      settled = { ok: true, value: await activity(this.input, this) };
    } catch (error) {
      settled = { ok: false, error };
    }
    return taskReport(settled, {
      signalled: this.#cancel.signal.aborted,
      cancelRequested: this.cancelReason === CancelReason.cancelRequested,
      gone: this.#gone,
      heartbeatDetails: this.lastHeartbeatDetails,
    });
  }
}
