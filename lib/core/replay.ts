/**
 * history → state. `applyEvent` is the one reducer: the core appends events only through it, so the
 * stored state is always what replaying the stored history gives.
 */
import { assertNever } from './assert-never.js';
import type { ExecutionState } from './execution-state.js';
import {
  type EventAttributes,
  type EventOf,
  type ExecutionRef,
  type HistoryEvent,
  schedulesDecisionTask,
} from './history-event.js';
import { ownProperty } from './own-property.js';

export interface RunIdentity {
  readonly domain: string;
  readonly execution: ExecutionRef;
}

/** Replays a whole history (which must begin with WorkflowExecutionStarted). */
export function replay(identity: RunIdentity, history: readonly HistoryEvent[]): ExecutionState {
  const [first, ...rest] = history;
  if (first?.eventType !== 'WorkflowExecutionStarted') {
    throw new Error('a history begins with WorkflowExecutionStarted');
  }
  return rest.reduce(applyEvent, initialState(identity, first));
}

export function initialState(
  identity: RunIdentity,
  event: EventOf<'WorkflowExecutionStarted'>,
): ExecutionState {
  const a = event.attributes;
  return {
    domain: identity.domain,
    execution: identity.execution,
    workflowType: a.workflowType,
    status: 'OPEN',
    startTimestamp: event.eventTimestamp,
    config: {
      taskList: a.taskList,
      taskStartToCloseTimeout: a.taskStartToCloseTimeout ?? 'NONE',
      executionStartToCloseTimeout: a.executionStartToCloseTimeout ?? 'NONE',
      childPolicy: a.childPolicy,
      taskPriority: a.taskPriority ?? '0',
      ...(a.lambdaRole === undefined ? {} : { lambdaRole: a.lambdaRole }),
    },
    tagList: a.tagList ?? [],
    ...(a.parentWorkflowExecution === undefined
      ? {}
      : {
          parent: {
            execution: a.parentWorkflowExecution,
            initiatedEventId: a.parentInitiatedEventId ?? 0,
          },
        }),
    cancelRequested: false,
    nextEventId: event.eventId + 1,
    latestEventTimestamp: event.eventTimestamp,
    decisionTask: { status: 'none' },
    decisionTaskOwed: true,
    previousStartedEventId: 0,
    decisionTaskList: a.taskList,
    activities: {},
    timers: {},
    children: {},
    externalRequests: {},
    lambdaFunctions: {},
  };
}

/** Applies one event: bookkeeping common to all events, then the event's own change. */
export function applyEvent(state: ExecutionState, event: HistoryEvent): ExecutionState {
  if (event.eventId !== state.nextEventId) {
    throw new Error(`event ${event.eventId} applied where event ${state.nextEventId} was expected`);
  }
  const owed =
    schedulesDecisionTask[event.eventType] && state.decisionTask.status !== 'scheduled'
      ? true
      : state.decisionTaskOwed;
  const next = {
    ...state,
    nextEventId: event.eventId + 1,
    latestEventTimestamp: event.eventTimestamp,
    decisionTaskOwed: owed,
  };
  return applyOwnChange(next, event);
}

const without = <T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> => {
  const { [key]: _removed, ...rest } = record;
  return rest;
};

function close(
  state: ExecutionState,
  event: HistoryEvent,
  closeStatus: NonNullable<ExecutionState['closeStatus']>,
): ExecutionState {
  // A closed execution has nothing open: its tasks are withdrawn and its timers dropped.
  return {
    ...state,
    status: 'CLOSED',
    closeStatus,
    closeTimestamp: event.eventTimestamp,
    closeEvent: event,
    decisionTask: { status: 'none' },
    decisionTaskOwed: false,
    activities: {},
    timers: {},
    lambdaFunctions: {},
    externalRequests: {},
  };
}

function applyOwnChange(state: ExecutionState, event: HistoryEvent): ExecutionState {
  switch (event.eventType) {
    case 'WorkflowExecutionStarted':
      throw new Error('WorkflowExecutionStarted can only be the first event');
    case 'WorkflowExecutionCancelRequested':
      return { ...state, cancelRequested: true };
    case 'WorkflowExecutionCompleted':
      return close(state, event, 'COMPLETED');
    case 'WorkflowExecutionFailed':
      return close(state, event, 'FAILED');
    case 'WorkflowExecutionTimedOut':
      return close(state, event, 'TIMED_OUT');
    case 'WorkflowExecutionCanceled':
      return close(state, event, 'CANCELED');
    case 'WorkflowExecutionTerminated':
      return close(state, event, 'TERMINATED');
    case 'WorkflowExecutionContinuedAsNew':
      return {
        ...close(state, event, 'CONTINUED_AS_NEW'),
        newExecutionRunId: event.attributes.newExecutionRunId,
      };
    case 'DecisionTaskScheduled':
      return decisionTaskScheduled(state, event);
    case 'DecisionTaskStarted':
      return decisionTaskStarted(state, event);
    case 'DecisionTaskCompleted':
      return decisionTaskCompleted(state, event);
    case 'DecisionTaskTimedOut':
      return decisionTaskTimedOut(state);
    case 'ActivityTaskScheduled':
      return activityTaskScheduled(state, event);
    case 'ActivityTaskStarted':
      return activityTaskStarted(state, event);
    case 'ActivityTaskCompleted':
    case 'ActivityTaskFailed':
    case 'ActivityTaskTimedOut':
    case 'ActivityTaskCanceled':
      return activityClosed(state, event.attributes.scheduledEventId);
    case 'ActivityTaskCancelRequested':
      return activityCancelRequested(state, event);
    case 'TimerStarted':
      return timerStarted(state, event);
    case 'TimerFired':
    case 'TimerCanceled':
      return { ...state, timers: without(state.timers, event.attributes.timerId) };
    case 'StartChildWorkflowExecutionInitiated':
      return childInitiated(state, event);
    case 'StartChildWorkflowExecutionFailed':
      return {
        ...state,
        children: without(state.children, String(event.attributes.initiatedEventId)),
      };
    case 'ChildWorkflowExecutionStarted':
      return childStarted(state, event);
    case 'ChildWorkflowExecutionCompleted':
    case 'ChildWorkflowExecutionFailed':
    case 'ChildWorkflowExecutionTimedOut':
    case 'ChildWorkflowExecutionCanceled':
    case 'ChildWorkflowExecutionTerminated':
      return {
        ...state,
        children: without(state.children, String(event.attributes.initiatedEventId)),
      };
    case 'SignalExternalWorkflowExecutionInitiated':
      return externalInitiated(state, event.eventId, 'signal', event.attributes, {
        signalName: event.attributes.signalName,
        ...(event.attributes.input === undefined ? {} : { input: event.attributes.input }),
      });
    case 'RequestCancelExternalWorkflowExecutionInitiated':
      return externalInitiated(state, event.eventId, 'cancel', event.attributes);
    case 'SignalExternalWorkflowExecutionFailed':
    case 'ExternalWorkflowExecutionSignaled':
    case 'RequestCancelExternalWorkflowExecutionFailed':
    case 'ExternalWorkflowExecutionCancelRequested':
      return {
        ...state,
        externalRequests: without(
          state.externalRequests,
          String(event.attributes.initiatedEventId),
        ),
      };
    case 'LambdaFunctionScheduled':
      return lambdaScheduled(state, event);
    case 'LambdaFunctionStarted':
      return lambdaStarted(
        state,
        event.attributes.scheduledEventId,
        event.eventId,
        event.eventTimestamp,
      );
    case 'LambdaFunctionCompleted':
    case 'LambdaFunctionFailed':
    case 'LambdaFunctionTimedOut':
      return lambdaClosed(state, event.attributes.scheduledEventId);
    case 'StartLambdaFunctionFailed':
      return lambdaClosed(state, event.attributes.scheduledEventId ?? 0);
    case 'CompleteWorkflowExecutionFailed':
    case 'FailWorkflowExecutionFailed':
    case 'CancelWorkflowExecutionFailed':
    case 'ContinueAsNewWorkflowExecutionFailed':
    case 'ScheduleActivityTaskFailed':
    case 'RequestCancelActivityTaskFailed':
    case 'WorkflowExecutionSignaled':
    case 'MarkerRecorded':
    case 'RecordMarkerFailed':
    case 'StartTimerFailed':
    case 'CancelTimerFailed':
    case 'ScheduleLambdaFunctionFailed':
      // Recorded for the decider; they change nothing but the decision-task bookkeeping above.
      return state;
    default:
      return assertNever(event);
  }
}

function decisionTaskScheduled(
  state: ExecutionState,
  event: EventOf<'DecisionTaskScheduled'>,
): ExecutionState {
  const a = event.attributes;
  return {
    ...state,
    decisionTaskOwed: false,
    decisionTask: {
      status: 'scheduled',
      scheduledEventId: event.eventId,
      taskList: a.taskList.name,
      taskPriority: a.taskPriority ?? '0',
      scheduledAt: event.eventTimestamp,
      startToCloseTimeout: a.startToCloseTimeout ?? 'NONE',
      ...(a.scheduleToStartTimeout === undefined || a.scheduleToStartTimeout === 'NONE'
        ? {}
        : { scheduleToStartTimeout: a.scheduleToStartTimeout }),
    },
  };
}

function decisionTaskStarted(
  state: ExecutionState,
  event: EventOf<'DecisionTaskStarted'>,
): ExecutionState {
  const task = state.decisionTask;
  if (task.status !== 'scheduled')
    throw new Error('DecisionTaskStarted without a scheduled decision task');
  return {
    ...state,
    decisionTask: {
      status: 'started',
      scheduledEventId: task.scheduledEventId,
      startedEventId: event.eventId,
      startedAt: event.eventTimestamp,
      taskList: task.taskList,
      taskPriority: task.taskPriority,
      scheduledAt: task.scheduledAt,
      startToCloseTimeout: task.startToCloseTimeout,
    },
  };
}

function decisionTaskCompleted(
  state: ExecutionState,
  event: EventOf<'DecisionTaskCompleted'>,
): ExecutionState {
  const a = event.attributes;
  // The override applies to the state before this event, so it cannot undo the task's completion.
  const base =
    a.taskList === undefined
      ? state
      : overrideTaskList(state, a.taskList, a.taskListScheduleToStartTimeout);
  return {
    ...base,
    decisionTask: { status: 'none' },
    previousStartedEventId: a.startedEventId,
    ...(a.executionContext === undefined ? {} : { latestExecutionContext: a.executionContext }),
  };
}

function overrideTaskList(
  state: ExecutionState,
  taskList: EventAttributes['DecisionTaskCompleted']['taskList'] & object,
  timeout: string | undefined,
): ExecutionState {
  const { decisionTaskListTimeout: _previous, ...rest } = state;
  const temporary =
    timeout !== undefined && timeout !== 'NONE' ? { decisionTaskListTimeout: timeout } : {};
  return { ...rest, decisionTaskList: taskList, ...temporary };
}

/** SWF reverts a temporary task-list override when the task on it times out. */
function decisionTaskTimedOut(state: ExecutionState): ExecutionState {
  const { decisionTaskListTimeout, ...rest } = state;
  const revert =
    decisionTaskListTimeout === undefined ? {} : { decisionTaskList: state.config.taskList };
  // A timed-out task is always replaced, even one that timed out before it started.
  const base = decisionTaskListTimeout === undefined ? state : rest;
  return { ...base, decisionTask: { status: 'none' }, decisionTaskOwed: true, ...revert };
}

function activityTaskScheduled(
  state: ExecutionState,
  event: EventOf<'ActivityTaskScheduled'>,
): ExecutionState {
  const a = event.attributes;
  return {
    ...state,
    latestActivityTaskTimestamp: event.eventTimestamp,
    activities: {
      ...state.activities,
      [a.activityId]: {
        activityId: a.activityId,
        activityType: a.activityType,
        scheduledEventId: event.eventId,
        taskList: a.taskList.name,
        taskPriority: a.taskPriority ?? '0',
        scheduledAt: event.eventTimestamp,
        timeouts: {
          scheduleToStart: a.scheduleToStartTimeout ?? 'NONE',
          scheduleToClose: a.scheduleToCloseTimeout ?? 'NONE',
          startToClose: a.startToCloseTimeout ?? 'NONE',
          heartbeat: a.heartbeatTimeout ?? 'NONE',
        },
      },
    },
  };
}

function withActivity(
  state: ExecutionState,
  scheduledEventId: number,
  change: (
    activity: ExecutionState['activities'][string],
  ) => ExecutionState['activities'][string] | undefined,
): ExecutionState {
  const entry = Object.values(state.activities).find(
    (a) => a.scheduledEventId === scheduledEventId,
  );
  if (entry === undefined)
    throw new Error(`no open activity scheduled by event ${scheduledEventId}`);
  const changed = change(entry);
  const activities =
    changed === undefined
      ? without(state.activities, entry.activityId)
      : { ...state.activities, [entry.activityId]: changed };
  return { ...state, activities };
}

const activityTaskStarted = (state: ExecutionState, event: EventOf<'ActivityTaskStarted'>) =>
  withActivity(state, event.attributes.scheduledEventId, (activity) => ({
    ...activity,
    startedEventId: event.eventId,
    startedAt: event.eventTimestamp,
    ...(event.attributes.identity === undefined ? {} : { identity: event.attributes.identity }),
  }));

const activityClosed = (state: ExecutionState, scheduledEventId: number) =>
  withActivity(state, scheduledEventId, () => undefined);

function activityCancelRequested(
  state: ExecutionState,
  event: EventOf<'ActivityTaskCancelRequested'>,
): ExecutionState {
  const activity = ownProperty(state.activities, event.attributes.activityId);
  if (activity === undefined) return state;
  return {
    ...state,
    activities: {
      ...state.activities,
      [activity.activityId]: { ...activity, latestCancelRequestedEventId: event.eventId },
    },
  };
}

function timerStarted(state: ExecutionState, event: EventOf<'TimerStarted'>): ExecutionState {
  const a = event.attributes;
  const timer = {
    timerId: a.timerId,
    startedEventId: event.eventId,
    startToFireTimeout: a.startToFireTimeout,
    fireAt: event.eventTimestamp + Number(a.startToFireTimeout),
  };
  return { ...state, timers: { ...state.timers, [a.timerId]: timer } };
}

function childInitiated(
  state: ExecutionState,
  event: EventOf<'StartChildWorkflowExecutionInitiated'>,
): ExecutionState {
  const a = event.attributes;
  const child = {
    workflowId: a.workflowId,
    workflowType: a.workflowType,
    initiatedEventId: event.eventId,
    initiated: a,
  };
  return { ...state, children: { ...state.children, [String(event.eventId)]: child } };
}

function childStarted(
  state: ExecutionState,
  event: EventOf<'ChildWorkflowExecutionStarted'>,
): ExecutionState {
  const key = String(event.attributes.initiatedEventId);
  const child = ownProperty(state.children, key);
  if (child === undefined) return state;
  const { initiated: _startRequest, ...rest } = child;
  const started = {
    ...rest,
    runId: event.attributes.workflowExecution.runId,
    startedEventId: event.eventId,
  };
  return { ...state, children: { ...state.children, [key]: started } };
}

function externalInitiated(
  state: ExecutionState,
  eventId: number,
  kind: 'signal' | 'cancel',
  a: {
    readonly workflowId: string;
    readonly runId?: string;
    readonly control?: string;
    readonly decisionTaskCompletedEventId: number;
  },
  signal: { readonly signalName: string; readonly input?: string } | undefined = undefined,
): ExecutionState {
  const request = {
    kind,
    workflowId: a.workflowId,
    initiatedEventId: eventId,
    decisionTaskCompletedEventId: a.decisionTaskCompletedEventId,
    ...(a.runId === undefined || a.runId === '' ? {} : { runId: a.runId }),
    ...(a.control === undefined ? {} : { control: a.control }),
    ...(signal === undefined ? {} : { signal }),
  };
  return { ...state, externalRequests: { ...state.externalRequests, [String(eventId)]: request } };
}

function lambdaScheduled(
  state: ExecutionState,
  event: EventOf<'LambdaFunctionScheduled'>,
): ExecutionState {
  const a = event.attributes;
  const fn = {
    id: a.id,
    name: a.name,
    scheduledEventId: event.eventId,
    startToCloseTimeout: a.startToCloseTimeout ?? '900',
    ...(a.input === undefined ? {} : { input: a.input }),
  };
  return { ...state, lambdaFunctions: { ...state.lambdaFunctions, [a.id]: fn } };
}

function lambdaStarted(
  state: ExecutionState,
  scheduledEventId: number,
  startedEventId: number,
  startedAt: number,
): ExecutionState {
  const fn = Object.values(state.lambdaFunctions).find(
    (f) => f.scheduledEventId === scheduledEventId,
  );
  if (fn === undefined) return state;
  const { input: _input, ...started } = fn;
  return {
    ...state,
    lambdaFunctions: {
      ...state.lambdaFunctions,
      [fn.id]: { ...started, startedEventId, startedAt },
    },
  };
}

function lambdaClosed(state: ExecutionState, scheduledEventId: number): ExecutionState {
  const fn = Object.values(state.lambdaFunctions).find(
    (f) => f.scheduledEventId === scheduledEventId,
  );
  return fn === undefined
    ? state
    : { ...state, lambdaFunctions: without(state.lambdaFunctions, fn.id) };
}
