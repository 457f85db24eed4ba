import type { HistoryEvent, WorkflowExecution, WorkflowType } from '@aws-sdk/client-swf';
import {
  applyActivity,
  applyChild,
  applyExternal,
  applyLambda,
  applyTimer,
} from './replay-parts.js';
import type {
  ActivityState,
  ChildState,
  DecisionFailure,
  ExternalRequest,
  LambdaState,
  MarkerRecord,
  SignalRecord,
  TimerState,
  WorkflowState,
} from './state.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What a decision task carries: its token, identity and every event (all pages joined). */
export interface DecisionTaskInput {
  readonly taskToken: string;
  readonly events: readonly HistoryEvent[];
  readonly workflowExecution?: WorkflowExecution | undefined;
  readonly workflowType?: WorkflowType | undefined;
  readonly previousStartedEventId?: number | undefined;
  readonly startedEventId?: number | undefined;
}

interface Builder {
  state: Mutable<Omit<WorkflowState, 'activities' | 'timers' | 'children' | 'lambdaFunctions'>>;
  activities: Map<string, Mutable<ActivityState>>;
  activityByScheduled: Map<number, Mutable<ActivityState>>;
  timers: Map<string, Mutable<TimerState>>;
  children: Map<string, Mutable<ChildState>>;
  childByInitiated: Map<number, Mutable<ChildState>>;
  lambdas: Map<string, Mutable<LambdaState>>;
  lambdaByScheduled: Map<number, Mutable<LambdaState>>;
  external: Map<number, Mutable<ExternalRequest>>;
  signals: SignalRecord[];
  markers: MarkerRecord[];
  failures: DecisionFailure[];
}

/**
 * Replays a decision task's history into a typed `WorkflowState`. Pure: the same events always give
 * the same state, so a decider `(state) => decisions` is testable from a list of events.
 */
export function workflowState(task: DecisionTaskInput): WorkflowState {
  const b = newBuilder(task);
  for (const event of task.events) applyEvent(b, event);
  const previous = b.state.previousStartedEventId;
  return {
    ...b.state,
    newEvents: task.events.filter((e) => (e.eventId ?? 0) > previous),
    activities: b.activities,
    timers: b.timers,
    children: b.children,
    lambdaFunctions: b.lambdas,
    externalRequests: [...b.external.values()],
    signals: b.signals,
    markers: b.markers,
    decisionFailures: b.failures,
  };
}

function newBuilder(task: DecisionTaskInput): Builder {
  const noExecution: WorkflowExecution = { workflowId: '', runId: '' };
  const noType: WorkflowType = { name: '', version: '' };
  return {
    state: {
      workflowExecution: task.workflowExecution ?? noExecution,
      workflowType: task.workflowType ?? noType,
      taskToken: task.taskToken,
      input: undefined,
      taskList: undefined,
      tagList: [],
      parentWorkflowExecution: undefined,
      continuedExecutionRunId: undefined,
      events: task.events,
      newEvents: [],
      previousStartedEventId: task.previousStartedEventId ?? 0,
      startedEventId: task.startedEventId ?? 0,
      signals: [],
      markers: [],
      externalRequests: [],
      decisionFailures: [],
      cancelRequested: false,
      cancelRequestCause: undefined,
      executionContext: undefined,
    },
    activities: new Map(),
    activityByScheduled: new Map(),
    timers: new Map(),
    children: new Map(),
    childByInitiated: new Map(),
    lambdas: new Map(),
    lambdaByScheduled: new Map(),
    external: new Map(),
    signals: [],
    markers: [],
    failures: [],
  };
}

function applyEvent(b: Builder, e: HistoryEvent): void {
  const type = e.eventType ?? '';
  if (type.startsWith('ActivityTask') || type.endsWith('ActivityTaskFailed')) applyActivity(b, e);
  else if (type.includes('Timer')) applyTimer(b, e);
  else if (type.includes('ChildWorkflowExecution')) applyChild(b, e);
  else if (type.includes('LambdaFunction')) applyLambda(b, e);
  else if (type.includes('ExternalWorkflowExecution')) applyExternal(b, e);
  else applyWorkflow(b, e);
}

const id = (e: HistoryEvent) => e.eventId ?? 0;

function applyWorkflow(b: Builder, e: HistoryEvent): void {
  const s = b.state;
  switch (e.eventType) {
    case 'WorkflowExecutionStarted': {
      const a = e.workflowExecutionStartedEventAttributes;
      s.input = a?.input;
      s.taskList = a?.taskList;
      s.tagList = a?.tagList ?? [];
      s.parentWorkflowExecution = a?.parentWorkflowExecution;
      s.continuedExecutionRunId = a?.continuedExecutionRunId;
      if (s.workflowType.name === '' && a?.workflowType) s.workflowType = a.workflowType;
      return;
    }
    case 'WorkflowExecutionSignaled': {
      const a = e.workflowExecutionSignaledEventAttributes;
      b.signals.push({
        eventId: id(e),
        signalName: a?.signalName ?? '',
        input: a?.input,
        externalWorkflowExecution: a?.externalWorkflowExecution,
      });
      return;
    }
    case 'WorkflowExecutionCancelRequested':
      s.cancelRequested = true;
      s.cancelRequestCause = e.workflowExecutionCancelRequestedEventAttributes?.cause;
      return;
    case 'MarkerRecorded': {
      const a = e.markerRecordedEventAttributes;
      b.markers.push({ eventId: id(e), markerName: a?.markerName ?? '', details: a?.details });
      return;
    }
    case 'DecisionTaskCompleted':
      // As DescribeWorkflowExecution's latestExecutionContext: an answer without one keeps it.
      s.executionContext =
        e.decisionTaskCompletedEventAttributes?.executionContext ?? s.executionContext;
      return;
    default:
      if (WORKFLOW_DECISION_FAILURES.has(e.eventType ?? '')) recordDecisionFailure(b, e);
  }
}

/** The failures of decisions about the execution itself (the others are with what they concern). */
const WORKFLOW_DECISION_FAILURES = new Set([
  'CompleteWorkflowExecutionFailed',
  'FailWorkflowExecutionFailed',
  'CancelWorkflowExecutionFailed',
  'ContinueAsNewWorkflowExecutionFailed',
  'RecordMarkerFailed',
]);

/** Close-decision and marker failures (`CompleteWorkflowExecutionFailed`, `RecordMarkerFailed`, …). */
function recordDecisionFailure(b: Builder, e: HistoryEvent): void {
  const type = e.eventType ?? '';
  const key = `${type.charAt(0).toLowerCase()}${type.slice(1)}EventAttributes`;
  const attributes: unknown = Reflect.get(e, key);
  const cause =
    typeof attributes === 'object' && attributes !== null
      ? Reflect.get(attributes, 'cause')
      : undefined;
  b.failures.push({
    eventId: id(e),
    eventType: type,
    cause: typeof cause === 'string' ? cause : undefined,
  });
}

export type { Builder, Mutable };
