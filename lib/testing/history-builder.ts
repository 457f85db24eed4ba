/**
 * Histories written by hand, as SWF would record them: event ids from 1, timestamps that move only
 * when told (or when a timer fires), and the ids events name filled in (an activity's scheduled and
 * started events, the DecisionTaskCompleted a decision's event came from). Decision tasks come by
 * themselves: one is scheduled when an event needs the decider, and completed before the first event
 * a decision records. See `events` for the steps, and docs/testing.md.
 */
import type {
  EventType,
  HistoryEvent,
  WorkflowExecutionStartedEventAttributes,
} from '@aws-sdk/client-swf';
import { type DecisionTaskInput, type WorkflowState, workflowState } from '../sdk/index.js';

/** One step of a history: it appends one or more events. */
export type HistoryStep = (history: HistoryRecorder) => void;

/** Where a hand-written history starts, unless a step says otherwise. */
export const DEFAULT_HISTORY_START = new Date('2025-01-01T00:00:00.000Z');

/** What an activity, timer, child or Lambda task of the history is known by. */
interface Tracked {
  readonly firstEventId: number;
  startedEventId?: number;
  readonly attributes: Record<string, unknown>;
}

export class HistoryRecorder {
  readonly events: HistoryEvent[] = [];
  timeMs = DEFAULT_HISTORY_START.getTime();
  readonly activities = new Map<string, Tracked>();
  readonly timers = new Map<string, Tracked & { fireAtMs: number }>();
  readonly children = new Map<string, Tracked>();
  readonly lambdas = new Map<string, Tracked>();
  readonly externals = new Map<string, Tracked>();
  #decision: 'none' | 'scheduled' | 'started' = 'none';
  #scheduledId = 0;
  #startedId = 0;
  /** The latest DecisionTaskCompleted, while nothing but its decisions' events came after it. */
  #answering = 0;
  /** An event came for the decider while it held a task: another is scheduled after it. */
  #owed = false;

  /** Appends an event, its attributes under the member its type names; returns its id. */
  add(type: EventType, attributes: object = {}): number {
    const eventId = this.events.length + 1;
    this.events.push({
      eventId,
      eventTimestamp: new Date(this.timeMs),
      eventType: type,
      [attributesMember(type)]: attributes,
    } as HistoryEvent);
    return eventId;
  }

  /** An event the decider must hear of: a decision task is scheduled for it, or owed. */
  wake(type: EventType, attributes: object = {}): number {
    this.#settleOwed();
    this.#answering = 0;
    const id = this.add(type, attributes);
    if (this.#decision === 'none') this.scheduleDecisionTask();
    else if (this.#decision === 'started') this.#owed = true;
    return id;
  }

  /** An event of the service's own (a task started): no decider hears of it. */
  happen(type: EventType, attributes: object = {}): number {
    this.#settleOwed();
    this.#answering = 0;
    return this.add(type, attributes);
  }

  /**
   * An event a decision records: the DecisionTaskCompleted it came from is the latest one, if only
   * its decisions' events followed it, else the open decision task is completed first.
   */
  decided(type: EventType, attributes: object = {}): number {
    if (this.#answering === 0) this.completeDecisionTask({});
    return this.add(type, { ...attributes, decisionTaskCompletedEventId: this.#answering });
  }

  scheduleDecisionTask(attributes: object = {}): number {
    this.#scheduledId = this.add('DecisionTaskScheduled', {
      taskList: { name: this.startedAttributes()?.taskList?.name ?? 'decisions' },
      startToCloseTimeout: this.startedAttributes()?.taskStartToCloseTimeout ?? '60',
      ...attributes,
    });
    this.#decision = 'scheduled';
    return this.#scheduledId;
  }

  startDecisionTask(identity = 'decider'): number {
    if (this.#decision === 'started') return this.#startedId;
    this.#settleOwed();
    if (this.#decision === 'none') this.scheduleDecisionTask();
    this.#startedId = this.add('DecisionTaskStarted', {
      identity,
      scheduledEventId: this.#scheduledId,
    });
    this.#decision = 'started';
    this.#answering = 0;
    return this.#startedId;
  }

  completeDecisionTask(attributes: { executionContext?: string }): number {
    this.startDecisionTask();
    this.#answering = this.add('DecisionTaskCompleted', {
      ...attributes,
      scheduledEventId: this.#scheduledId,
      startedEventId: this.#startedId,
    });
    this.#decision = 'none';
    return this.#answering;
  }

  timeOutDecisionTask(): number {
    this.startDecisionTask();
    this.#decision = 'none';
    this.#owed = false;
    return this.wake('DecisionTaskTimedOut', {
      timeoutType: 'START_TO_CLOSE',
      scheduledEventId: this.#scheduledId,
      startedEventId: this.#startedId,
    });
  }

  /** The decision task a decider would get now: the one started, else one scheduled and started. */
  decisionTaskInput(): DecisionTaskInput {
    return decisionTaskAt(this.events, this.startDecisionTask());
  }

  /** WorkflowExecutionStarted's attributes, if the history began with it. */
  startedAttributes(): WorkflowExecutionStartedEventAttributes | undefined {
    return this.events[0]?.workflowExecutionStartedEventAttributes;
  }

  /** The task an event names, or an error naming what is missing. */
  tracked(map: Map<string, Tracked>, id: string, what: string): Tracked {
    const known = map.get(id);
    if (known === undefined)
      throw new Error(`the history has no ${what} "${id}": schedule or start it first`);
    return known;
  }

  #settleOwed(): void {
    if (!this.#owed || this.#decision !== 'none') return;
    this.#owed = false;
    this.#answering = 0;
    this.scheduleDecisionTask();
  }
}

/** `ActivityTaskScheduled` → `activityTaskScheduledEventAttributes`. */
const attributesMember = (type: string) =>
  `${type.charAt(0).toLowerCase()}${type.slice(1)}EventAttributes`;

/**
 * The decision task whose DecisionTaskStarted is `startedEventId`, as a decider gets it: the events up
 * to that one, and the task before it that was answered.
 */
export function decisionTaskAt(
  events: readonly HistoryEvent[],
  startedEventId: number,
): DecisionTaskInput {
  const started = events.find((e) => e.eventId === startedEventId);
  if (started?.eventType !== 'DecisionTaskStarted')
    throw new Error(`event ${startedEventId} of the history is no DecisionTaskStarted`);
  const seen = events.filter((e) => (e.eventId ?? 0) <= startedEventId);
  const answered = seen.filter((e) => e.eventType === 'DecisionTaskCompleted').at(-1);
  const first = events[0]?.workflowExecutionStartedEventAttributes;
  return {
    taskToken: 'history',
    events: seen,
    startedEventId,
    previousStartedEventId: answered?.decisionTaskCompletedEventAttributes?.startedEventId ?? 0,
    workflowExecution: { workflowId: 'workflow-1', runId: 'run-1' },
    ...(first?.workflowType === undefined ? {} : { workflowType: first.workflowType }),
  };
}

/** A history: its events, and the decision tasks a decider gets from it. */
export class History {
  readonly events: readonly HistoryEvent[];
  readonly #steps: readonly HistoryStep[] | undefined;
  readonly #pending: DecisionTaskInput | undefined;
  /** The execution the history is of, when it was recorded (ids in a hand-written one are made up). */
  readonly workflowExecution: { readonly workflowId: string; readonly runId: string } | undefined;

  private constructor(
    events: readonly HistoryEvent[],
    steps: readonly HistoryStep[] | undefined,
    pending: DecisionTaskInput | undefined,
    workflowExecution?: { readonly workflowId: string; readonly runId: string },
  ) {
    this.events = events;
    this.#steps = steps;
    this.#pending = pending;
    this.workflowExecution = workflowExecution;
  }

  /** A history of these steps. */
  static of(steps: readonly HistoryStep[]): History {
    const recorder = new HistoryRecorder();
    for (const step of steps) step(recorder);
    const events = [...recorder.events];
    return new History(events, steps, recorder.decisionTaskInput());
  }

  /** A history as recorded (from GetWorkflowExecutionHistory, or a file saved by `saveHistory`). */
  static recorded(
    events: readonly HistoryEvent[],
    workflowExecution?: { readonly workflowId: string; readonly runId: string },
  ): History {
    return new History(events, undefined, undefined, workflowExecution);
  }

  /** This history with more steps after it (a hand-written one only). */
  with(...steps: readonly HistoryStep[]): History {
    if (this.#steps === undefined) throw new Error('a recorded history takes no more steps');
    return History.of([...this.#steps, ...steps]);
  }

  /**
   * The decision task a decider gets from this history: the one whose DecisionTaskStarted is
   * `startedEventId`; by default the one open at its end (of a hand-written history, one is scheduled
   * and started there when none is open).
   */
  decisionTask(startedEventId?: number): DecisionTaskInput {
    const task =
      startedEventId === undefined
        ? (this.#pending ?? openDecisionTask(this.events))
        : decisionTaskAt(this.events, startedEventId);
    if (task === undefined)
      throw new Error(
        'the history has no decision task open at its end: name the DecisionTaskStarted event to decide',
      );
    return this.#ofThisExecution(task);
  }

  /**
   * The decision task a decider would get next: the one open at the end of the history, else one
   * started after its last event (of a closed run, or one that waits: every answered task is then
   * behind it).
   */
  nextDecisionTask(): DecisionTaskInput {
    if (this.#pending !== undefined) return this.decisionTask();
    const open = openDecisionTask(this.events);
    const last = this.events.at(-1);
    return this.#ofThisExecution(
      open ?? decisionTaskAt([...this.events, startedAfter(last, 0)], (last?.eventId ?? 0) + 1),
    );
  }

  /** A task of this history, named by the execution it was recorded from (if it was). */
  #ofThisExecution(task: DecisionTaskInput): DecisionTaskInput {
    const execution = this.workflowExecution;
    return execution === undefined ? task : { ...task, workflowExecution: execution };
  }

  /** The state a state-function decider is given for `decisionTask(startedEventId)`. */
  state(startedEventId?: number): WorkflowState {
    return workflowState(this.decisionTask(startedEventId));
  }

  /** The DecisionTaskStarted event of every decision task that was answered, oldest first. */
  answeredDecisionTasks(): number[] {
    return this.events
      .filter((e) => e.eventType === 'DecisionTaskCompleted')
      .map((e) => e.decisionTaskCompletedEventAttributes?.startedEventId ?? 0);
  }

  /**
   * The events the answer to decision task `startedEventId` recorded, one for each decision (an
   * ActivityTaskScheduled, a TimerStarted, a ScheduleActivityTaskFailed, …), in the order decided.
   */
  recordedAnswer(startedEventId: number): HistoryEvent[] {
    const completed = this.events.find(
      (e) => e.decisionTaskCompletedEventAttributes?.startedEventId === startedEventId,
    );
    if (completed === undefined)
      throw new Error(`the decision task started by event ${startedEventId} was not answered`);
    return this.events.filter((e) => answeredBy(e) === completed.eventId);
  }
}

/**
 * The decision task open at the end of a recorded history: the one started, or the one scheduled,
 * started now (as a decider polling would); undefined when none is open.
 */
function openDecisionTask(events: readonly HistoryEvent[]): DecisionTaskInput | undefined {
  const last = events.filter((e) => e.eventType?.startsWith('DecisionTask') === true).at(-1);
  if (last?.eventType === 'DecisionTaskStarted') return decisionTaskAt(events, last.eventId ?? 0);
  if (last?.eventType !== 'DecisionTaskScheduled') return undefined;
  const started = startedAfter(events.at(-1), last.eventId ?? 0);
  return decisionTaskAt([...events, started], started.eventId ?? 0);
}

/** A DecisionTaskStarted right after `last`, at its time. */
function startedAfter(last: HistoryEvent | undefined, scheduledEventId: number): HistoryEvent {
  return {
    eventId: (last?.eventId ?? 0) + 1,
    eventType: 'DecisionTaskStarted',
    eventTimestamp: last?.eventTimestamp ?? DEFAULT_HISTORY_START,
    decisionTaskStartedEventAttributes: { scheduledEventId },
  };
}

/** The DecisionTaskCompleted an event's decision came from, if it came from one. */
function answeredBy(event: HistoryEvent): number | undefined {
  for (const [key, value] of Object.entries(event))
    if (key.endsWith('EventAttributes') && typeof value === 'object' && value !== null) {
      const id = (value as { decisionTaskCompletedEventId?: unknown }).decisionTaskCompletedEventId;
      return typeof id === 'number' ? id : undefined;
    }
  return undefined;
}

/** A history of these steps (see `events`). */
export function historyOf(...steps: readonly HistoryStep[]): History {
  return History.of(steps);
}
