/**
 * What other executions cause in this one: the outcome of a signal or cancel
 * request it sent, its child's start and close. Pure; the outbox loads both runs and commits both.
 */
import { executionTimedOutBy } from './deadlines.js';
import type { ExecutionConfig, ExecutionState, ExternalRequestState } from './execution-state.js';
import type { EventAttributes, ExecutionRef, NewEvent } from './history-event.js';
import { Transition } from './transition.js';

/** The sender learns whether its signal or cancel request reached an open execution. */
export function externalRequestOutcome(
  source: ExecutionState,
  initiatedEventId: number,
  target: ExecutionRef | undefined,
  now: number,
): Transition | undefined {
  const request = source.externalRequests[String(initiatedEventId)];
  if (request === undefined || source.status !== 'OPEN') return undefined;
  const t = new Transition(source, now);
  if (target !== undefined) {
    t.record(
      request.kind === 'signal'
        ? {
            eventType: 'ExternalWorkflowExecutionSignaled',
            attributes: { workflowExecution: target, initiatedEventId },
          }
        : {
            eventType: 'ExternalWorkflowExecutionCancelRequested',
            attributes: { workflowExecution: target, initiatedEventId },
          },
    );
  } else {
    const attributes = {
      workflowId: request.workflowId,
      ...(request.runId === undefined ? {} : { runId: request.runId }),
      cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
      initiatedEventId,
      decisionTaskCompletedEventId: request.decisionTaskCompletedEventId,
      ...(request.control === undefined ? {} : { control: request.control }),
    };
    t.record(
      request.kind === 'signal'
        ? { eventType: 'SignalExternalWorkflowExecutionFailed', attributes }
        : { eventType: 'RequestCancelExternalWorkflowExecutionFailed', attributes },
    );
  }
  t.scheduleDecisionTaskIfOwed();
  return t;
}

/** The target's side of a signal or cancel request from another execution. */
export function externalRequestArrival(
  target: ExecutionState,
  source: ExecutionState,
  initiatedEventId: number,
  now: number,
): Transition | undefined {
  const request = source.externalRequests[String(initiatedEventId)];
  if (request === undefined || target.status !== 'OPEN') return undefined;
  const t = new Transition(target, now);
  t.record(arrivalEvent(source, request));
  t.scheduleDecisionTaskIfOwed();
  return t;
}

/**
 * An execution that signals (or asks to cancel) itself: the arrival and the outcome are one transition,
 * followed by one decision task.
 */
export function externalRequestToSelf(
  state: ExecutionState,
  initiatedEventId: number,
  now: number,
): Transition | undefined {
  const request = state.externalRequests[String(initiatedEventId)];
  if (request === undefined || state.status !== 'OPEN') return undefined;
  const t = new Transition(state, now);
  t.record(arrivalEvent(state, request));
  t.record(
    request.kind === 'signal'
      ? {
          eventType: 'ExternalWorkflowExecutionSignaled',
          attributes: { workflowExecution: state.execution, initiatedEventId },
        }
      : {
          eventType: 'ExternalWorkflowExecutionCancelRequested',
          attributes: { workflowExecution: state.execution, initiatedEventId },
        },
  );
  t.scheduleDecisionTaskIfOwed();
  return t;
}

function arrivalEvent(source: ExecutionState, request: ExternalRequestState): NewEvent {
  const from = {
    externalWorkflowExecution: source.execution,
    externalInitiatedEventId: request.initiatedEventId,
  };
  return request.kind === 'signal'
    ? {
        eventType: 'WorkflowExecutionSignaled',
        attributes: {
          signalName: request.signal?.signalName ?? '',
          ...(request.signal?.input === undefined ? {} : { input: request.signal.input }),
          ...from,
        },
      }
    : { eventType: 'WorkflowExecutionCancelRequested', attributes: from };
}

/** Settings of a child run as its Initiated event resolved them. */
export function childConfig(
  initiated: EventAttributes['StartChildWorkflowExecutionInitiated'],
): ExecutionConfig {
  return {
    taskList: initiated.taskList,
    taskStartToCloseTimeout: initiated.taskStartToCloseTimeout ?? 'NONE',
    executionStartToCloseTimeout: initiated.executionStartToCloseTimeout ?? 'NONE',
    childPolicy: initiated.childPolicy,
    taskPriority: initiated.taskPriority ?? '0',
    ...(initiated.lambdaRole === undefined ? {} : { lambdaRole: initiated.lambdaRole }),
  };
}

export function childStarted(
  parent: ExecutionState,
  initiatedEventId: number,
  child: ExecutionRef,
  now: number,
): Transition | undefined {
  const entry = parent.children[String(initiatedEventId)];
  if (entry?.initiated === undefined || parent.status !== 'OPEN') return undefined;
  const t = new Transition(parent, now);
  t.record({
    eventType: 'ChildWorkflowExecutionStarted',
    attributes: { workflowExecution: child, workflowType: entry.workflowType, initiatedEventId },
  });
  t.scheduleDecisionTaskIfOwed();
  return t;
}

/** WORKFLOW_ALREADY_RUNNING: the only start failure reported after an Initiated event. */
export function childAlreadyRunning(
  parent: ExecutionState,
  initiatedEventId: number,
  now: number,
): Transition | undefined {
  const entry = parent.children[String(initiatedEventId)];
  if (entry?.initiated === undefined || parent.status !== 'OPEN') return undefined;
  const t = new Transition(parent, now);
  t.record({
    eventType: 'StartChildWorkflowExecutionFailed',
    attributes: {
      workflowType: entry.workflowType,
      cause: 'WORKFLOW_ALREADY_RUNNING',
      workflowId: entry.workflowId,
      initiatedEventId,
      decisionTaskCompletedEventId: entry.initiated.decisionTaskCompletedEventId,
      ...(entry.initiated.control === undefined ? {} : { control: entry.initiated.control }),
    },
  });
  t.scheduleDecisionTaskIfOwed();
  return t;
}

/**
 * The parent learns how its child closed; nothing happens if it has already learned, or has closed,
 * or had passed its own execution timeout when the child closed (its fire not come yet: the parent
 * timed out before there was anything to hear).
 */
export function childClosed(
  parent: ExecutionState,
  child: ExecutionState,
  now: number,
): Transition | undefined {
  const initiatedEventId = child.parent?.initiatedEventId ?? 0;
  const entry = parent.children[String(initiatedEventId)];
  const close = child.closeEvent;
  if (entry === undefined || parent.status !== 'OPEN' || close === undefined) return undefined;
  if (executionTimedOutBy(parent, close.eventTimestamp)) return undefined;
  const ids = {
    workflowExecution: child.execution,
    workflowType: child.workflowType,
    initiatedEventId,
    startedEventId: entry.startedEventId ?? 0,
  };
  const t = new Transition(parent, now);
  switch (close.eventType) {
    case 'WorkflowExecutionCompleted':
      t.record({
        eventType: 'ChildWorkflowExecutionCompleted',
        attributes: { ...ids, ...optional('result', close.attributes.result) },
      });
      break;
    case 'WorkflowExecutionFailed':
      t.record({
        eventType: 'ChildWorkflowExecutionFailed',
        attributes: {
          ...ids,
          ...optional('reason', close.attributes.reason),
          ...optional('details', close.attributes.details),
        },
      });
      break;
    case 'WorkflowExecutionCanceled':
      t.record({
        eventType: 'ChildWorkflowExecutionCanceled',
        attributes: { ...ids, ...optional('details', close.attributes.details) },
      });
      break;
    case 'WorkflowExecutionTimedOut':
      t.record({
        eventType: 'ChildWorkflowExecutionTimedOut',
        attributes: { ...ids, timeoutType: close.attributes.timeoutType },
      });
      break;
    case 'WorkflowExecutionTerminated':
      t.record({ eventType: 'ChildWorkflowExecutionTerminated', attributes: ids });
      break;
    default:
      return undefined;
  }
  t.scheduleDecisionTaskIfOwed();
  return t;
}

const optional = <K extends string>(key: K, value: string | undefined): { [P in K]?: string } =>
  value === undefined ? {} : ({ [key]: value } as { [P in K]?: string });
