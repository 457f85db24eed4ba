/**
 * The errors a workflow's operations reject with, one class per outcome, so that a workflow can
 * `catch (e) { if (e instanceof ActivityTimedOutError) … }`. Each names the event that decided it.
 */
import type { ActivityType, WorkflowType } from '@aws-sdk/client-swf';

/** An operation the workflow itself cancelled (a cancelled scope, a lost race) before it ended. */
export class CanceledError extends Error {
  override readonly name: string = 'CanceledError';
  constructor(what: string) {
    super(`${what} was cancelled by the workflow`);
  }
}

/** An activity ended without a result: see the subclasses. */
export abstract class ActivityError extends Error {
  constructor(
    readonly activityId: string,
    readonly activityType: ActivityType,
    /** The event that ended it (ActivityTaskFailed, …, ScheduleActivityTaskFailed). */
    readonly eventId: number,
    outcome: string,
  ) {
    super(`Activity ${activityType.name} (activityId ${activityId}) ${outcome}`);
  }
}

/** ActivityTaskFailed: the activity threw (or reported) a failure. */
export class ActivityFailedError extends ActivityError {
  override readonly name = 'ActivityFailedError';
  constructor(
    activityId: string,
    activityType: ActivityType,
    eventId: number,
    readonly reason: string | undefined,
    readonly details: string | undefined,
  ) {
    super(activityId, activityType, eventId, `failed: ${reason ?? '(no reason)'}`);
  }
}

/** ActivityTaskTimedOut: START_TO_CLOSE, SCHEDULE_TO_START, SCHEDULE_TO_CLOSE or HEARTBEAT. */
export class ActivityTimedOutError extends ActivityError {
  override readonly name = 'ActivityTimedOutError';
  constructor(
    activityId: string,
    activityType: ActivityType,
    eventId: number,
    readonly timeoutType: string | undefined,
    readonly details: string | undefined,
  ) {
    super(activityId, activityType, eventId, `timed out (${timeoutType ?? 'unknown timeout'})`);
  }
}

/** ActivityTaskCanceled: the activity acknowledged a cancellation the workflow requested. */
export class ActivityCanceledError extends ActivityError {
  override readonly name = 'ActivityCanceledError';
  constructor(
    activityId: string,
    activityType: ActivityType,
    eventId: number,
    readonly details: string | undefined,
  ) {
    super(activityId, activityType, eventId, 'was canceled');
  }
}

/** ScheduleActivityTaskFailed: SWF refused to schedule it (unknown type, missing defaults …). */
export class ActivityScheduleFailedError extends ActivityError {
  override readonly name = 'ActivityScheduleFailedError';
  constructor(
    activityId: string,
    activityType: ActivityType,
    eventId: number,
    override readonly cause: string | undefined,
  ) {
    super(activityId, activityType, eventId, `could not be scheduled: ${cause ?? 'no cause'}`);
  }
}

/** A child workflow ended without a result: see the subclasses. */
export abstract class ChildWorkflowError extends Error {
  constructor(
    readonly workflowId: string,
    readonly workflowType: WorkflowType,
    readonly eventId: number,
    outcome: string,
  ) {
    super(`Child workflow ${workflowType.name} (workflowId ${workflowId}) ${outcome}`);
  }
}

export class ChildWorkflowFailedError extends ChildWorkflowError {
  override readonly name = 'ChildWorkflowFailedError';
  constructor(
    workflowId: string,
    workflowType: WorkflowType,
    eventId: number,
    readonly reason: string | undefined,
    readonly details: string | undefined,
  ) {
    super(workflowId, workflowType, eventId, `failed: ${reason ?? '(no reason)'}`);
  }
}

export class ChildWorkflowTimedOutError extends ChildWorkflowError {
  override readonly name = 'ChildWorkflowTimedOutError';
  constructor(
    workflowId: string,
    workflowType: WorkflowType,
    eventId: number,
    readonly timeoutType: string | undefined,
  ) {
    super(workflowId, workflowType, eventId, `timed out (${timeoutType ?? 'unknown timeout'})`);
  }
}

export class ChildWorkflowCanceledError extends ChildWorkflowError {
  override readonly name = 'ChildWorkflowCanceledError';
  constructor(
    workflowId: string,
    workflowType: WorkflowType,
    eventId: number,
    readonly details: string | undefined,
  ) {
    super(workflowId, workflowType, eventId, 'was canceled');
  }
}

export class ChildWorkflowTerminatedError extends ChildWorkflowError {
  override readonly name = 'ChildWorkflowTerminatedError';
  constructor(workflowId: string, workflowType: WorkflowType, eventId: number) {
    super(workflowId, workflowType, eventId, 'was terminated');
  }
}

/** StartChildWorkflowExecutionFailed: unknown type, a workflowId already running, limits … */
export class ChildWorkflowStartFailedError extends ChildWorkflowError {
  override readonly name = 'ChildWorkflowStartFailedError';
  constructor(
    workflowId: string,
    workflowType: WorkflowType,
    eventId: number,
    override readonly cause: string | undefined,
  ) {
    super(workflowId, workflowType, eventId, `could not be started: ${cause ?? 'no cause'}`);
  }
}

/** A Lambda task ended without a result; `kind` says how. */
export class LambdaFunctionError extends Error {
  override readonly name = 'LambdaFunctionError';
  constructor(
    readonly kind: 'failed' | 'timedOut' | 'scheduleFailed' | 'startFailed',
    readonly id: string,
    readonly functionName: string,
    readonly eventId: number,
    /** The failure's reason, the timeout type, or the cause SWF gave. */
    readonly reason: string | undefined,
    readonly details: string | undefined,
  ) {
    super(`Lambda function ${functionName} (id ${id}) ${kind}: ${reason ?? 'no reason'}`);
  }
}

/** StartTimerFailed: a timer SWF refused (an id in use, too many open timers). */
export class TimerFailedError extends Error {
  override readonly name = 'TimerFailedError';
  constructor(
    readonly timerId: string,
    readonly eventId: number,
    override readonly cause: string | undefined,
  ) {
    super(`Timer ${timerId} could not be started: ${cause ?? 'no cause'}`);
  }
}

/** A signal to, or cancel request of, another execution that SWF could not deliver. */
export class ExternalWorkflowError extends Error {
  override readonly name = 'ExternalWorkflowError';
  constructor(
    readonly kind: 'signal' | 'cancel',
    readonly workflowId: string,
    readonly eventId: number,
    override readonly cause: string | undefined,
  ) {
    super(
      `${kind === 'signal' ? 'Signal to' : 'Cancel request of'} workflow ${workflowId} failed: ${cause ?? 'no cause'}`,
    );
  }
}

/**
 * Throw this (or `return ctx.fail(…)`) to fail the execution with this `reason` and `details`. Any
 * other error fails it with its message as reason and its stack as details.
 */
export class WorkflowFailure extends Error {
  override readonly name = 'WorkflowFailure';
  constructor(
    readonly reason: string,
    readonly details?: unknown,
  ) {
    super(reason);
  }
}

/**
 * The replay of a decision task did not match its history: the workflow's code asked for something
 * other than what the history recorded at that step (the code changed while executions were open).
 */
export class NonDeterminismError extends Error {
  override readonly name = 'NonDeterminismError';
  constructor(
    /** The recorded event that does not match (or the DecisionTaskCompleted whose step it was). */
    readonly eventId: number,
    /** What the history has there. */
    readonly expected: string,
    /** What the code asked for there. */
    readonly actual: string,
  ) {
    super(
      `Replay does not match the history at event ${eventId}: the history has ${expected}; the code asked for ${actual}`,
    );
  }
}
