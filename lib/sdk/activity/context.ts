import type { ActivityType, WorkflowExecution } from '@aws-sdk/client-swf';
import type { Logger } from '../logger.js';

/** Why an activity's signal fired. */
export const CancelReason = {
  /** The decider asked (RequestCancelActivityTask): a heartbeat answered `cancelRequested: true`. */
  cancelRequested: 'cancelRequested',
  /** A heartbeat answered UnknownResourceFault: the execution closed or the task timed out. */
  taskGone: 'taskGone',
  /** The worker is shutting down and its grace time ran out. */
  shutdown: 'shutdown',
} as const;
export type CancelReason = (typeof CancelReason)[keyof typeof CancelReason];

/** The `reason` of an activity's aborted signal: throw it (or any error) to report the cancellation. */
export class ActivityCancelledError extends Error {
  override readonly name = 'ActivityCancelledError';
  constructor(readonly reason: CancelReason) {
    super(`activity cancelled: ${reason}`);
  }
}

/**
 * Throw this from an activity to choose the `reason` and `details` of its ActivityTaskFailed event.
 * Any other error fails the task with the error's message as reason and its stack as details.
 */
export class ActivityFailure extends Error {
  override readonly name = 'ActivityFailure';
  constructor(
    readonly reason: string,
    readonly details?: string,
  ) {
    super(reason);
  }
}

/** What an activity function gets besides its input. */
export interface ActivityContext {
  readonly taskToken: string;
  readonly activityId: string;
  readonly activityType: ActivityType;
  readonly workflowExecution: WorkflowExecution;
  readonly startedEventId: number;
  readonly input: string | undefined;
  /**
   * Fires when the activity should stop: cancellation requested by the decider, the task or its
   * execution gone (closed, terminated, timed out), or worker shutdown past its grace time. Not aborted
   * at start. Its `reason` is an `ActivityCancelledError`. Pass it to anything that accepts one
   * (fetch, child_process, timers/promises, AWS SDK calls).
   */
  readonly signal: AbortSignal;
  /** Fires as soon as the worker begins shutting down: checkpoint, then finish or stop. */
  readonly shuttingDown: AbortSignal;
  /** Why `signal` fired, once it has. */
  readonly cancelReason: CancelReason | undefined;
  /**
   * Records progress details. They ride on the next automatic heartbeat; calling this never sends a
   * request by itself, so call it as often as you like.
   */
  heartbeat(details?: string): void;
  readonly logger: Logger;
}

/**
 * An activity: its input and context in, its result out (a string as is, `undefined` for none, any
 * other value as JSON), sync or async. Throw to fail it.
 */
export type Activity = (input: string | undefined, ctx: ActivityContext) => unknown;
