/**
 * SWF history events: all 54 types, each with the attributes the service model gives
 * it. In the wire form the attributes sit under `<lowerCamel(eventType)>EventAttributes`; here they sit
 * under `attributes`, and `toWireEvent` renames them.
 */
import type { TaskList } from './registry.js';

export interface TypeRef {
  readonly name: string;
  readonly version: string;
}
export interface ExecutionRef {
  readonly workflowId: string;
  readonly runId: string;
}

type Dtc = { readonly decisionTaskCompletedEventId: number };
type Opt<T> = { readonly [K in keyof T]?: T[K] };

export interface ExecutionConfigAttributes {
  readonly executionStartToCloseTimeout?: string;
  readonly taskStartToCloseTimeout?: string;
  readonly childPolicy: string;
  readonly taskList: TaskList;
  readonly taskPriority?: string;
  readonly lambdaRole?: string;
}

export interface EventAttributes {
  WorkflowExecutionStarted: ExecutionConfigAttributes & {
    readonly workflowType: TypeRef;
    readonly input?: string;
    readonly tagList?: readonly string[];
    readonly continuedExecutionRunId?: string;
    readonly parentWorkflowExecution?: ExecutionRef;
    readonly parentInitiatedEventId?: number;
  };
  WorkflowExecutionCancelRequested: Opt<{
    externalWorkflowExecution: ExecutionRef;
    externalInitiatedEventId: number;
    cause: string;
  }>;
  WorkflowExecutionCompleted: Dtc & { readonly result?: string };
  CompleteWorkflowExecutionFailed: Dtc & { readonly cause: string };
  WorkflowExecutionFailed: Dtc & { readonly reason?: string; readonly details?: string };
  FailWorkflowExecutionFailed: Dtc & { readonly cause: string };
  WorkflowExecutionTimedOut: { readonly timeoutType: string; readonly childPolicy: string };
  WorkflowExecutionCanceled: Dtc & { readonly details?: string };
  CancelWorkflowExecutionFailed: Dtc & { readonly cause: string };
  WorkflowExecutionContinuedAsNew: Dtc &
    ExecutionConfigAttributes & {
      readonly input?: string;
      readonly newExecutionRunId: string;
      readonly tagList?: readonly string[];
      readonly workflowType: TypeRef;
    };
  ContinueAsNewWorkflowExecutionFailed: Dtc & { readonly cause: string };
  WorkflowExecutionTerminated: {
    readonly reason?: string;
    readonly details?: string;
    readonly childPolicy: string;
    readonly cause?: string;
  };
  DecisionTaskScheduled: {
    readonly taskList: TaskList;
    readonly taskPriority?: string;
    readonly startToCloseTimeout?: string;
    readonly scheduleToStartTimeout?: string;
  };
  DecisionTaskStarted: { readonly identity?: string; readonly scheduledEventId: number };
  DecisionTaskCompleted: {
    readonly executionContext?: string;
    readonly scheduledEventId: number;
    readonly startedEventId: number;
    readonly taskList?: TaskList;
    readonly taskListScheduleToStartTimeout?: string;
  };
  DecisionTaskTimedOut: {
    readonly timeoutType: string;
    readonly scheduledEventId: number;
    readonly startedEventId: number;
  };
  ActivityTaskScheduled: Dtc & {
    readonly activityType: TypeRef;
    readonly activityId: string;
    readonly input?: string;
    readonly control?: string;
    readonly scheduleToStartTimeout?: string;
    readonly scheduleToCloseTimeout?: string;
    readonly startToCloseTimeout?: string;
    readonly taskList: TaskList;
    readonly taskPriority?: string;
    readonly heartbeatTimeout?: string;
  };
  ScheduleActivityTaskFailed: Dtc & {
    readonly activityType: TypeRef;
    readonly activityId: string;
    readonly cause: string;
  };
  ActivityTaskStarted: { readonly identity?: string; readonly scheduledEventId: number };
  ActivityTaskCompleted: {
    readonly result?: string;
    readonly scheduledEventId: number;
    readonly startedEventId: number;
  };
  ActivityTaskFailed: {
    readonly reason?: string;
    readonly details?: string;
    readonly scheduledEventId: number;
    readonly startedEventId: number;
  };
  ActivityTaskTimedOut: {
    readonly timeoutType: string;
    readonly scheduledEventId: number;
    readonly startedEventId: number;
    readonly details?: string;
  };
  ActivityTaskCanceled: {
    readonly details?: string;
    readonly scheduledEventId: number;
    readonly startedEventId: number;
    readonly latestCancelRequestedEventId?: number;
  };
  ActivityTaskCancelRequested: Dtc & { readonly activityId: string };
  RequestCancelActivityTaskFailed: Dtc & { readonly activityId: string; readonly cause: string };
  WorkflowExecutionSignaled: {
    readonly signalName: string;
    readonly input?: string;
    readonly externalWorkflowExecution?: ExecutionRef;
    readonly externalInitiatedEventId?: number;
  };
  MarkerRecorded: Dtc & { readonly markerName: string; readonly details?: string };
  RecordMarkerFailed: Dtc & { readonly markerName: string; readonly cause: string };
  TimerStarted: Dtc & {
    readonly timerId: string;
    readonly control?: string;
    readonly startToFireTimeout: string;
  };
  StartTimerFailed: Dtc & { readonly timerId: string; readonly cause: string };
  TimerFired: { readonly timerId: string; readonly startedEventId: number };
  TimerCanceled: Dtc & { readonly timerId: string; readonly startedEventId: number };
  CancelTimerFailed: Dtc & { readonly timerId: string; readonly cause: string };
  StartChildWorkflowExecutionInitiated: Dtc &
    ExecutionConfigAttributes & {
      readonly workflowId: string;
      readonly workflowType: TypeRef;
      readonly control?: string;
      readonly input?: string;
      readonly tagList?: readonly string[];
    };
  StartChildWorkflowExecutionFailed: Dtc & {
    readonly workflowType: TypeRef;
    readonly cause: string;
    readonly workflowId: string;
    readonly initiatedEventId: number;
    readonly control?: string;
  };
  ChildWorkflowExecutionStarted: ChildRef;
  ChildWorkflowExecutionCompleted: ChildClosed & { readonly result?: string };
  ChildWorkflowExecutionFailed: ChildClosed & {
    readonly reason?: string;
    readonly details?: string;
  };
  ChildWorkflowExecutionTimedOut: ChildClosed & { readonly timeoutType: string };
  ChildWorkflowExecutionCanceled: ChildClosed & { readonly details?: string };
  ChildWorkflowExecutionTerminated: ChildClosed;
  SignalExternalWorkflowExecutionInitiated: Dtc & {
    readonly workflowId: string;
    readonly runId?: string;
    readonly signalName: string;
    readonly input?: string;
    readonly control?: string;
  };
  SignalExternalWorkflowExecutionFailed: Dtc & ExternalFailed;
  ExternalWorkflowExecutionSignaled: {
    readonly workflowExecution: ExecutionRef;
    readonly initiatedEventId: number;
  };
  RequestCancelExternalWorkflowExecutionInitiated: Dtc & {
    readonly workflowId: string;
    readonly runId?: string;
    readonly control?: string;
  };
  RequestCancelExternalWorkflowExecutionFailed: Dtc & ExternalFailed;
  ExternalWorkflowExecutionCancelRequested: {
    readonly workflowExecution: ExecutionRef;
    readonly initiatedEventId: number;
  };
  LambdaFunctionScheduled: Dtc & {
    readonly id: string;
    readonly name: string;
    readonly control?: string;
    readonly input?: string;
    readonly startToCloseTimeout?: string;
  };
  LambdaFunctionStarted: { readonly scheduledEventId: number };
  LambdaFunctionCompleted: {
    readonly scheduledEventId: number;
    readonly startedEventId: number;
    readonly result?: string;
  };
  LambdaFunctionFailed: {
    readonly scheduledEventId: number;
    readonly startedEventId: number;
    readonly reason?: string;
    readonly details?: string;
  };
  LambdaFunctionTimedOut: {
    readonly scheduledEventId: number;
    readonly startedEventId: number;
    readonly timeoutType?: string;
  };
  ScheduleLambdaFunctionFailed: Dtc & {
    readonly id: string;
    readonly name: string;
    readonly cause: string;
  };
  StartLambdaFunctionFailed: {
    readonly scheduledEventId?: number;
    readonly cause?: string;
    readonly message?: string;
  };
}

interface ChildRef {
  readonly workflowExecution: ExecutionRef;
  readonly workflowType: TypeRef;
  readonly initiatedEventId: number;
}
interface ChildClosed extends ChildRef {
  readonly startedEventId: number;
}
interface ExternalFailed {
  readonly workflowId: string;
  readonly runId?: string;
  readonly cause: string;
  readonly initiatedEventId: number;
  readonly control?: string;
}

export type EventType = keyof EventAttributes;

/** One history event: `eventTimestamp` in epoch seconds. */
export type HistoryEvent = {
  [T in EventType]: {
    readonly eventId: number;
    readonly eventTimestamp: number;
    readonly eventType: T;
    readonly attributes: EventAttributes[T];
  };
}[EventType];

export type EventOf<T extends EventType> = Extract<HistoryEvent, { eventType: T }>;

/** An event before it has an id and a timestamp: what the core decides to append. */
export type NewEvent = {
  [T in EventType]: { readonly eventType: T; readonly attributes: EventAttributes[T] };
}[EventType];

/**
 * Does recording this event schedule a decision task? An outcome the decider has not seen is Y; an
 * echo of the decider's own decision or a progress marker is N; a close needs none.
 */
export const schedulesDecisionTask: { readonly [T in EventType]: boolean } = {
  WorkflowExecutionStarted: true,
  WorkflowExecutionCancelRequested: true,
  WorkflowExecutionCompleted: false,
  CompleteWorkflowExecutionFailed: true,
  WorkflowExecutionFailed: false,
  FailWorkflowExecutionFailed: true,
  WorkflowExecutionTimedOut: false,
  WorkflowExecutionCanceled: false,
  CancelWorkflowExecutionFailed: true,
  WorkflowExecutionContinuedAsNew: false,
  ContinueAsNewWorkflowExecutionFailed: true,
  WorkflowExecutionTerminated: false,
  DecisionTaskScheduled: false,
  DecisionTaskStarted: false,
  DecisionTaskCompleted: false,
  DecisionTaskTimedOut: true,
  ActivityTaskScheduled: false,
  ScheduleActivityTaskFailed: true,
  ActivityTaskStarted: false,
  ActivityTaskCompleted: true,
  ActivityTaskFailed: true,
  ActivityTaskTimedOut: true,
  ActivityTaskCanceled: true,
  ActivityTaskCancelRequested: false,
  RequestCancelActivityTaskFailed: true,
  WorkflowExecutionSignaled: true,
  MarkerRecorded: false,
  RecordMarkerFailed: true,
  TimerStarted: false,
  StartTimerFailed: true,
  TimerFired: true,
  TimerCanceled: false,
  CancelTimerFailed: true,
  StartChildWorkflowExecutionInitiated: false,
  StartChildWorkflowExecutionFailed: true,
  ChildWorkflowExecutionStarted: true,
  ChildWorkflowExecutionCompleted: true,
  ChildWorkflowExecutionFailed: true,
  ChildWorkflowExecutionTimedOut: true,
  ChildWorkflowExecutionCanceled: true,
  ChildWorkflowExecutionTerminated: true,
  SignalExternalWorkflowExecutionInitiated: false,
  SignalExternalWorkflowExecutionFailed: true,
  ExternalWorkflowExecutionSignaled: true,
  RequestCancelExternalWorkflowExecutionInitiated: false,
  RequestCancelExternalWorkflowExecutionFailed: true,
  ExternalWorkflowExecutionCancelRequested: true,
  LambdaFunctionScheduled: false,
  LambdaFunctionStarted: false,
  LambdaFunctionCompleted: true,
  LambdaFunctionFailed: true,
  LambdaFunctionTimedOut: true,
  ScheduleLambdaFunctionFailed: true,
  StartLambdaFunctionFailed: true,
};

/** The wire form: `{eventId, eventTimestamp, eventType, <lowerCamel>EventAttributes}`. */
export function toWireEvent(event: HistoryEvent): Record<string, unknown> {
  const member = `${event.eventType[0]?.toLowerCase()}${event.eventType.slice(1)}EventAttributes`;
  return {
    eventTimestamp: event.eventTimestamp,
    eventType: event.eventType,
    eventId: event.eventId,
    [member]: event.attributes,
  };
}
