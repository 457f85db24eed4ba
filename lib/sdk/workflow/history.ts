/**
 * What the replay reads from a decision task's history: its decision tasks in order (the events each
 * one's decider saw, and the events its answer recorded), and which command each later event is about.
 */
import type { HistoryEvent } from '@aws-sdk/client-swf';

/** One decision task of the history, replayed as one step of the workflow's code. */
export interface Activation {
  /** The DecisionTaskStarted event: the decider saw every event up to this one. */
  readonly startedEventId: number;
  /** That event's time: what `ctx.now()` says during this step. */
  readonly time: Date;
  /** The DecisionTaskCompleted that recorded the answer; undefined for the task being decided. */
  readonly completedEventId: number | undefined;
  /** The events the answer recorded, in the order of its decisions (empty for the task being decided). */
  readonly recorded: readonly HistoryEvent[];
}

/**
 * The decision tasks that were answered (a DecisionTaskCompleted each), then the one being decided,
 * whose DecisionTaskStarted is `startedEventId`. Tasks that timed out are no steps: their events
 * reach the next task, as they did when it ran.
 */
export function activationsOf(
  events: readonly HistoryEvent[],
  startedEventId: number,
): Activation[] {
  const startedAt = new Map<number, Date>();
  const recorded = new Map<number, HistoryEvent[]>();
  const answered: { startedEventId: number; completedEventId: number }[] = [];
  for (const event of events) {
    const id = event.eventId ?? 0;
    if (id > startedEventId) break;
    if (event.eventType === 'DecisionTaskStarted') startedAt.set(id, event.eventTimestamp ?? EPOCH);
    else if (event.eventType === 'DecisionTaskCompleted') {
      const started = event.decisionTaskCompletedEventAttributes?.startedEventId ?? 0;
      answered.push({ startedEventId: started, completedEventId: id });
    } else {
      const completedId = answerOf(event);
      if (completedId !== undefined) push(recorded, completedId, event);
    }
  }
  const steps: Activation[] = answered.map(({ startedEventId: started, completedEventId }) => ({
    startedEventId: started,
    completedEventId,
    time: startedAt.get(started) ?? EPOCH,
    recorded: recorded.get(completedEventId) ?? NONE,
  }));
  const time = startedAt.get(startedEventId) ?? EPOCH;
  steps.push({ startedEventId, time, completedEventId: undefined, recorded: [] });
  return steps;
}

const EPOCH = new Date(0);
const NONE: readonly HistoryEvent[] = [];

/** The event types that record a decision (or its refusal): the others need no closer look. */
const DECISION_RECORDS = new Set([
  'ActivityTaskScheduled',
  'ScheduleActivityTaskFailed',
  'ActivityTaskCancelRequested',
  'RequestCancelActivityTaskFailed',
  'TimerStarted',
  'StartTimerFailed',
  'TimerCanceled',
  'CancelTimerFailed',
  'MarkerRecorded',
  'RecordMarkerFailed',
  'StartChildWorkflowExecutionInitiated',
  'StartChildWorkflowExecutionFailed',
  'SignalExternalWorkflowExecutionInitiated',
  'RequestCancelExternalWorkflowExecutionInitiated',
  'LambdaFunctionScheduled',
  'ScheduleLambdaFunctionFailed',
  'WorkflowExecutionCompleted',
  'CompleteWorkflowExecutionFailed',
  'WorkflowExecutionFailed',
  'FailWorkflowExecutionFailed',
  'WorkflowExecutionCanceled',
  'CancelWorkflowExecutionFailed',
  'WorkflowExecutionContinuedAsNew',
  'ContinueAsNewWorkflowExecutionFailed',
]);

function push(map: Map<number, HistoryEvent[]>, key: number, event: HistoryEvent): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [event]);
  else list.push(event);
}

/**
 * The DecisionTaskCompleted whose answer recorded `event`, when it is the direct record of one
 * decision (ActivityTaskScheduled, ScheduleActivityTaskFailed, TimerStarted, a close …); undefined
 * for events that happened later (a failure that follows an Initiated event is a later outcome).
 */
export function answerOf(e: HistoryEvent): number | undefined {
  if (!DECISION_RECORDS.has(e.eventType ?? '')) return undefined;
  switch (e.eventType) {
    case 'ActivityTaskScheduled':
      return e.activityTaskScheduledEventAttributes?.decisionTaskCompletedEventId;
    case 'ScheduleActivityTaskFailed':
      return e.scheduleActivityTaskFailedEventAttributes?.decisionTaskCompletedEventId;
    case 'ActivityTaskCancelRequested':
      return e.activityTaskCancelRequestedEventAttributes?.decisionTaskCompletedEventId;
    case 'RequestCancelActivityTaskFailed':
      return e.requestCancelActivityTaskFailedEventAttributes?.decisionTaskCompletedEventId;
    case 'TimerStarted':
      return e.timerStartedEventAttributes?.decisionTaskCompletedEventId;
    case 'StartTimerFailed':
      return e.startTimerFailedEventAttributes?.decisionTaskCompletedEventId;
    case 'TimerCanceled':
      return e.timerCanceledEventAttributes?.decisionTaskCompletedEventId;
    case 'CancelTimerFailed':
      return e.cancelTimerFailedEventAttributes?.decisionTaskCompletedEventId;
    case 'MarkerRecorded':
      return e.markerRecordedEventAttributes?.decisionTaskCompletedEventId;
    case 'RecordMarkerFailed':
      return e.recordMarkerFailedEventAttributes?.decisionTaskCompletedEventId;
    default:
      return answerOfOthers(e);
  }
}

function answerOfOthers(e: HistoryEvent): number | undefined {
  switch (e.eventType) {
    case 'StartChildWorkflowExecutionInitiated':
      return e.startChildWorkflowExecutionInitiatedEventAttributes?.decisionTaskCompletedEventId;
    case 'StartChildWorkflowExecutionFailed': {
      const a = e.startChildWorkflowExecutionFailedEventAttributes;
      return a?.initiatedEventId ? undefined : a?.decisionTaskCompletedEventId;
    }
    case 'SignalExternalWorkflowExecutionInitiated':
      return e.signalExternalWorkflowExecutionInitiatedEventAttributes
        ?.decisionTaskCompletedEventId;
    case 'RequestCancelExternalWorkflowExecutionInitiated':
      return e.requestCancelExternalWorkflowExecutionInitiatedEventAttributes
        ?.decisionTaskCompletedEventId;
    case 'LambdaFunctionScheduled':
      return e.lambdaFunctionScheduledEventAttributes?.decisionTaskCompletedEventId;
    case 'ScheduleLambdaFunctionFailed':
      return e.scheduleLambdaFunctionFailedEventAttributes?.decisionTaskCompletedEventId;
    default:
      return answerOfClose(e);
  }
}

function answerOfClose(e: HistoryEvent): number | undefined {
  switch (e.eventType) {
    case 'WorkflowExecutionCompleted':
      return e.workflowExecutionCompletedEventAttributes?.decisionTaskCompletedEventId;
    case 'CompleteWorkflowExecutionFailed':
      return e.completeWorkflowExecutionFailedEventAttributes?.decisionTaskCompletedEventId;
    case 'WorkflowExecutionFailed':
      return e.workflowExecutionFailedEventAttributes?.decisionTaskCompletedEventId;
    case 'FailWorkflowExecutionFailed':
      return e.failWorkflowExecutionFailedEventAttributes?.decisionTaskCompletedEventId;
    case 'WorkflowExecutionCanceled':
      return e.workflowExecutionCanceledEventAttributes?.decisionTaskCompletedEventId;
    case 'CancelWorkflowExecutionFailed':
      return e.cancelWorkflowExecutionFailedEventAttributes?.decisionTaskCompletedEventId;
    case 'WorkflowExecutionContinuedAsNew':
      return e.workflowExecutionContinuedAsNewEventAttributes?.decisionTaskCompletedEventId;
    case 'ContinueAsNewWorkflowExecutionFailed':
      return e.continueAsNewWorkflowExecutionFailedEventAttributes?.decisionTaskCompletedEventId;
    default:
      return undefined;
  }
}

/**
 * The event id of the recorded decision an outcome event is about (the ActivityTaskScheduled of an
 * ActivityTaskCompleted, the TimerStarted of a TimerFired …), or the event's own id for a decision
 * refused at once (ScheduleActivityTaskFailed …). Undefined for events about no decision.
 */
export function subjectOf(e: HistoryEvent): number | undefined {
  switch (e.eventType) {
    case 'ActivityTaskCompleted':
      return e.activityTaskCompletedEventAttributes?.scheduledEventId;
    case 'ActivityTaskFailed':
      return e.activityTaskFailedEventAttributes?.scheduledEventId;
    case 'ActivityTaskTimedOut':
      return e.activityTaskTimedOutEventAttributes?.scheduledEventId;
    case 'ActivityTaskCanceled':
      return e.activityTaskCanceledEventAttributes?.scheduledEventId;
    case 'TimerFired':
      return e.timerFiredEventAttributes?.startedEventId;
    case 'ScheduleActivityTaskFailed':
    case 'StartTimerFailed':
    case 'ScheduleLambdaFunctionFailed':
      return e.eventId;
    case 'StartChildWorkflowExecutionFailed':
      return e.startChildWorkflowExecutionFailedEventAttributes?.initiatedEventId || e.eventId;
    default:
      return childSubjectOf(e) ?? otherSubjectOf(e);
  }
}

function childSubjectOf(e: HistoryEvent): number | undefined {
  switch (e.eventType) {
    case 'ChildWorkflowExecutionStarted':
      return e.childWorkflowExecutionStartedEventAttributes?.initiatedEventId;
    case 'ChildWorkflowExecutionCompleted':
      return e.childWorkflowExecutionCompletedEventAttributes?.initiatedEventId;
    case 'ChildWorkflowExecutionFailed':
      return e.childWorkflowExecutionFailedEventAttributes?.initiatedEventId;
    case 'ChildWorkflowExecutionTimedOut':
      return e.childWorkflowExecutionTimedOutEventAttributes?.initiatedEventId;
    case 'ChildWorkflowExecutionCanceled':
      return e.childWorkflowExecutionCanceledEventAttributes?.initiatedEventId;
    case 'ChildWorkflowExecutionTerminated':
      return e.childWorkflowExecutionTerminatedEventAttributes?.initiatedEventId;
    default:
      return undefined;
  }
}

function otherSubjectOf(e: HistoryEvent): number | undefined {
  switch (e.eventType) {
    case 'ExternalWorkflowExecutionSignaled':
      return e.externalWorkflowExecutionSignaledEventAttributes?.initiatedEventId;
    case 'SignalExternalWorkflowExecutionFailed':
      return e.signalExternalWorkflowExecutionFailedEventAttributes?.initiatedEventId;
    case 'ExternalWorkflowExecutionCancelRequested':
      return e.externalWorkflowExecutionCancelRequestedEventAttributes?.initiatedEventId;
    case 'RequestCancelExternalWorkflowExecutionFailed':
      return e.requestCancelExternalWorkflowExecutionFailedEventAttributes?.initiatedEventId;
    case 'LambdaFunctionCompleted':
      return e.lambdaFunctionCompletedEventAttributes?.scheduledEventId;
    case 'LambdaFunctionFailed':
      return e.lambdaFunctionFailedEventAttributes?.scheduledEventId;
    case 'LambdaFunctionTimedOut':
      return e.lambdaFunctionTimedOutEventAttributes?.scheduledEventId;
    case 'StartLambdaFunctionFailed':
      return e.startLambdaFunctionFailedEventAttributes?.scheduledEventId;
    default:
      return undefined;
  }
}
