/** Decisions: the wire shapes RespondDecisionTaskCompleted carries, already validated. */
import type { TypeRef } from './history-event.js';
import type { TaskList } from './registry.js';

export interface ScheduleActivityTaskAttributes {
  readonly activityType: TypeRef;
  readonly activityId: string;
  readonly control?: string;
  readonly input?: string;
  readonly scheduleToCloseTimeout?: string;
  readonly taskList?: TaskList;
  readonly taskPriority?: string;
  readonly scheduleToStartTimeout?: string;
  readonly startToCloseTimeout?: string;
  readonly heartbeatTimeout?: string;
}

export interface ContinueAsNewAttributes {
  readonly input?: string;
  readonly executionStartToCloseTimeout?: string;
  readonly taskList?: TaskList;
  readonly taskPriority?: string;
  readonly taskStartToCloseTimeout?: string;
  readonly childPolicy?: string;
  readonly tagList?: readonly string[];
  readonly workflowTypeVersion?: string;
  readonly lambdaRole?: string;
}

export interface StartChildAttributes {
  readonly workflowType: TypeRef;
  readonly workflowId: string;
  readonly control?: string;
  readonly input?: string;
  readonly executionStartToCloseTimeout?: string;
  readonly taskList?: TaskList;
  readonly taskPriority?: string;
  readonly taskStartToCloseTimeout?: string;
  readonly childPolicy?: string;
  readonly tagList?: readonly string[];
  readonly lambdaRole?: string;
}

export interface DecisionAttributes {
  ScheduleActivityTask: ScheduleActivityTaskAttributes;
  RequestCancelActivityTask: { readonly activityId: string };
  CompleteWorkflowExecution: { readonly result?: string };
  FailWorkflowExecution: { readonly reason?: string; readonly details?: string };
  CancelWorkflowExecution: { readonly details?: string };
  ContinueAsNewWorkflowExecution: ContinueAsNewAttributes;
  RecordMarker: { readonly markerName: string; readonly details?: string };
  StartTimer: {
    readonly timerId: string;
    readonly control?: string;
    readonly startToFireTimeout: string;
  };
  CancelTimer: { readonly timerId: string };
  SignalExternalWorkflowExecution: {
    readonly workflowId: string;
    readonly runId?: string;
    readonly signalName: string;
    readonly input?: string;
    readonly control?: string;
  };
  RequestCancelExternalWorkflowExecution: {
    readonly workflowId: string;
    readonly runId?: string;
    readonly control?: string;
  };
  StartChildWorkflowExecution: StartChildAttributes;
  ScheduleLambdaFunction: {
    readonly id: string;
    readonly name: string;
    readonly control?: string;
    readonly input?: string;
    readonly startToCloseTimeout?: string;
  };
}

export type DecisionType = keyof DecisionAttributes;

/** A decision with its one meaningful attributes member, unwrapped from the wire form. */
export type Decision = {
  [T in DecisionType]: { readonly decisionType: T; readonly attributes: DecisionAttributes[T] };
}[DecisionType];

export const closeDecisionTypes: ReadonlySet<DecisionType> = new Set([
  'CompleteWorkflowExecution',
  'FailWorkflowExecution',
  'CancelWorkflowExecution',
  'ContinueAsNewWorkflowExecution',
]);

/** The event each close decision fails with (UNHANDLED_DECISION, OPERATION_NOT_PERMITTED, …). */
export const closeFailedEvent: Partial<
  Record<
    DecisionType,
    | 'CompleteWorkflowExecutionFailed'
    | 'FailWorkflowExecutionFailed'
    | 'CancelWorkflowExecutionFailed'
    | 'ContinueAsNewWorkflowExecutionFailed'
  >
> = {
  CompleteWorkflowExecution: 'CompleteWorkflowExecutionFailed',
  FailWorkflowExecution: 'FailWorkflowExecutionFailed',
  CancelWorkflowExecution: 'CancelWorkflowExecutionFailed',
  ContinueAsNewWorkflowExecution: 'ContinueAsNewWorkflowExecutionFailed',
};

/** The wire member that carries a decision's attributes, e.g. `startTimerDecisionAttributes`. */
export const attributesMember = (decisionType: DecisionType) =>
  `${decisionType[0]?.toLowerCase()}${decisionType.slice(1)}DecisionAttributes`;
