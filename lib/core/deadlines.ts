/**
 * Timers and timeouts. Which deadlines are pending is a function of the execution state;
 * the run arms one fire for all of them, its alarm (withAlarm), and the alarm's fire re-derives what is
 * due from the current state (fireDue). A fire for a deadline that is gone or not yet due records
 * nothing: stale and duplicate fires are harmless.
 */
import {
  type ActivityState,
  activityByScheduledId,
  type ExecutionState,
} from './execution-state.js';
import type { HistoryEvent } from './history-event.js';
import { executionTimeoutSeconds } from './limits.js';
import { Transition } from './transition.js';

export type ActivityTimeoutType =
  | 'SCHEDULE_TO_START'
  | 'SCHEDULE_TO_CLOSE'
  | 'START_TO_CLOSE'
  | 'HEARTBEAT';

export type DeadlineSubject =
  | { readonly kind: 'timer'; readonly timerId: string; readonly startedEventId: number }
  | {
      readonly kind: 'activity';
      readonly scheduledEventId: number;
      readonly timeoutType: ActivityTimeoutType;
    }
  | {
      readonly kind: 'decision';
      readonly scheduledEventId: number;
      readonly timeoutType: 'START_TO_CLOSE' | 'SCHEDULE_TO_START';
    }
  | { readonly kind: 'lambda'; readonly scheduledEventId: number }
  | { readonly kind: 'execution' };

export interface Deadline {
  /** Unique within the run and never reused for another deadline: `T:12`, `A:5:HEARTBEAT`, `D:7:START_TO_CLOSE`, `X`. */
  readonly key: string;
  readonly runId: string;
  /** Epoch seconds. */
  readonly at: number;
  readonly subject: DeadlineSubject;
}

const seconds = (value: string): number | undefined =>
  value === 'NONE' ? undefined : Number(value);

export function deadlines(state: ExecutionState): Deadline[] {
  if (state.status !== 'OPEN') return [];
  const runId = state.execution.runId;
  const out: Deadline[] = [];
  const add = (key: string, at: number | undefined, subject: DeadlineSubject) => {
    if (at !== undefined && Number.isFinite(at)) out.push({ key, runId, at, subject });
  };
  // NONE (a child's or a continued run's may be) is SWF's one-year limit on an execution's lifetime.
  const execution = executionTimeoutSeconds(state.config.executionStartToCloseTimeout);
  add('X', state.startTimestamp + execution, { kind: 'execution' });
  for (const timer of Object.values(state.timers)) {
    add(`T:${timer.startedEventId}`, timer.fireAt, {
      kind: 'timer',
      timerId: timer.timerId,
      startedEventId: timer.startedEventId,
    });
  }
  for (const activity of Object.values(state.activities)) {
    for (const [timeoutType, at] of activityDeadlines(activity)) {
      add(`A:${activity.scheduledEventId}:${timeoutType}`, at, {
        kind: 'activity',
        scheduledEventId: activity.scheduledEventId,
        timeoutType,
      });
    }
  }
  for (const fn of Object.values(state.lambdaFunctions)) {
    const limit = seconds(fn.startToCloseTimeout);
    const at = fn.startedAt === undefined || limit === undefined ? undefined : fn.startedAt + limit;
    add(`L:${fn.scheduledEventId}`, at, { kind: 'lambda', scheduledEventId: fn.scheduledEventId });
  }
  const task = state.decisionTask;
  if (task.status === 'started') {
    const limit = seconds(task.startToCloseTimeout);
    add(
      `D:${task.scheduledEventId}:START_TO_CLOSE`,
      limit === undefined ? undefined : task.startedAt + limit,
      {
        kind: 'decision',
        scheduledEventId: task.scheduledEventId,
        timeoutType: 'START_TO_CLOSE',
      },
    );
  }
  if (task.status === 'scheduled' && task.scheduleToStartTimeout !== undefined) {
    const limit = seconds(task.scheduleToStartTimeout);
    add(
      `D:${task.scheduledEventId}:SCHEDULE_TO_START`,
      limit === undefined ? undefined : task.scheduledAt + limit,
      {
        kind: 'decision',
        scheduledEventId: task.scheduledEventId,
        timeoutType: 'SCHEDULE_TO_START',
      },
    );
  }
  return out;
}

/** The run's earliest pending deadline. */
export function earliestDeadline(state: ExecutionState): Deadline | undefined {
  let earliest: Deadline | undefined;
  for (const d of deadlines(state)) if (earliest === undefined || d.at < earliest.at) earliest = d;
  return earliest;
}

/**
 * A run keeps one deadline fire armed, its `alarm`, at or before its earliest deadline, instead of one
 * fire per timeout: a change brings the alarm forward when a sooner deadline appears (the outbox arms
 * it), and the alarm's fire handles whatever is due, then sets the alarm to the earliest deadline left
 * (see fireDue). A run whose deadlines all lie after its alarm arms nothing new.
 */
export function withAlarm(state: ExecutionState): ExecutionState {
  const earliest = earliestDeadline(state);
  if (earliest === undefined || (state.alarm !== undefined && state.alarm.at <= earliest.at))
    return state;
  return { ...state, alarm: { key: earliest.key, at: earliest.at } };
}

/**
 * The fire an open run waits for: its alarm, or its earliest deadline when it has none (a state
 * written before alarms were kept). None for a closed run or one with nothing due.
 */
export function pendingFire(
  state: ExecutionState,
): { readonly runId: string; readonly key: string; readonly at: number } | undefined {
  if (state.status !== 'OPEN') return undefined;
  const due = state.alarm ?? earliestDeadline(state);
  return due === undefined ? undefined : { runId: state.execution.runId, key: due.key, at: due.at };
}

/** A fire for `at` is the run's alarm (or later than it): a fire for an earlier time was overtaken. */
export const isCurrentAlarm = (state: ExecutionState, at: number) =>
  state.alarm === undefined || at >= state.alarm.at;

export interface DueFires {
  readonly state: ExecutionState;
  readonly events: readonly HistoryEvent[];
  /** The state changed: events recorded, a heartbeat deadline pushed, or the alarm moved. */
  readonly changed: boolean;
}

/**
 * The alarm of an open run fired at `now`: every deadline due by then fires, earliest first (each one's
 * event as fireDeadline records it), a HEARTBEAT deadline a later heartbeat pushed moves to where it
 * now falls, and the alarm moves to the earliest deadline left (none when none is left).
 * `heartbeats` holds the latest heartbeat of the activities with a deadline due, by scheduledEventId.
 */
export function fireDue(
  state: ExecutionState,
  now: number,
  heartbeats: ReadonlyMap<number, HeartbeatInfo>,
): DueFires {
  if (state.status !== 'OPEN') return { state, events: [], changed: false };
  let current = state;
  const events: HistoryEvent[] = [];
  const heartbeatOf = (d: Deadline) =>
    d.subject.kind === 'activity' ? heartbeats.get(d.subject.scheduledEventId) : undefined;
  for (;;) {
    // The deadline that really fell due first fires first: a HEARTBEAT deadline the state knows may
    // have been pushed by a later heartbeat past other deadlines due by now (a fire handed over late).
    let first: { readonly deadline: Deadline; readonly at: number } | undefined;
    for (const d of deadlines(current)) {
      if (d.at > now) continue;
      const at = dueAt(current, d, heartbeatOf(d));
      if (at > now) {
        if (d.subject.kind === 'activity')
          current = pushHeartbeatDeadline(current, d.subject.scheduledEventId, at);
        continue;
      }
      if (first === undefined || at < first.at) first = { deadline: d, at };
    }
    if (first === undefined) break;
    const outcome = fireDeadline(current, first.deadline.key, now, heartbeatOf(first.deadline));
    if (outcome.kind !== 'expired') break;
    current = outcome.transition.state;
    events.push(...outcome.transition.events);
  }
  const earliest = earliestDeadline(current);
  const { alarm: _fired, ...rest } = current;
  const next: ExecutionState =
    earliest === undefined ? rest : { ...rest, alarm: { key: earliest.key, at: earliest.at } };
  return { state: next, events, changed: JSON.stringify(next) !== JSON.stringify(state) };
}

/** A task a call answers for: a started activity, or the run's started decision task. */
export interface TaskRef {
  readonly kind: 'activity' | 'decision';
  readonly scheduledEventId: number;
}

/**
 * The deadline of `task`, or the run's own execution timeout, that has passed by `now` while its fire
 * has not been handled yet: fires come late by the timer service's lateness (milliseconds locally, up
 * to about a second on AWS). A call that answers for the task then (its completion, failure,
 * heartbeat or decisions) is answered as for a timed-out task, and a poll does not start it, so that
 * nothing a worker sends after a timeout beats the timeout; the fire records it. A HEARTBEAT deadline counts from the activity's
 * latest heartbeat, which the state does not hold: without `heartbeat` it is the deadline the state
 * knows, which the latest heartbeat may have pushed since.
 */
export function passedDeadline(
  state: ExecutionState,
  task: TaskRef,
  now: number,
  heartbeat?: HeartbeatInfo,
): Deadline | undefined {
  return deadlines(state).find(
    (d) =>
      (d.subject.kind === 'execution' ||
        (d.subject.kind === task.kind && d.subject.scheduledEventId === task.scheduledEventId)) &&
      dueAt(state, d, heartbeat) <= now,
  );
}

/**
 * The run's own execution timeout has passed by `now`, its fire not handled yet: the run is as good as
 * timed out ("Once a workflow execution has timed out, you can't take any action on it other than
 * visibility calls", Amazon SWF Timeout Types); the fire records WorkflowExecutionTimedOut.
 */
export const executionTimedOutBy = (state: ExecutionState, now: number): boolean =>
  fallenDue(state, now, (s) => s.kind === 'execution');

/**
 * The START_TO_CLOSE timeout of the run's Lambda task `scheduledEventId` has passed by `now`, its fire
 * not handled yet: an answer of the function then is too late (the fire records LambdaFunctionTimedOut).
 */
export const lambdaTimedOutBy = (
  state: ExecutionState,
  scheduledEventId: number,
  now: number,
): boolean =>
  fallenDue(state, now, (s) => s.kind === 'lambda' && s.scheduledEventId === scheduledEventId);

/** A deadline of the state's whose subject `matches` was due by `now` (no heartbeat moves it). */
const fallenDue = (
  state: ExecutionState,
  now: number,
  matches: (subject: DeadlineSubject) => boolean,
): boolean => deadlines(state).some((d) => matches(d.subject) && d.at <= now);

function pushHeartbeatDeadline(
  state: ExecutionState,
  scheduledEventId: number,
  at: number,
): ExecutionState {
  const activity = activityByScheduledId(state, scheduledEventId);
  if (activity === undefined) return state;
  return {
    ...state,
    activities: { ...state.activities, [activity.activityId]: { ...activity, heartbeatDueAt: at } },
  };
}

/**
 * The activity's armed deadlines. HEARTBEAT is armed from the start; a heartbeat does not re-arm it:
 * when it fires, the latest heartbeat decides whether it has really expired (lazily: docs/architecture.md, "Timers to the second").
 */
function activityDeadlines(a: ActivityState): [ActivityTimeoutType, number | undefined][] {
  const s2s = seconds(a.timeouts.scheduleToStart);
  const s2c = seconds(a.timeouts.scheduleToClose);
  const start2c = seconds(a.timeouts.startToClose);
  const hb = seconds(a.timeouts.heartbeat);
  const started = a.startedAt;
  return [
    [
      'SCHEDULE_TO_START',
      started === undefined && s2s !== undefined ? a.scheduledAt + s2s : undefined,
    ],
    ['SCHEDULE_TO_CLOSE', s2c === undefined ? undefined : a.scheduledAt + s2c],
    [
      'START_TO_CLOSE',
      started !== undefined && start2c !== undefined ? started + start2c : undefined,
    ],
    [
      'HEARTBEAT',
      started !== undefined && hb !== undefined
        ? Math.max(started + hb, a.heartbeatDueAt ?? 0)
        : undefined,
    ],
  ];
}

/** The latest heartbeat of an activity (kept outside the state). */
export interface HeartbeatInfo {
  readonly at: number;
  readonly details?: string;
}

export type FireOutcome =
  | { readonly kind: 'stale' }
  | { readonly kind: 'not-yet'; readonly at: number }
  | { readonly kind: 'expired'; readonly transition: Transition };

/**
 * A deadline fired at `now`. If it is still pending and due, its event is recorded: TimerFired,
 * ActivityTaskTimedOut, DecisionTaskTimedOut (then a new decision task) or WorkflowExecutionTimedOut.
 */
export function fireDeadline(
  state: ExecutionState,
  key: string,
  now: number,
  heartbeat: HeartbeatInfo | undefined,
): FireOutcome {
  const deadline = deadlines(state).find((d) => d.key === key);
  if (deadline === undefined) return { kind: 'stale' };
  const due = dueAt(state, deadline, heartbeat);
  if (due > now) return { kind: 'not-yet', at: due };
  const t = new Transition(state, now);
  const subject = deadline.subject;
  switch (subject.kind) {
    case 'timer':
      t.record({
        eventType: 'TimerFired',
        attributes: { timerId: subject.timerId, startedEventId: subject.startedEventId },
      });
      break;
    case 'activity':
      activityTimedOut(t, subject.scheduledEventId, subject.timeoutType, heartbeat);
      break;
    case 'decision':
      decisionTimedOut(t, subject.timeoutType);
      break;
    case 'lambda':
      lambdaTimedOut(t, subject.scheduledEventId);
      break;
    case 'execution':
      t.record({
        eventType: 'WorkflowExecutionTimedOut',
        attributes: { timeoutType: 'START_TO_CLOSE', childPolicy: state.config.childPolicy },
      });
      break;
  }
  t.scheduleDecisionTaskIfOwed();
  return { kind: 'expired', transition: t };
}

/** When a deadline really falls due: a heartbeat after the start pushes the HEARTBEAT deadline. */
function dueAt(
  state: ExecutionState,
  deadline: Deadline,
  heartbeat: HeartbeatInfo | undefined,
): number {
  const s = deadline.subject;
  if (s.kind !== 'activity' || s.timeoutType !== 'HEARTBEAT' || heartbeat === undefined)
    return deadline.at;
  const activity = activityByScheduledId(state, s.scheduledEventId);
  const limit = activity === undefined ? undefined : seconds(activity.timeouts.heartbeat);
  return limit === undefined ? deadline.at : Math.max(deadline.at, heartbeat.at + limit);
}

function activityTimedOut(
  t: Transition,
  scheduledEventId: number,
  timeoutType: ActivityTimeoutType,
  heartbeat: HeartbeatInfo | undefined,
) {
  const activity = activityByScheduledId(t.state, scheduledEventId);
  t.record({
    eventType: 'ActivityTaskTimedOut',
    attributes: {
      timeoutType,
      scheduledEventId,
      startedEventId: activity?.startedEventId ?? 0,
      ...(heartbeat?.details === undefined ? {} : { details: heartbeat.details }),
    },
  });
}

function decisionTimedOut(t: Transition, timeoutType: 'START_TO_CLOSE' | 'SCHEDULE_TO_START') {
  const task = t.state.decisionTask;
  if (task.status === 'none') return;
  t.record({
    eventType: 'DecisionTaskTimedOut',
    attributes: {
      timeoutType,
      scheduledEventId: task.scheduledEventId,
      startedEventId: task.status === 'started' ? task.startedEventId : 0,
    },
  });
}

function lambdaTimedOut(t: Transition, scheduledEventId: number) {
  const fn = Object.values(t.state.lambdaFunctions).find(
    (f) => f.scheduledEventId === scheduledEventId,
  );
  t.record({
    eventType: 'LambdaFunctionTimedOut',
    attributes: {
      scheduledEventId,
      startedEventId: fn?.startedEventId ?? 0,
      timeoutType: 'START_TO_CLOSE',
    },
  });
}
