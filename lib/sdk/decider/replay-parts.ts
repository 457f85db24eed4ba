import type { HistoryEvent } from '@aws-sdk/client-swf';
import type { Builder, Mutable } from './replay.js';
import {
  type ActivityState,
  type ChildState,
  isOpenActivity,
  isOpenChild,
  isOpenLambda,
  type LambdaState,
} from './state.js';

const id = (e: HistoryEvent) => e.eventId ?? 0;

function newActivity(b: Builder, e: HistoryEvent, activityId: string): Mutable<ActivityState> {
  const a = e.activityTaskScheduledEventAttributes;
  const activity: Mutable<ActivityState> = {
    activityId,
    activityType: a?.activityType ?? e.scheduleActivityTaskFailedEventAttributes?.activityType,
    status: 'scheduled',
    input: a?.input,
    control: a?.control,
    scheduledEventId: id(e),
    startedEventId: undefined,
    attempts: (b.activities.get(activityId)?.attempts ?? 0) + 1,
    cancelRequested: false,
    result: undefined,
    reason: undefined,
    details: undefined,
    timeoutType: undefined,
    cause: undefined,
    closedEventId: undefined,
  };
  b.activities.set(activityId, activity);
  b.activityByScheduled.set(id(e), activity);
  return activity;
}

function closeActivity(
  b: Builder,
  e: HistoryEvent,
  scheduledEventId: number | undefined,
  change: Partial<Mutable<ActivityState>>,
): void {
  const activity = b.activityByScheduled.get(scheduledEventId ?? -1);
  if (activity === undefined) return;
  Object.assign(activity, change, { closedEventId: id(e) });
}

export function applyActivity(b: Builder, e: HistoryEvent): void {
  switch (e.eventType) {
    case 'ActivityTaskScheduled':
      newActivity(b, e, e.activityTaskScheduledEventAttributes?.activityId ?? '');
      return;
    case 'ScheduleActivityTaskFailed': {
      const a = e.scheduleActivityTaskFailedEventAttributes;
      b.failures.push({ eventId: id(e), eventType: e.eventType, cause: a?.cause });
      // A schedule refused while an activity with the id is open (ACTIVITY_ID_ALREADY_IN_USE)
      // leaves that activity as it is: it is still the one its events will close.
      const current = b.activities.get(a?.activityId ?? '');
      if (current !== undefined && isOpenActivity(current)) return;
      const activity = newActivity(b, e, a?.activityId ?? '');
      Object.assign(activity, { status: 'scheduleFailed', cause: a?.cause, closedEventId: id(e) });
      return;
    }
    case 'ActivityTaskStarted': {
      const scheduled = e.activityTaskStartedEventAttributes?.scheduledEventId ?? -1;
      const activity = b.activityByScheduled.get(scheduled);
      if (activity !== undefined)
        Object.assign(activity, { status: 'started', startedEventId: id(e) });
      return;
    }
    case 'ActivityTaskCompleted': {
      const a = e.activityTaskCompletedEventAttributes;
      closeActivity(b, e, a?.scheduledEventId, { status: 'completed', result: a?.result });
      return;
    }
    case 'ActivityTaskFailed': {
      const a = e.activityTaskFailedEventAttributes;
      const change = { status: 'failed' as const, reason: a?.reason, details: a?.details };
      closeActivity(b, e, a?.scheduledEventId, change);
      return;
    }
    case 'ActivityTaskTimedOut': {
      const a = e.activityTaskTimedOutEventAttributes;
      const change = {
        status: 'timedOut' as const,
        timeoutType: a?.timeoutType,
        details: a?.details,
      };
      closeActivity(b, e, a?.scheduledEventId, change);
      return;
    }
    case 'ActivityTaskCanceled': {
      const a = e.activityTaskCanceledEventAttributes;
      closeActivity(b, e, a?.scheduledEventId, { status: 'canceled', details: a?.details });
      return;
    }
    case 'ActivityTaskCancelRequested': {
      const activity = b.activities.get(
        e.activityTaskCancelRequestedEventAttributes?.activityId ?? '',
      );
      if (activity !== undefined) activity.cancelRequested = true;
      return;
    }
    case 'RequestCancelActivityTaskFailed': {
      const a = e.requestCancelActivityTaskFailedEventAttributes;
      const activity = b.activities.get(a?.activityId ?? '');
      if (activity !== undefined) activity.cause = a?.cause;
      b.failures.push({ eventId: id(e), eventType: e.eventType, cause: a?.cause });
      return;
    }
  }
}

export function applyTimer(b: Builder, e: HistoryEvent): void {
  switch (e.eventType) {
    case 'TimerStarted': {
      const a = e.timerStartedEventAttributes;
      const timerId = a?.timerId ?? '';
      b.timers.set(timerId, {
        timerId,
        status: 'started',
        control: a?.control,
        startToFireTimeout: a?.startToFireTimeout,
        startedEventId: id(e),
        closedEventId: undefined,
        cause: undefined,
      });
      return;
    }
    case 'TimerFired':
    case 'TimerCanceled': {
      const timerId =
        e.timerFiredEventAttributes?.timerId ?? e.timerCanceledEventAttributes?.timerId ?? '';
      const timer = b.timers.get(timerId);
      const status = e.eventType === 'TimerFired' ? 'fired' : 'canceled';
      if (timer !== undefined) Object.assign(timer, { status, closedEventId: id(e) });
      return;
    }
    case 'StartTimerFailed': {
      const a = e.startTimerFailedEventAttributes;
      const timerId = a?.timerId ?? '';
      if (b.timers.get(timerId)?.status !== 'started') {
        b.timers.set(timerId, {
          timerId,
          status: 'startFailed',
          control: undefined,
          startToFireTimeout: undefined,
          startedEventId: undefined,
          closedEventId: id(e),
          cause: a?.cause,
        });
      }
      b.failures.push({ eventId: id(e), eventType: e.eventType, cause: a?.cause });
      return;
    }
    case 'CancelTimerFailed': {
      const cause = e.cancelTimerFailedEventAttributes?.cause;
      b.failures.push({ eventId: id(e), eventType: e.eventType, cause });
      return;
    }
  }
}

function newChild(b: Builder, e: HistoryEvent): void {
  const a = e.startChildWorkflowExecutionInitiatedEventAttributes;
  const child: Mutable<ChildState> = {
    workflowId: a?.workflowId ?? '',
    workflowType: a?.workflowType,
    runId: undefined,
    status: 'initiated',
    control: a?.control,
    input: a?.input,
    initiatedEventId: id(e),
    result: undefined,
    reason: undefined,
    details: undefined,
    timeoutType: undefined,
    cause: undefined,
  };
  b.childByInitiated.set(id(e), child);
  showChild(b, child);
}

/**
 * A workflowId's entry is its latest child, unless an earlier one is still open: a start initiated
 * while a child with the id runs fails (WORKFLOW_ALREADY_RUNNING) or, should that child close first,
 * takes its place when it starts.
 */
function showChild(b: Builder, child: Mutable<ChildState>): void {
  const current = b.children.get(child.workflowId);
  if (current === undefined || current === child || !isOpenChild(current))
    b.children.set(child.workflowId, child);
}

export function applyChild(b: Builder, e: HistoryEvent): void {
  if (e.eventType === 'StartChildWorkflowExecutionInitiated') {
    newChild(b, e);
    return;
  }
  if (e.eventType === 'StartChildWorkflowExecutionFailed') {
    const a = e.startChildWorkflowExecutionFailedEventAttributes;
    const workflowId = a?.workflowId ?? '';
    const known = b.childByInitiated.get(a?.initiatedEventId ?? -1);
    const child = known ?? { ...blankChild(workflowId, a?.workflowType), initiatedEventId: id(e) };
    Object.assign(child, { status: 'startFailed', cause: a?.cause, control: a?.control });
    showChild(b, child);
    b.failures.push({ eventId: id(e), eventType: e.eventType, cause: a?.cause });
    return;
  }
  const a =
    e.childWorkflowExecutionStartedEventAttributes ??
    e.childWorkflowExecutionCompletedEventAttributes ??
    e.childWorkflowExecutionFailedEventAttributes ??
    e.childWorkflowExecutionCanceledEventAttributes ??
    e.childWorkflowExecutionTerminatedEventAttributes ??
    e.childWorkflowExecutionTimedOutEventAttributes;
  const child = b.childByInitiated.get(a?.initiatedEventId ?? -1);
  if (child === undefined) return;
  child.runId = a?.workflowExecution?.runId ?? child.runId;
  Object.assign(child, childChange(e));
  showChild(b, child);
}

function childChange(e: HistoryEvent): Partial<Mutable<ChildState>> {
  switch (e.eventType) {
    case 'ChildWorkflowExecutionStarted':
      return { status: 'started' };
    case 'ChildWorkflowExecutionCompleted':
      return {
        status: 'completed',
        result: e.childWorkflowExecutionCompletedEventAttributes?.result,
      };
    case 'ChildWorkflowExecutionFailed': {
      const a = e.childWorkflowExecutionFailedEventAttributes;
      return { status: 'failed', reason: a?.reason, details: a?.details };
    }
    case 'ChildWorkflowExecutionCanceled':
      return {
        status: 'canceled',
        details: e.childWorkflowExecutionCanceledEventAttributes?.details,
      };
    case 'ChildWorkflowExecutionTerminated':
      return { status: 'terminated' };
    case 'ChildWorkflowExecutionTimedOut': {
      const timeoutType = e.childWorkflowExecutionTimedOutEventAttributes?.timeoutType;
      return { status: 'timedOut', timeoutType };
    }
    default:
      return {};
  }
}

const blankChild = (workflowId: string, workflowType: ChildState['workflowType']) => ({
  workflowId,
  workflowType,
  runId: undefined,
  status: 'initiated' as const,
  control: undefined,
  input: undefined,
  initiatedEventId: 0,
  result: undefined,
  reason: undefined,
  details: undefined,
  timeoutType: undefined,
  cause: undefined,
});

export function applyLambda(b: Builder, e: HistoryEvent): void {
  if (e.eventType === 'LambdaFunctionScheduled' || e.eventType === 'ScheduleLambdaFunctionFailed') {
    const a = e.lambdaFunctionScheduledEventAttributes;
    const f = e.scheduleLambdaFunctionFailedEventAttributes;
    if (f !== undefined) {
      b.failures.push({ eventId: id(e), eventType: e.eventType, cause: f.cause });
      // Refused while a task with the id is open (ID_ALREADY_IN_USE): that task stays as it is.
      const current = b.lambdas.get(f.id ?? '');
      if (current !== undefined && isOpenLambda(current)) return;
    }
    const lambda: Mutable<LambdaState> = {
      id: a?.id ?? f?.id ?? '',
      name: a?.name ?? f?.name,
      status: f === undefined ? 'scheduled' : 'scheduleFailed',
      input: a?.input,
      control: a?.control,
      scheduledEventId: id(e),
      result: undefined,
      reason: undefined,
      details: undefined,
      timeoutType: undefined,
      cause: f?.cause,
    };
    b.lambdas.set(lambda.id, lambda);
    b.lambdaByScheduled.set(id(e), lambda);
    return;
  }
  const scheduled =
    e.lambdaFunctionStartedEventAttributes?.scheduledEventId ??
    e.lambdaFunctionCompletedEventAttributes?.scheduledEventId ??
    e.lambdaFunctionFailedEventAttributes?.scheduledEventId ??
    e.lambdaFunctionTimedOutEventAttributes?.scheduledEventId ??
    e.startLambdaFunctionFailedEventAttributes?.scheduledEventId;
  const lambda = b.lambdaByScheduled.get(scheduled ?? -1);
  if (lambda !== undefined) Object.assign(lambda, lambdaChange(e));
}

function lambdaChange(e: HistoryEvent): Partial<Mutable<LambdaState>> {
  switch (e.eventType) {
    case 'LambdaFunctionStarted':
      return { status: 'started' };
    case 'LambdaFunctionCompleted':
      return { status: 'completed', result: e.lambdaFunctionCompletedEventAttributes?.result };
    case 'LambdaFunctionFailed': {
      const a = e.lambdaFunctionFailedEventAttributes;
      return { status: 'failed', reason: a?.reason, details: a?.details };
    }
    case 'LambdaFunctionTimedOut':
      return {
        status: 'timedOut',
        timeoutType: e.lambdaFunctionTimedOutEventAttributes?.timeoutType,
      };
    case 'StartLambdaFunctionFailed': {
      const a = e.startLambdaFunctionFailedEventAttributes;
      return { status: 'startFailed', cause: a?.cause, details: a?.message };
    }
    default:
      return {};
  }
}

export function applyExternal(b: Builder, e: HistoryEvent): void {
  switch (e.eventType) {
    case 'SignalExternalWorkflowExecutionInitiated':
    case 'RequestCancelExternalWorkflowExecutionInitiated': {
      const s = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
      const c = e.requestCancelExternalWorkflowExecutionInitiatedEventAttributes;
      b.external.set(id(e), {
        kind: s === undefined ? 'cancel' : 'signal',
        initiatedEventId: id(e),
        workflowId: s?.workflowId ?? c?.workflowId ?? '',
        runId: s?.runId ?? c?.runId,
        signalName: s?.signalName,
        control: s?.control ?? c?.control,
        status: 'initiated',
        cause: undefined,
      });
      return;
    }
    case 'ExternalWorkflowExecutionSignaled':
    case 'ExternalWorkflowExecutionCancelRequested': {
      const initiated =
        e.externalWorkflowExecutionSignaledEventAttributes?.initiatedEventId ??
        e.externalWorkflowExecutionCancelRequestedEventAttributes?.initiatedEventId;
      const request = b.external.get(initiated ?? -1);
      if (request !== undefined) request.status = 'delivered';
      return;
    }
    case 'SignalExternalWorkflowExecutionFailed':
    case 'RequestCancelExternalWorkflowExecutionFailed': {
      const a =
        e.signalExternalWorkflowExecutionFailedEventAttributes ??
        e.requestCancelExternalWorkflowExecutionFailedEventAttributes;
      const request = b.external.get(a?.initiatedEventId ?? -1);
      if (request !== undefined) Object.assign(request, { status: 'failed', cause: a?.cause });
      b.failures.push({ eventId: id(e), eventType: e.eventType, cause: a?.cause });
      return;
    }
  }
}
