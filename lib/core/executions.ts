/**
 * Whole-execution transitions: start, signal, cancel request, terminate. Pure:
 * the caller supplies the clock reading and the new run's id.
 */
import type { ExecutionConfig, ExecutionState } from './execution-state.js';
import type { EventAttributes, ExecutionRef, HistoryEvent, TypeRef } from './history-event.js';
import { executionLimits } from './limits.js';
import type { TaskList, WorkflowTypeConfiguration } from './registry.js';
import { initialState } from './replay.js';
import { Transition } from './transition.js';

/** What a start asks for, before defaults: StartWorkflowExecution, StartChild, ContinueAsNew alike. */
export interface ExecutionRequest {
  readonly taskList?: TaskList;
  readonly executionStartToCloseTimeout?: string;
  readonly taskStartToCloseTimeout?: string;
  readonly childPolicy?: string;
  readonly taskPriority?: string;
  readonly lambdaRole?: string;
}

export type MissingDefault =
  | 'taskList'
  | 'executionStartToCloseTimeout'
  | 'taskStartToCloseTimeout'
  | 'childPolicy';

/**
 * Resolves each setting from the request, else the type's default; the first one with
 * neither is reported, checked in the order the service checks them.
 */
export function resolveExecutionConfig(
  request: ExecutionRequest,
  defaults: WorkflowTypeConfiguration,
):
  | { readonly ok: true; readonly config: ExecutionConfig }
  | { readonly ok: false; readonly missing: MissingDefault } {
  const taskList = request.taskList ?? defaults.defaultTaskList;
  if (taskList === undefined) return { ok: false, missing: 'taskList' };
  const executionStartToCloseTimeout =
    request.executionStartToCloseTimeout ?? defaults.defaultExecutionStartToCloseTimeout;
  if (executionStartToCloseTimeout === undefined)
    return { ok: false, missing: 'executionStartToCloseTimeout' };
  const taskStartToCloseTimeout =
    request.taskStartToCloseTimeout ?? defaults.defaultTaskStartToCloseTimeout;
  if (taskStartToCloseTimeout === undefined)
    return { ok: false, missing: 'taskStartToCloseTimeout' };
  const childPolicy = request.childPolicy ?? defaults.defaultChildPolicy;
  if (childPolicy === undefined) return { ok: false, missing: 'childPolicy' };
  const lambdaRole = request.lambdaRole ?? defaults.defaultLambdaRole;
  return {
    ok: true,
    config: {
      taskList,
      executionStartToCloseTimeout,
      taskStartToCloseTimeout,
      childPolicy,
      taskPriority: request.taskPriority ?? defaults.defaultTaskPriority ?? '0',
      ...(lambdaRole === undefined ? {} : { lambdaRole }),
    },
  };
}

export interface NewRun {
  readonly domain: string;
  readonly execution: ExecutionRef;
  readonly workflowType: TypeRef;
  readonly config: ExecutionConfig;
  readonly input?: string;
  readonly tagList?: readonly string[];
  readonly continuedExecutionRunId?: string;
  readonly parent?: { readonly execution: ExecutionRef; readonly initiatedEventId: number };
}

/** A new run: WorkflowExecutionStarted, then its first DecisionTaskScheduled. */
export function startRun(
  run: NewRun,
  now: number,
): { state: ExecutionState; events: HistoryEvent[] } {
  const c = run.config;
  const attributes: EventAttributes['WorkflowExecutionStarted'] = {
    ...(run.input === undefined ? {} : { input: run.input }),
    executionStartToCloseTimeout: c.executionStartToCloseTimeout,
    taskStartToCloseTimeout: c.taskStartToCloseTimeout,
    childPolicy: c.childPolicy,
    taskList: c.taskList,
    taskPriority: c.taskPriority,
    workflowType: run.workflowType,
    ...(run.tagList === undefined ? {} : { tagList: run.tagList }),
    ...(run.continuedExecutionRunId === undefined
      ? {}
      : { continuedExecutionRunId: run.continuedExecutionRunId }),
    ...(run.parent === undefined ? {} : { parentWorkflowExecution: run.parent.execution }),
    parentInitiatedEventId: run.parent?.initiatedEventId ?? 0,
    ...(c.lambdaRole === undefined ? {} : { lambdaRole: c.lambdaRole }),
  };
  const started: HistoryEvent = {
    eventId: 1,
    eventTimestamp: now,
    eventType: 'WorkflowExecutionStarted',
    attributes,
  };
  const transition = new Transition(initialState(run, started), now);
  transition.scheduleDecisionTaskIfOwed();
  return { state: transition.state, events: [started, ...transition.events] };
}

export interface SignalRequest {
  readonly signalName: string;
  readonly input?: string;
  readonly externalWorkflowExecution?: ExecutionRef;
  readonly externalInitiatedEventId?: number;
}

export function signalExecution(
  state: ExecutionState,
  signal: SignalRequest,
  now: number,
): Transition {
  const t = new Transition(state, now);
  t.record({ eventType: 'WorkflowExecutionSignaled', attributes: signal });
  t.scheduleDecisionTaskIfOwed();
  return t;
}

/** Records the request each time it is made; the flag stays set. */
export function requestCancelExecution(
  state: ExecutionState,
  request: EventAttributes['WorkflowExecutionCancelRequested'],
  now: number,
): Transition {
  const t = new Transition(state, now);
  t.record({ eventType: 'WorkflowExecutionCancelRequested', attributes: request });
  t.scheduleDecisionTaskIfOwed();
  return t;
}

export interface TerminateRequest {
  readonly reason?: string;
  readonly details?: string;
  readonly childPolicy?: string;
  readonly cause?: string;
}

/** Closes at once as TERMINATED; the child policy is the request's, else the execution's. */
export function terminateExecution(
  state: ExecutionState,
  request: TerminateRequest,
  now: number,
): Transition {
  const t = new Transition(state, now);
  t.record({
    eventType: 'WorkflowExecutionTerminated',
    attributes: {
      ...(request.reason === undefined ? {} : { reason: request.reason }),
      ...(request.details === undefined ? {} : { details: request.details }),
      childPolicy: request.childPolicy ?? state.config.childPolicy,
      ...(request.cause === undefined ? {} : { cause: request.cause }),
    },
  });
  return t;
}

/**
 * Whether a change would take a run's history past SWF's limit: its events so far
 * plus `starts`, tasks it schedules that may be started in the same commit (a poller waiting, a push
 * task list). SWF terminates such an execution instead (see terminateForEventLimit).
 */
export function passesEventLimit(changed: ExecutionState, starts = 0): boolean {
  return changed.nextEventId - 1 + starts > executionLimits.historyEvents;
}

/** The run terminated, as SWF does one whose history would pass its limit, instead of the change. */
export function terminateForEventLimit(before: ExecutionState, now: number): Transition {
  return terminateExecution(before, { cause: 'EVENT_LIMIT_EXCEEDED' }, now);
}
