/**
 * What an execution's history says, for the summary and the timeline: each activity, timer, child,
 * Lambda task and decision task from scheduled to closed with its outcome (retries as the same
 * lane's later attempts), the instants (signals, markers, cancel requests), the children and the
 * runs before and after. Pure: events in, model out, one pass.
 */
import { attributesOf, type ExecutionRef, type HistoryEvent } from './swf.js';

export type Outcome =
  | 'completed'
  | 'failed'
  | 'timedOut'
  | 'canceled'
  | 'terminated'
  | 'startFailed'
  | 'open'
  | 'abandoned';
export type SpanKind = 'activity' | 'timer' | 'child' | 'lambda' | 'decision';

export interface Span {
  readonly kind: SpanKind;
  readonly lane: string;
  readonly label: string;
  /** 1 for the first of its lane, 2 for the retry after it, and so on. */
  readonly attempt: number;
  /** Milliseconds since the epoch. */
  readonly scheduledAt: number;
  startedAt?: number;
  closedAt?: number;
  outcome: Outcome;
  /** The outcome in words: `timed out (HEARTBEAT)`, `fired`, `start failed: …`. */
  outcomeText: string;
  cancelRequestedAt?: number;
  readonly firstEventId: number;
  lastEventId: number;
  /** A child's execution, once started. */
  child?: ExecutionRef;
}

export interface Lane {
  readonly key: string;
  readonly kind: SpanKind;
  readonly label: string;
  readonly spans: Span[];
}

export interface Instant {
  readonly kind: 'signal' | 'marker' | 'cancelRequest' | 'other';
  readonly at: number;
  readonly label: string;
  readonly eventId: number;
}

export interface HistoryModel {
  readonly startedAt: number | undefined;
  readonly closedAt: number | undefined;
  /** The last event read (the history may still be loading). */
  readonly lastAt: number | undefined;
  readonly lanes: readonly Lane[];
  readonly instants: readonly Instant[];
  /** The run this one continued (continue-as-new), and the run that continued it. */
  readonly previousRunId: string | undefined;
  readonly nextRunId: string | undefined;
  readonly input: string | undefined;
  /** The event that closed the run, if it is closed. */
  readonly closeEvent: HistoryEvent | undefined;
}

const CLOSE_EVENTS: Record<string, Outcome> = {
  WorkflowExecutionCompleted: 'completed',
  WorkflowExecutionFailed: 'failed',
  WorkflowExecutionTimedOut: 'timedOut',
  WorkflowExecutionCanceled: 'canceled',
  WorkflowExecutionTerminated: 'terminated',
  WorkflowExecutionContinuedAsNew: 'completed',
};

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' ? value : -1);
const typeName = (value: unknown): string => {
  const type = value as { name?: unknown; version?: unknown } | undefined;
  return type === undefined ? '' : `${str(type.name)} ${str(type.version)}`.trim();
};

class Builder {
  readonly lanes = new Map<string, Lane>();
  /** Open spans by the id of the event that scheduled, started or initiated them. */
  readonly bySource = new Map<number, Span>();
  /** Open spans by their SWF id (activityId, timerId, child workflowId), for cancel requests. */
  readonly openById = new Map<string, Span>();
  readonly instants: Instant[] = [];
  startedAt: number | undefined;
  closedAt: number | undefined;
  lastAt: number | undefined;
  previousRunId: string | undefined;
  nextRunId: string | undefined;
  input: string | undefined;
  closeEvent: HistoryEvent | undefined;

  open(kind: SpanKind, id: string, label: string, event: HistoryEvent, at: number): Span {
    const key = `${kind}:${id}`;
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { key, kind, label, spans: [] };
      this.lanes.set(key, lane);
    }
    const span: Span = {
      kind,
      lane: key,
      label,
      attempt: lane.spans.length + 1,
      scheduledAt: at,
      outcome: 'open',
      outcomeText: 'open',
      firstEventId: event.eventId,
      lastEventId: event.eventId,
    };
    lane.spans.push(span);
    this.bySource.set(event.eventId, span);
    if (kind !== 'decision') this.openById.set(key, span);
    return span;
  }

  close(span: Span | undefined, event: HistoryEvent, at: number, outcome: Outcome, text: string) {
    if (span === undefined) return;
    span.closedAt = at;
    span.outcome = outcome;
    span.outcomeText = text;
    span.lastEventId = event.eventId;
    if (this.openById.get(span.lane) === span) this.openById.delete(span.lane);
  }

  started(span: Span | undefined, event: HistoryEvent, at: number) {
    if (span === undefined) return;
    span.startedAt = at;
    span.lastEventId = event.eventId;
  }
}

type Handler = (b: Builder, event: HistoryEvent, a: Record<string, unknown>, at: number) => void;

/** The span an event closes: found by its scheduled (or initiated, or started) event's id. */
const source = (b: Builder, a: Record<string, unknown>) =>
  b.bySource.get(num(a.scheduledEventId)) ??
  b.bySource.get(num(a.initiatedEventId)) ??
  b.bySource.get(num(a.startedEventId));

const closing =
  (outcome: Outcome, text: (a: Record<string, unknown>) => string): Handler =>
  (b, event, a, at) =>
    b.close(source(b, a), event, at, outcome, text(a));

const starting: Handler = (b, event, a, at) => b.started(source(b, a), event, at);

const timedOut = (a: Record<string, unknown>) => `timed out (${str(a.timeoutType) || 'timeout'})`;
const reason = (verb: string) => (a: Record<string, unknown>) =>
  str(a.reason) === '' ? verb : `${verb}: ${str(a.reason)}`;
const cause = (a: Record<string, unknown>) => `start failed: ${str(a.cause)}`;

/** A failure to schedule: a span with no length, failed at once. */
const scheduleFailed =
  (
    kind: SpanKind,
    id: (a: Record<string, unknown>) => string,
    label: (a: Record<string, unknown>) => string,
  ): Handler =>
  (b, event, a, at) =>
    b.close(b.open(kind, id(a), label(a), event, at), event, at, 'startFailed', cause(a));

const activityLabel = (a: Record<string, unknown>) =>
  `${typeName(a.activityType)} · ${str(a.activityId)}`;

const HANDLERS: Record<string, Handler> = {
  ActivityTaskScheduled: (b, event, a, at) =>
    void b.open('activity', str(a.activityId), activityLabel(a), event, at),
  ActivityTaskStarted: starting,
  ActivityTaskCompleted: closing('completed', () => 'completed'),
  ActivityTaskFailed: closing('failed', reason('failed')),
  ActivityTaskTimedOut: closing('timedOut', timedOut),
  ActivityTaskCanceled: closing('canceled', () => 'canceled'),
  ActivityTaskCancelRequested: (b, _e, a, at) => {
    const span = b.openById.get(`activity:${str(a.activityId)}`);
    if (span !== undefined) span.cancelRequestedAt = at;
  },
  ScheduleActivityTaskFailed: scheduleFailed('activity', (a) => str(a.activityId), activityLabel),
  TimerStarted: (b, event, a, at) => {
    const span = b.open(
      'timer',
      str(a.timerId),
      `timer · ${str(a.timerId)} (${str(a.startToFireTimeout)} s)`,
      event,
      at,
    );
    span.startedAt = at;
  },
  TimerFired: closing('completed', () => 'fired'),
  TimerCanceled: closing('canceled', () => 'canceled'),
  StartTimerFailed: scheduleFailed(
    'timer',
    (a) => str(a.timerId),
    (a) => `timer · ${str(a.timerId)}`,
  ),
  StartChildWorkflowExecutionInitiated: (b, event, a, at) =>
    void b.open(
      'child',
      str(a.workflowId),
      `child · ${typeName(a.workflowType)} · ${str(a.workflowId)}`,
      event,
      at,
    ),
  ChildWorkflowExecutionStarted: (b, event, a, at) => {
    const span = source(b, a);
    b.started(span, event, at);
    if (span !== undefined) span.child = a.workflowExecution as ExecutionRef;
  },
  ChildWorkflowExecutionCompleted: closing('completed', () => 'completed'),
  ChildWorkflowExecutionFailed: closing('failed', reason('failed')),
  ChildWorkflowExecutionTimedOut: closing('timedOut', timedOut),
  ChildWorkflowExecutionCanceled: closing('canceled', () => 'canceled'),
  ChildWorkflowExecutionTerminated: closing('terminated', () => 'terminated'),
  StartChildWorkflowExecutionFailed: closing('startFailed', cause),
  LambdaFunctionScheduled: (b, event, a, at) =>
    void b.open('lambda', str(a.id), `λ ${str(a.name)} · ${str(a.id)}`, event, at),
  LambdaFunctionStarted: starting,
  LambdaFunctionCompleted: closing('completed', () => 'completed'),
  LambdaFunctionFailed: closing('failed', reason('failed')),
  LambdaFunctionTimedOut: closing('timedOut', timedOut),
  StartLambdaFunctionFailed: closing('startFailed', cause),
  ScheduleLambdaFunctionFailed: scheduleFailed(
    'lambda',
    (a) => str(a.id),
    (a) => `λ ${str(a.name)} · ${str(a.id)}`,
  ),
  DecisionTaskScheduled: (b, event, _a, at) =>
    void b.open('decision', 'tasks', 'Decision tasks', event, at),
  DecisionTaskStarted: starting,
  DecisionTaskCompleted: closing('completed', () => 'completed'),
  DecisionTaskTimedOut: closing('timedOut', timedOut),
  WorkflowExecutionSignaled: (b, event, a, at) =>
    void b.instants.push({
      kind: 'signal',
      at,
      label: `signal ${str(a.signalName)}`,
      eventId: event.eventId,
    }),
  MarkerRecorded: (b, event, a, at) =>
    void b.instants.push({
      kind: 'marker',
      at,
      label: `marker ${str(a.markerName)}`,
      eventId: event.eventId,
    }),
  WorkflowExecutionCancelRequested: (b, event, _a, at) =>
    void b.instants.push({
      kind: 'cancelRequest',
      at,
      label: 'cancel requested',
      eventId: event.eventId,
    }),
  WorkflowExecutionStarted: (b, _e, a, at) => {
    b.startedAt = at;
    b.input = typeof a.input === 'string' ? a.input : undefined;
    b.previousRunId = str(a.continuedExecutionRunId) || undefined;
  },
  WorkflowExecutionContinuedAsNew: (b, _e, a) => {
    b.nextRunId = str(a.newExecutionRunId) || undefined;
  },
};

/** The model of the events read so far (in order, from the first). */
export function historyModel(events: readonly HistoryEvent[]): HistoryModel {
  const b = new Builder();
  for (const event of events) {
    const at = event.eventTimestamp * 1000;
    b.lastAt = at;
    HANDLERS[event.eventType]?.(b, event, attributesOf(event), at);
    if (event.eventType in CLOSE_EVENTS) {
      b.closedAt = at;
      b.closeEvent = event;
    }
  }
  // What was still open when the run closed stays so: abandoned with it.
  if (b.closedAt !== undefined)
    for (const lane of b.lanes.values())
      for (const span of lane.spans)
        if (span.outcome === 'open') {
          span.outcome = 'abandoned';
          span.outcomeText = 'open when the run closed';
        }
  return {
    startedAt: b.startedAt,
    closedAt: b.closedAt,
    lastAt: b.lastAt,
    lanes: [...b.lanes.values()],
    instants: b.instants,
    previousRunId: b.previousRunId,
    nextRunId: b.nextRunId,
    input: b.input,
    closeEvent: b.closeEvent,
  };
}

/** The spans still open: the pending activities, timers, children, Lambda tasks and decision task. */
export function pendingSpans(model: HistoryModel): Span[] {
  return model.lanes.flatMap((lane) => lane.spans.filter((span) => span.outcome === 'open'));
}

/** The children this run started, each with its last attempt. */
export function childSpans(model: HistoryModel): Span[] {
  return model.lanes.filter((lane) => lane.kind === 'child').flatMap((lane) => lane.spans);
}
