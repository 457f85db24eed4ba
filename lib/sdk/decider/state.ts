import type {
  ActivityType,
  HistoryEvent,
  TaskList,
  WorkflowExecution,
  WorkflowType,
} from '@aws-sdk/client-swf';

/** Where an activity stands, from its latest ActivityTaskScheduled (or ScheduleActivityTaskFailed). */
export type ActivityStatus =
  | 'scheduled'
  | 'started'
  | 'completed'
  | 'failed'
  | 'timedOut'
  | 'canceled'
  | 'scheduleFailed';

export interface ActivityState {
  readonly activityId: string;
  readonly activityType: ActivityType | undefined;
  readonly status: ActivityStatus;
  readonly input: string | undefined;
  readonly control: string | undefined;
  readonly scheduledEventId: number;
  readonly startedEventId: number | undefined;
  /** How many times this activityId was scheduled in the run (retries reuse the id). */
  readonly attempts: number;
  /** An ActivityTaskCancelRequested was recorded for the current attempt. */
  readonly cancelRequested: boolean;
  readonly result: string | undefined;
  /** Failure: `reason`/`details` of ActivityTaskFailed, `details` of Canceled/TimedOut. */
  readonly reason: string | undefined;
  readonly details: string | undefined;
  readonly timeoutType: string | undefined;
  /** The cause of ScheduleActivityTaskFailed or of the latest RequestCancelActivityTaskFailed. */
  readonly cause: string | undefined;
  /** The event that closed it (or the schedule failure), if closed. */
  readonly closedEventId: number | undefined;
}

export type TimerStatus = 'started' | 'fired' | 'canceled' | 'startFailed';

export interface TimerState {
  readonly timerId: string;
  readonly status: TimerStatus;
  readonly control: string | undefined;
  readonly startToFireTimeout: string | undefined;
  readonly startedEventId: number | undefined;
  /** When it fired or was canceled, the event id: compare with signals to know which came first. */
  readonly closedEventId: number | undefined;
  readonly cause: string | undefined;
}

export interface SignalRecord {
  readonly eventId: number;
  readonly signalName: string;
  readonly input: string | undefined;
  readonly externalWorkflowExecution: WorkflowExecution | undefined;
}

export interface MarkerRecord {
  readonly eventId: number;
  readonly markerName: string;
  readonly details: string | undefined;
}

export type ChildStatus =
  | 'initiated'
  | 'started'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'terminated'
  | 'timedOut'
  | 'startFailed';

export interface ChildState {
  readonly workflowId: string;
  readonly workflowType: WorkflowType | undefined;
  readonly runId: string | undefined;
  readonly status: ChildStatus;
  readonly control: string | undefined;
  readonly input: string | undefined;
  readonly initiatedEventId: number;
  readonly result: string | undefined;
  readonly reason: string | undefined;
  readonly details: string | undefined;
  readonly timeoutType: string | undefined;
  readonly cause: string | undefined;
}

export type LambdaStatus =
  | 'scheduled'
  | 'started'
  | 'completed'
  | 'failed'
  | 'timedOut'
  | 'scheduleFailed'
  | 'startFailed';

export interface LambdaState {
  readonly id: string;
  readonly name: string | undefined;
  readonly status: LambdaStatus;
  readonly input: string | undefined;
  readonly control: string | undefined;
  readonly scheduledEventId: number;
  readonly result: string | undefined;
  readonly reason: string | undefined;
  readonly details: string | undefined;
  readonly timeoutType: string | undefined;
  readonly cause: string | undefined;
}

/** A SignalExternalWorkflowExecution or RequestCancelExternalWorkflowExecution decision's fate. */
export interface ExternalRequest {
  readonly kind: 'signal' | 'cancel';
  readonly initiatedEventId: number;
  readonly workflowId: string;
  readonly runId: string | undefined;
  readonly signalName: string | undefined;
  readonly control: string | undefined;
  readonly status: 'initiated' | 'delivered' | 'failed';
  readonly cause: string | undefined;
}

/** A decision the service rejected: a `*Failed` event recorded for it. */
export interface DecisionFailure {
  readonly eventId: number;
  readonly eventType: string;
  readonly cause: string | undefined;
}

/** Everything a decider needs to know, replayed from the whole history of one decision task. */
export interface WorkflowState {
  readonly workflowExecution: WorkflowExecution;
  readonly workflowType: WorkflowType;
  readonly taskToken: string;
  /** WorkflowExecutionStarted's fields. */
  readonly input: string | undefined;
  readonly taskList: TaskList | undefined;
  readonly tagList: readonly string[];
  readonly parentWorkflowExecution: WorkflowExecution | undefined;
  readonly continuedExecutionRunId: string | undefined;
  /** Every event, oldest first (all pages). */
  readonly events: readonly HistoryEvent[];
  /** Events after the previous decision task's DecisionTaskStarted: what is new to this decider. */
  readonly newEvents: readonly HistoryEvent[];
  readonly previousStartedEventId: number;
  readonly startedEventId: number;
  readonly activities: ReadonlyMap<string, ActivityState>;
  readonly timers: ReadonlyMap<string, TimerState>;
  readonly signals: readonly SignalRecord[];
  readonly markers: readonly MarkerRecord[];
  /** Child executions by workflowId. */
  readonly children: ReadonlyMap<string, ChildState>;
  /** Lambda tasks by id. */
  readonly lambdaFunctions: ReadonlyMap<string, LambdaState>;
  readonly externalRequests: readonly ExternalRequest[];
  readonly decisionFailures: readonly DecisionFailure[];
  /** A WorkflowExecutionCancelRequested was recorded. */
  readonly cancelRequested: boolean;
  readonly cancelRequestCause: string | undefined;
  /**
   * The latest executionContext a decision task's answer gave (one without it keeps the previous), as
   * DescribeWorkflowExecution's latestExecutionContext.
   */
  readonly executionContext: string | undefined;
}

export const isOpenActivity = (a: ActivityState) =>
  a.status === 'scheduled' || a.status === 'started';

export const isOpenTimer = (t: TimerState) => t.status === 'started';

export const isOpenChild = (c: ChildState) => c.status === 'initiated' || c.status === 'started';

export const isOpenLambda = (l: LambdaState) => l.status === 'scheduled' || l.status === 'started';
