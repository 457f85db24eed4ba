/**
 * Amazon SWF's CloudWatch metric set (docs/operations.md defines each), derived from the events a
 * commit appends to a run's history. Pure: the edges publish the samples (EMF on AWS, Prometheus'
 * text format locally).
 */
import { assertNever } from './assert-never.js';
import type { ActivityState, ExecutionState } from './execution-state.js';
import type { EventOf, HistoryEvent, TypeRef } from './history-event.js';

export type MetricUnit = 'Milliseconds' | 'Count';

/** Each metric of SWF's set this service emits, with its CloudWatch unit. */
export const SWF_METRICS = {
  DecisionTaskScheduleToStartTime: 'Milliseconds',
  DecisionTaskStartToCloseTime: 'Milliseconds',
  DecisionTasksCompleted: 'Count',
  StartedDecisionTasksTimedOutOnClose: 'Count',
  WorkflowStartToCloseTime: 'Milliseconds',
  WorkflowsCompleted: 'Count',
  WorkflowsFailed: 'Count',
  WorkflowsTimedOut: 'Count',
  WorkflowsCanceled: 'Count',
  WorkflowsTerminated: 'Count',
  WorkflowsContinuedAsNew: 'Count',
  ActivityTaskScheduleToStartTime: 'Milliseconds',
  ActivityTaskStartToCloseTime: 'Milliseconds',
  ActivityTaskScheduleToCloseTime: 'Milliseconds',
  ActivityTasksCompleted: 'Count',
  ActivityTasksFailed: 'Count',
  ActivityTasksCanceled: 'Count',
  ScheduledActivityTasksTimedOutOnStart: 'Count',
  ScheduledActivityTasksTimedOutOnClose: 'Count',
  StartedActivityTasksTimedOutOnClose: 'Count',
  StartedActivityTasksTimedOutOnHeartbeat: 'Count',
  PendingTasks: 'Count',
  ThrottledEvents: 'Count',
} as const satisfies Record<string, MetricUnit>;

export type SwfMetricName = keyof typeof SWF_METRICS;

const WORKFLOW = ['Domain', 'WorkflowTypeName', 'WorkflowTypeVersion'] as const;
const ACTIVITY = ['Domain', 'ActivityTypeName', 'ActivityTypeVersion'] as const;

/** SWF's dimensions of each metric, in SWF's spelling. */
export function metricDimensions(name: SwfMetricName): readonly string[] {
  if (name === 'WorkflowsTerminated') return ['Cause', ...WORKFLOW];
  if (name === 'PendingTasks') return ['Domain', 'TaskListName', 'TaskListClassification'];
  if (name === 'ThrottledEvents') return ['APIName', 'ThrottlingScope'];
  return name.includes('Activity') ? ACTIVITY : WORKFLOW;
}

/** One data point: a metric, its dimensions (SWF's names) and its value (ms for times). */
export interface MetricSample {
  readonly name: SwfMetricName;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly value: number;
}

/** What SWF's ThrottledEvents' ThrottlingScope says: the account's rate, or one workflow's. */
export type ThrottlingScope = 'Account' | 'Workflow';

/** A request answered ThrottlingException: SWF's ThrottledEvents, by API and scope. */
export const throttledEvent = (apiName: string, scope: ThrottlingScope): MetricSample => ({
  name: 'ThrottledEvents',
  dimensions: { APIName: apiName, ThrottlingScope: scope },
  value: 1,
});

/**
 * SWF's PendingTasks, tallied over open runs one at a time (a pass over every open run keeps only
 * the counts): per task list, the tasks scheduled and not yet started, decision tasks classified
 * `D` and activity tasks `A`. Lists with none are left out.
 */
export class PendingTaskTally {
  private readonly counts = new Map<string, { dimensions: Dimensions; value: number }>();

  add(state: ExecutionState): void {
    if (state.status !== 'OPEN') return;
    if (state.decisionTask.status === 'scheduled')
      this.count(state.domain, state.decisionTask.taskList, 'D');
    for (const activity of Object.values(state.activities))
      if (activity.startedEventId === undefined) this.count(state.domain, activity.taskList, 'A');
  }

  samples(): MetricSample[] {
    return [...this.counts.values()].map(({ dimensions, value }) =>
      sample('PendingTasks', dimensions, value),
    );
  }

  private count(domain: string, taskList: string, classification: 'D' | 'A'): void {
    const key = JSON.stringify([domain, taskList, classification]);
    const known = this.counts.get(key);
    if (known !== undefined) known.value++;
    else {
      const dimensions = {
        Domain: domain,
        TaskListName: taskList,
        TaskListClassification: classification,
      };
      this.counts.set(key, { dimensions, value: 1 });
    }
  }
}

/**
 * The metrics of one commit: `events` are what it appended to the run whose state was `before`
 * (undefined for a new run) and is `after`. Times are measured between the events' timestamps.
 */
export function commitMetrics(
  before: ExecutionState | undefined,
  after: ExecutionState,
  events: readonly HistoryEvent[],
): MetricSample[] {
  const lookup = new CommitLookup(before, events);
  const workflow = workflowDimensions(after.domain, after.workflowType);
  const samples: MetricSample[] = [];
  for (const event of events) samples.push(...eventMetrics(event, lookup, after, workflow));
  return samples;
}

type Dimensions = Readonly<Record<string, string>>;

const workflowDimensions = (domain: string, type: TypeRef): Dimensions => ({
  Domain: domain,
  WorkflowTypeName: type.name,
  WorkflowTypeVersion: type.version,
});

const activityDimensions = (domain: string, type: TypeRef): Dimensions => ({
  Domain: domain,
  ActivityTypeName: type.name,
  ActivityTypeVersion: type.version,
});

const sample = (name: SwfMetricName, dimensions: Dimensions, value = 1): MetricSample => ({
  name,
  dimensions,
  value,
});

/** Milliseconds between two event timestamps (epoch seconds with millisecond fractions). */
const elapsedMs = (from: number, to: number) => Math.max(0, Math.round((to - from) * 1000));

function eventMetrics(
  event: HistoryEvent,
  lookup: CommitLookup,
  after: ExecutionState,
  workflow: Dimensions,
): MetricSample[] {
  switch (event.eventType) {
    case 'DecisionTaskStarted':
    case 'DecisionTaskCompleted':
    case 'DecisionTaskTimedOut':
      return decisionMetrics(event, lookup, workflow);
    case 'ActivityTaskStarted':
    case 'ActivityTaskCompleted':
    case 'ActivityTaskFailed':
    case 'ActivityTaskCanceled':
    case 'ActivityTaskTimedOut':
      return activityMetrics(event, lookup, after.domain);
    case 'WorkflowExecutionCompleted':
    case 'WorkflowExecutionFailed':
    case 'WorkflowExecutionTimedOut':
    case 'WorkflowExecutionCanceled':
    case 'WorkflowExecutionTerminated':
    case 'WorkflowExecutionContinuedAsNew':
      return closeMetrics(event, after, workflow);
    default:
      return [];
  }
}

function decisionMetrics(
  event: EventOf<'DecisionTaskStarted' | 'DecisionTaskCompleted' | 'DecisionTaskTimedOut'>,
  lookup: CommitLookup,
  workflow: Dimensions,
): MetricSample[] {
  switch (event.eventType) {
    case 'DecisionTaskStarted': {
      const scheduledAt = lookup.decisionScheduledAt(event.attributes.scheduledEventId);
      if (scheduledAt === undefined) return [];
      const ms = elapsedMs(scheduledAt, event.eventTimestamp);
      return [sample('DecisionTaskScheduleToStartTime', workflow, ms)];
    }
    case 'DecisionTaskCompleted':
    case 'DecisionTaskTimedOut': {
      const completed = event.eventType === 'DecisionTaskCompleted';
      // A schedule-to-start timeout closes a task that never started: SWF counts only the other.
      if (!completed && event.attributes.timeoutType !== 'START_TO_CLOSE') return [];
      const samples = [
        sample(
          completed ? 'DecisionTasksCompleted' : 'StartedDecisionTasksTimedOutOnClose',
          workflow,
        ),
      ];
      const startedAt = lookup.decisionStartedAt(event.attributes.startedEventId);
      if (startedAt !== undefined) {
        const ms = elapsedMs(startedAt, event.eventTimestamp);
        samples.push(sample('DecisionTaskStartToCloseTime', workflow, ms));
      }
      return samples;
    }
    default:
      return assertNever(event);
  }
}

type ActivityEvent = EventOf<
  | 'ActivityTaskStarted'
  | 'ActivityTaskCompleted'
  | 'ActivityTaskFailed'
  | 'ActivityTaskCanceled'
  | 'ActivityTaskTimedOut'
>;

function activityMetrics(
  event: ActivityEvent,
  lookup: CommitLookup,
  domain: string,
): MetricSample[] {
  const task = lookup.activity(event.attributes.scheduledEventId);
  if (task === undefined) return [];
  const dimensions = activityDimensions(domain, task.type);
  if (event.eventType === 'ActivityTaskStarted') {
    const ms = elapsedMs(task.scheduledAt, event.eventTimestamp);
    return [sample('ActivityTaskScheduleToStartTime', dimensions, ms)];
  }
  const samples = [
    sample(activityOutcome(event), dimensions),
    sample(
      'ActivityTaskScheduleToCloseTime',
      dimensions,
      elapsedMs(task.scheduledAt, event.eventTimestamp),
    ),
  ];
  const startedAt = lookup.activityStartedAt(event.attributes.startedEventId);
  if (startedAt !== undefined) {
    const ms = elapsedMs(startedAt, event.eventTimestamp);
    samples.push(sample('ActivityTaskStartToCloseTime', dimensions, ms));
  }
  return samples;
}

function activityOutcome(event: Exclude<ActivityEvent, { eventType: 'ActivityTaskStarted' }>) {
  switch (event.eventType) {
    case 'ActivityTaskCompleted':
      return 'ActivityTasksCompleted';
    case 'ActivityTaskFailed':
      return 'ActivityTasksFailed';
    case 'ActivityTaskCanceled':
      return 'ActivityTasksCanceled';
    case 'ActivityTaskTimedOut':
      return activityTimeoutMetric(event.attributes.timeoutType);
    default:
      return assertNever(event);
  }
}

/** SWF counts an activity's timeouts by kind, each under its own metric. */
export function activityTimeoutMetric(timeoutType: string): SwfMetricName {
  switch (timeoutType) {
    case 'SCHEDULE_TO_START':
      return 'ScheduledActivityTasksTimedOutOnStart';
    case 'SCHEDULE_TO_CLOSE':
      return 'ScheduledActivityTasksTimedOutOnClose';
    case 'HEARTBEAT':
      return 'StartedActivityTasksTimedOutOnHeartbeat';
    default:
      return 'StartedActivityTasksTimedOutOnClose';
  }
}

type CloseEvent = EventOf<
  | 'WorkflowExecutionCompleted'
  | 'WorkflowExecutionFailed'
  | 'WorkflowExecutionTimedOut'
  | 'WorkflowExecutionCanceled'
  | 'WorkflowExecutionTerminated'
  | 'WorkflowExecutionContinuedAsNew'
>;

function closeMetrics(
  event: CloseEvent,
  after: ExecutionState,
  workflow: Dimensions,
): MetricSample[] {
  const duration = elapsedMs(after.startTimestamp, event.eventTimestamp);
  return [closeOutcome(event, workflow), sample('WorkflowStartToCloseTime', workflow, duration)];
}

function closeOutcome(event: CloseEvent, workflow: Dimensions): MetricSample {
  switch (event.eventType) {
    case 'WorkflowExecutionCompleted':
      return sample('WorkflowsCompleted', workflow);
    case 'WorkflowExecutionFailed':
      return sample('WorkflowsFailed', workflow);
    case 'WorkflowExecutionTimedOut':
      return sample('WorkflowsTimedOut', workflow);
    case 'WorkflowExecutionCanceled':
      return sample('WorkflowsCanceled', workflow);
    case 'WorkflowExecutionContinuedAsNew':
      return sample('WorkflowsContinuedAsNew', workflow);
    case 'WorkflowExecutionTerminated':
      // SWF adds the termination's cause; a TerminateWorkflowExecution call records none.
      return sample('WorkflowsTerminated', {
        Cause: event.attributes.cause ?? 'OPERATOR_INITIATED',
        ...workflow,
      });
    default:
      return assertNever(event);
  }
}

/**
 * Where a commit's events find the times and types they are measured from: the commit's own earlier
 * events (a task scheduled and started in one commit), else the run's state before the commit.
 */
class CommitLookup {
  private readonly own = new Map<number, HistoryEvent>();

  constructor(
    private readonly before: ExecutionState | undefined,
    events: readonly HistoryEvent[],
  ) {
    for (const event of events) this.own.set(event.eventId, event);
  }

  decisionScheduledAt(scheduledEventId: number): number | undefined {
    const event = this.own.get(scheduledEventId);
    if (event?.eventType === 'DecisionTaskScheduled') return event.eventTimestamp;
    const task = this.before?.decisionTask;
    return task !== undefined &&
      task.status !== 'none' &&
      task.scheduledEventId === scheduledEventId
      ? task.scheduledAt
      : undefined;
  }

  decisionStartedAt(startedEventId: number): number | undefined {
    const event = this.own.get(startedEventId);
    if (event?.eventType === 'DecisionTaskStarted') return event.eventTimestamp;
    const task = this.before?.decisionTask;
    return task?.status === 'started' && task.startedEventId === startedEventId
      ? task.startedAt
      : undefined;
  }

  activity(scheduledEventId: number): { type: TypeRef; scheduledAt: number } | undefined {
    const event = this.own.get(scheduledEventId);
    if (event?.eventType === 'ActivityTaskScheduled')
      return { type: event.attributes.activityType, scheduledAt: event.eventTimestamp };
    const state = this.activityState(scheduledEventId);
    return state === undefined
      ? undefined
      : { type: state.activityType, scheduledAt: state.scheduledAt };
  }

  /** When a closed task started; none for one that never did (startedEventId 0). */
  activityStartedAt(startedEventId: number): number | undefined {
    if (startedEventId <= 0) return undefined;
    const event = this.own.get(startedEventId);
    if (event?.eventType === 'ActivityTaskStarted') return event.eventTimestamp;
    return Object.values(this.before?.activities ?? {}).find(
      (a) => a.startedEventId === startedEventId,
    )?.startedAt;
  }

  private activityState(scheduledEventId: number): ActivityState | undefined {
    return Object.values(this.before?.activities ?? {}).find(
      (a) => a.scheduledEventId === scheduledEventId,
    );
  }
}
