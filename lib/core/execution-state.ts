/**
 * The state of one workflow execution: what replaying its history yields (plus the latest heartbeat of
 * each started activity, which SWF keeps outside the history). Everything open is kept by id; closed
 * things leave the state, so its size follows what is in flight, not the length of the history.
 */
import type { EventAttributes, ExecutionRef, HistoryEvent, TypeRef } from './history-event.js';
import type { TaskList } from './registry.js';

export const CloseStatus = {
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  CANCELED: 'CANCELED',
  TERMINATED: 'TERMINATED',
  CONTINUED_AS_NEW: 'CONTINUED_AS_NEW',
  TIMED_OUT: 'TIMED_OUT',
} as const;
export type CloseStatus = (typeof CloseStatus)[keyof typeof CloseStatus];

export interface ExecutionConfig {
  readonly taskList: TaskList;
  readonly taskStartToCloseTimeout: string;
  readonly executionStartToCloseTimeout: string;
  readonly childPolicy: string;
  readonly taskPriority: string;
  readonly lambdaRole?: string;
}

/** Where a queued task sits, so that it can be withdrawn when the execution moves on. */
export interface QueuedTask {
  readonly taskList: string;
  readonly taskPriority: string;
  /** Epoch seconds at scheduling: tasks of equal priority are served oldest first. */
  readonly scheduledAt: number;
}

export type DecisionTaskState =
  | { readonly status: 'none' }
  | ({
      readonly status: 'scheduled';
      readonly scheduledEventId: number;
      readonly startToCloseTimeout: string;
      readonly scheduleToStartTimeout?: string;
    } & QueuedTask)
  | ({
      readonly status: 'started';
      readonly scheduledEventId: number;
      readonly startedEventId: number;
      readonly startedAt: number;
      readonly startToCloseTimeout: string;
    } & QueuedTask);

export interface ActivityTimeouts {
  readonly scheduleToStart: string;
  readonly scheduleToClose: string;
  readonly startToClose: string;
  readonly heartbeat: string;
}

export interface ActivityState extends QueuedTask {
  readonly activityId: string;
  readonly activityType: TypeRef;
  readonly scheduledEventId: number;
  readonly timeouts: ActivityTimeouts;
  readonly startedEventId?: number;
  readonly startedAt?: number;
  readonly identity?: string;
  /** Id of the latest ActivityTaskCancelRequested for this activity, if any. */
  readonly latestCancelRequestedEventId?: number;
  /**
   * Where a fire found the HEARTBEAT deadline pushed by a later heartbeat (epoch seconds): the deadline
   * stands there now (heartbeats are checked lazily: docs/architecture.md).
   */
  readonly heartbeatDueAt?: number;
}

export interface TimerState {
  readonly timerId: string;
  readonly startedEventId: number;
  readonly startToFireTimeout: string;
  /** Epoch seconds. */
  readonly fireAt: number;
}

export interface ChildState {
  readonly workflowId: string;
  readonly workflowType: TypeRef;
  readonly initiatedEventId: number;
  readonly runId?: string;
  readonly startedEventId?: number;
  /** What to start, until the child has started (the outbox starts it). */
  readonly initiated?: EventAttributes['StartChildWorkflowExecutionInitiated'];
}

export interface ExternalRequestState {
  readonly kind: 'signal' | 'cancel';
  readonly workflowId: string;
  readonly runId?: string;
  readonly initiatedEventId: number;
  readonly control?: string;
  readonly decisionTaskCompletedEventId: number;
  readonly signal?: { readonly signalName: string; readonly input?: string };
}

export interface LambdaState {
  readonly id: string;
  readonly name: string;
  readonly scheduledEventId: number;
  readonly startToCloseTimeout: string;
  readonly input?: string;
  readonly startedEventId?: number;
  readonly startedAt?: number;
}

export interface ExecutionState {
  readonly domain: string;
  readonly execution: ExecutionRef;
  readonly workflowType: TypeRef;
  readonly status: 'OPEN' | 'CLOSED';
  readonly closeStatus?: CloseStatus;
  readonly startTimestamp: number;
  readonly closeTimestamp?: number;
  readonly config: ExecutionConfig;
  readonly tagList: readonly string[];
  readonly parent?: { readonly execution: ExecutionRef; readonly initiatedEventId: number };
  readonly cancelRequested: boolean;
  /** Id the next appended event gets. */
  readonly nextEventId: number;
  /** Timestamp of the latest event (epoch seconds): a later event is never stamped earlier. */
  readonly latestEventTimestamp?: number;
  /**
   * The run's one armed deadline fire (see earliestDeadline): due at or before its earliest deadline.
   * A fire for an earlier time than this is a duplicate or was overtaken.
   */
  readonly alarm?: { readonly key: string; readonly at: number };
  readonly decisionTask: DecisionTaskState;
  /** A decision task is owed: an event the decider has not seen arrived while none could be scheduled. */
  readonly decisionTaskOwed: boolean;
  /** startedEventId of the last completed decision task (PollForDecisionTask's previousStartedEventId). */
  readonly previousStartedEventId: number;
  /** The list decision tasks go to: the execution's, or the decider's override. */
  readonly decisionTaskList: TaskList;
  /** Set while an override with taskListScheduleToStartTimeout is temporary. */
  readonly decisionTaskListTimeout?: string;
  readonly activities: Readonly<Record<string, ActivityState>>;
  readonly timers: Readonly<Record<string, TimerState>>;
  /** Open children, by the id of their StartChildWorkflowExecutionInitiated event. */
  readonly children: Readonly<Record<string, ChildState>>;
  /** Signals and cancel requests to other executions not yet answered, by initiated event id. */
  readonly externalRequests: Readonly<Record<string, ExternalRequestState>>;
  readonly lambdaFunctions: Readonly<Record<string, LambdaState>>;
  readonly latestActivityTaskTimestamp?: number;
  readonly latestExecutionContext?: string;
  /** The event that closed the run: its parent is told the outcome from it. */
  readonly closeEvent?: HistoryEvent;
  /** Set on a run closed by continue-as-new. */
  readonly newExecutionRunId?: string;
}

/**
 * What DescribeWorkflowExecution counts as open. A closed run has nothing open: its children stay in
 * the state only for the outbox to apply the child policy to (an abandoned child runs on, but no
 * longer as this run's).
 */
export function openCounts(state: ExecutionState) {
  if (!isOpen(state))
    return {
      openActivityTasks: 0,
      openDecisionTasks: 0,
      openTimers: 0,
      openChildWorkflowExecutions: 0,
      openLambdaFunctions: 0,
    };
  return {
    openActivityTasks: Object.keys(state.activities).length,
    openDecisionTasks: state.decisionTask.status === 'none' ? 0 : 1,
    openTimers: Object.keys(state.timers).length,
    openChildWorkflowExecutions: Object.keys(state.children).length,
    openLambdaFunctions: Object.keys(state.lambdaFunctions).length,
  };
}

export const isOpen = (state: ExecutionState) => state.status === 'OPEN';

/** Whether the run's started decision task is the one started by event `startedEventId`. */
export function isStartedDecisionTask(state: ExecutionState, startedEventId: number): boolean {
  const task = state.decisionTask;
  return task.status === 'started' && task.startedEventId === startedEventId;
}

export function activityByScheduledId(
  state: ExecutionState,
  scheduledEventId: number,
): ActivityState | undefined {
  return Object.values(state.activities).find((a) => a.scheduledEventId === scheduledEventId);
}
