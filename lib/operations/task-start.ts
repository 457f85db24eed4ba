/**
 * Starting a scheduled task for whoever takes it, and what the taker is handed: the answer of
 * PollForActivityTask or PollForDecisionTask. A poll's claim of a queue entry, a poller waiting when
 * the task is scheduled, and the function of a push task list all start tasks this way.
 */
import { startActivityTask } from '../core/activity-tasks.js';
import { startDecisionTask } from '../core/decision-tasks.js';
import {
  type ActivityState,
  activityByScheduledId,
  type ExecutionState,
} from '../core/execution-state.js';
import type { HistoryEvent } from '../core/history-event.js';
import type { TaskList } from '../core/registry.js';
import type { PushedTaskRef } from '../core/task-queue.js';
import { epochSeconds } from '../ports/clock.js';
import type { HistoryPage, LoadedRun } from '../ports/run-store.js';
import type { HandoffStarter } from '../ports/task-notifier.js';
import {
  PUSHED_TASK_MAX_BYTES,
  PUSHED_TASK_SOURCE,
  type PushedTaskEvent,
} from '../ports/task-push.js';
import type { OperationDeps } from './context.js';
import { historyPage, pageSize } from './paging.js';

export interface PollForDecisionTaskInput {
  domain: string;
  taskList: TaskList;
  identity?: string;
  nextPageToken?: string;
  maximumPageSize?: number;
  reverseOrder?: boolean;
  startAtPreviousStartedEvent?: boolean;
}

export interface StartedDecisionTask {
  readonly state: ExecutionState;
  readonly scheduledEventId: number;
  readonly startedEventId: number;
  /** The whole history up to DecisionTaskStarted, when it is already in hand. */
  readonly history?: readonly HistoryEvent[];
  /** The run's latest events, when in hand (through DecisionTaskStarted at least): only what precedes them is read. */
  readonly recent?: readonly HistoryEvent[];
}

/** A page of history from the events in hand, exactly as the store would read it. */
function pageOf(
  history: readonly HistoryEvent[],
  page: { after?: number; limit: number; reverse: boolean },
): HistoryPage {
  const from = page.after ?? (page.reverse ? Number.MAX_SAFE_INTEGER : 1);
  const events = page.reverse
    ? [...history].reverse().filter((e) => e.eventId <= from)
    : history.filter((e) => e.eventId >= from);
  const next = events[page.limit]?.eventId;
  const shown = events.slice(0, page.limit);
  return next === undefined ? { events: shown } : { events: shown, next };
}

export const DECISION_POLL_ACTION = 'PollForDecisionTask';

/** Starts a decision task the moment it is scheduled, for a poller waiting on its list. */
export function decisionHandoff(deps: OperationDeps, identity: string | undefined): HandoffStarter {
  return (state, task, events) => {
    const scheduled = state.decisionTask;
    if (
      task.kind !== 'decision' ||
      state.status !== 'OPEN' ||
      scheduled.status !== 'scheduled' ||
      scheduled.scheduledEventId !== task.scheduledEventId
    ) {
      return undefined;
    }
    const t = startDecisionTask(state, identity, epochSeconds(deps.clock));
    const known = [...events, ...t.events];
    const result: StartedDecisionTask = {
      state: t.state,
      scheduledEventId: scheduled.scheduledEventId,
      startedEventId: t.state.nextEventId - 1,
      // A run's first decision task holds only events of this commit: no need to read them back.
      ...(known[0]?.eventId === 1 ? { history: known } : {}),
    };
    return { state: t.state, events: t.events, result };
  };
}

/** Starts the run's scheduled decision task (a queue entry's, or a push list's) for `identity`. */
export function startScheduledDecision(
  deps: OperationDeps,
  { state, recentEvents }: LoadedRun,
  scheduledEventId: number,
  identity: string | undefined,
) {
  const t = startDecisionTask(state, identity, epochSeconds(deps.clock));
  const result: StartedDecisionTask = {
    state: t.state,
    scheduledEventId,
    startedEventId: t.state.nextEventId - 1,
    recent: [...(recentEvents ?? []), ...t.events],
  };
  return { state: t.state, events: t.events, result };
}

/** One page of a decision task's history; the other members are repeated on every page. */
export async function decisionTaskPage(
  deps: OperationDeps,
  input: PollForDecisionTaskInput,
  args: unknown,
  task: StartedDecisionTask,
  after: number | undefined,
): Promise<object> {
  const { state, scheduledEventId, startedEventId } = task;
  const reverse = input.reverseOrder === true;
  const limit = pageSize(input.maximumPageSize);
  const range = { ...(after === undefined ? {} : { after }), limit, reverse };
  const page =
    task.history === undefined
      ? await deps.runs.readHistory(state.execution.runId, {
          ...range,
          ...(task.recent === undefined ? {} : { recent: task.recent }),
        })
      : pageOf(task.history, range);
  // The task's view of the history ends at its DecisionTaskStarted.
  const { events, next } = historyPage(
    page.events.filter((e) => e.eventId <= startedEventId),
    page.next !== undefined && page.next <= startedEventId ? page.next : undefined,
  );
  const taskToken = await deps.taskTokens.encode({
    kind: 'decision',
    runId: state.execution.runId,
    scheduledEventId,
    startedEventId,
  });
  const cursor =
    next === undefined
      ? undefined
      : [state.execution.runId, scheduledEventId, startedEventId, next].join('|');
  return {
    taskToken,
    startedEventId,
    workflowExecution: state.execution,
    workflowType: state.workflowType,
    events,
    ...(cursor === undefined
      ? {}
      : {
          nextPageToken: await deps.pageTokens.encode(
            { action: DECISION_POLL_ACTION, args },
            cursor,
          ),
        }),
    previousStartedEventId: state.previousStartedEventId,
  };
}

export interface StartedActivityTask {
  readonly state: ExecutionState;
  readonly activity: ActivityState;
  readonly startedEventId: number;
  /** The scheduled event's input when the task was handed over with it (undefined: read it). */
  readonly scheduled?: { readonly input?: string | undefined };
}

/**
 * Starts a scheduled activity. Its input is in its ActivityTaskScheduled event: taken from `known`
 * (events in hand) when it is there, else read when the poll answers.
 */
export function startActivity(
  deps: OperationDeps,
  state: ExecutionState,
  activity: ActivityState,
  identity: string | undefined,
  known: readonly HistoryEvent[],
) {
  const t = startActivityTask(state, activity, identity, epochSeconds(deps.clock));
  const event = known.find((e) => e.eventId === activity.scheduledEventId);
  const result: StartedActivityTask = {
    state: t.state,
    activity,
    startedEventId: t.state.nextEventId - 1,
    ...(event?.eventType === 'ActivityTaskScheduled'
      ? { scheduled: { input: event.attributes.input } }
      : {}),
  };
  return { state: t.state, events: t.events, result };
}

/** Starts an activity task the moment it is scheduled, for a poller waiting on its list. */
export function activityHandoff(deps: OperationDeps, identity: string | undefined): HandoffStarter {
  return (state, task, events) => {
    const activity = activityByScheduledId(state, task.scheduledEventId);
    if (
      task.kind !== 'activity' ||
      state.status !== 'OPEN' ||
      activity === undefined ||
      activity.startedEventId !== undefined
    ) {
      return undefined;
    }
    return startActivity(deps, state, activity, identity, events);
  };
}

/** What PollForActivityTask answers with a started task. */
export async function activityTaskAnswer(deps: OperationDeps, task: StartedActivityTask) {
  const { state, activity, startedEventId } = task;
  const scheduled =
    task.scheduled !== undefined
      ? task.scheduled.input
      : await scheduledInput(deps, state, activity);
  return {
    taskToken: await deps.taskTokens.encode({
      kind: 'activity',
      runId: state.execution.runId,
      scheduledEventId: activity.scheduledEventId,
      startedEventId,
    }),
    activityId: activity.activityId,
    startedEventId,
    workflowExecution: state.execution,
    activityType: activity.activityType,
    ...(scheduled === undefined ? {} : { input: scheduled }),
  };
}

/** The activity's input lives in its ActivityTaskScheduled event, not in the execution state. */
async function scheduledInput(deps: OperationDeps, state: ExecutionState, activity: ActivityState) {
  const page = await deps.runs.readHistory(state.execution.runId, {
    after: activity.scheduledEventId,
    limit: 1,
    reverse: false,
  });
  const event = page.events[0];
  return event?.eventType === 'ActivityTaskScheduled' ? event.attributes.input : undefined;
}

/**
 * Starts a task a commit schedules on a push task list in that same commit, for the list's function
 * (the identity that took it, as a poll's caller would be); the committer hands it over once the commit
 * has landed (see pushedTaskEvent). `recent` are the run's latest events before the commit, so that the
 * answer reads back only the history that precedes them.
 */
export function pushHandoff(
  deps: OperationDeps,
  target: string,
  recent: readonly HistoryEvent[] | undefined,
): HandoffStarter {
  return (state, task, events) => {
    const known = [...(recent ?? []), ...events];
    if (task.kind === 'activity') return activityHandoff(deps, target)(state, task, known);
    const started = decisionHandoff(deps, target)(state, task, events);
    if (started === undefined) return undefined;
    const result = started.result as StartedDecisionTask;
    if (result.history !== undefined) return started;
    return { ...started, result: { ...result, recent: [...known, ...started.events] } };
  };
}

/**
 * What the function of a push task list is invoked with for a task started for it (`started`, as its
 * HandoffStarter made it): the poll's answer. A decision task's history is the first page that keeps
 * the event under Lambda's limit on an asynchronous payload; the function reads the next pages with
 * PollForDecisionTask and the nextPageToken, as a poller does.
 */
export async function pushedTaskEvent(
  deps: OperationDeps,
  task: PushedTaskRef,
  started: unknown,
): Promise<PushedTaskEvent> {
  const base = {
    source: PUSHED_TASK_SOURCE,
    kind: task.kind,
    domain: task.domain,
    taskList: task.taskList,
  } as const;
  if (task.kind === 'activity') {
    const activity = started as StartedActivityTask;
    return {
      ...base,
      task: await activityTaskAnswer(deps, activity),
      heartbeatTimeout: activity.activity.timeouts.heartbeat,
    };
  }
  const input = { domain: task.domain, taskList: { name: task.taskList } };
  const args = {
    domain: task.domain,
    taskList: task.taskList,
    reverseOrder: false,
    startAtPreviousStartedEvent: false,
  };
  for (let limit = pageSize(undefined); ; limit = Math.ceil(limit / 2)) {
    const page = await decisionTaskPage(
      deps,
      { ...input, maximumPageSize: limit },
      args,
      started as StartedDecisionTask,
      undefined,
    );
    const event: PushedTaskEvent = { ...base, task: page as Record<string, unknown> };
    if (limit === 1 || Buffer.byteLength(JSON.stringify(event)) <= PUSHED_TASK_MAX_BYTES)
      return event;
  }
}
