import type { ActivityOutcome } from '../core/activity-tasks.js';
import { closeActivityTask, startActivityTask } from '../core/activity-tasks.js';
import {
  type ActivityState,
  activityByScheduledId,
  type ExecutionState,
} from '../core/execution-state.js';
import { UnknownResourceFault } from '../core/faults.js';
import type { HistoryEvent } from '../core/history-event.js';
import type { TaskList } from '../core/registry.js';
import type { PushedTaskRef } from '../core/task-queue.js';
import { latestExpiry } from '../core/visibility.js';
import { epochSeconds } from '../ports/clock.js';
import type { LoadedRun, QueueEntry } from '../ports/execution-store.js';
import type { HandoffStarter } from '../ports/task-notifier.js';
import { type OperationDeps, operation } from './context.js';
import { RECENT_REGISTRY, requireDomain } from './domains.js';
import { claimQueuedTask, longPoll } from './long-poll.js';
import { closedExecution, mutateRun } from './run-mutation.js';
import { deliverPushed, pushedEvent, startPushed } from './task-push.js';
import type { TaskTokenClaims } from './task-token.js';
import { domainRetention } from './visibility-sync.js';

interface PollForActivityTaskInput {
  domain: string;
  taskList: TaskList;
  identity?: string;
}

export const pollForActivityTask = operation<PollForActivityTaskInput>(
  async (input, deps, request) => {
    await requireDomain(deps, input.domain, RECENT_REGISTRY);
    const list = { kind: 'activity' as const, domain: input.domain, taskList: input.taskList.name };
    const task = await longPoll<StartedActivityTask>(
      deps,
      request,
      list,
      (entry) => claimActivityTask(deps, entry, input.identity),
      activityHandoff(deps, input.identity),
    );
    // An empty task when the poll times out: no taskToken, startedEventId 0 (swf-api.md §4).
    if (task === undefined) return { startedEventId: 0 };
    return activityTaskAnswer(deps, task);
  },
);

/** What PollForActivityTask answers with a started task. */
async function activityTaskAnswer(deps: OperationDeps, task: StartedActivityTask) {
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

/**
 * Starts an activity task scheduled on a push task list, for its function (the identity that took it),
 * and hands the function what a poll would have answered. A task already started (a stream record
 * handled again), withdrawn or of a closed run is left alone. A start whose function cannot be reached
 * stays started: it times out as a worker that took it and died would (start-to-close).
 */
export async function pushActivityTask(deps: OperationDeps, task: PushedTaskRef): Promise<void> {
  const started = await startPushed(deps, task, ({ state, recentEvents }) => {
    // startPushed found it scheduled, not started, for this function.
    const activity = activityByScheduledId(state, task.scheduledEventId) as ActivityState;
    return startActivity(deps, state, activity, task.target, recentEvents ?? []);
  });
  if (started === undefined) return;
  await deliverPushed(deps, task, pushedEvent(task, await activityTaskAnswer(deps, started)));
}

/** The activity's input lives in its ActivityTaskScheduled event, not in the execution state. */
async function scheduledInput(deps: OperationDeps, state: ExecutionState, activity: ActivityState) {
  const page = await deps.executions.readHistory(state.execution.runId, {
    after: activity.scheduledEventId,
    limit: 1,
    reverse: false,
  });
  const event = page.events[0];
  return event?.eventType === 'ActivityTaskScheduled' ? event.attributes.input : undefined;
}

interface StartedActivityTask {
  readonly state: ExecutionState;
  readonly activity: ActivityState;
  readonly startedEventId: number;
  /** The scheduled event's input when the task was handed over with it (undefined: read it). */
  readonly scheduled?: { readonly input?: string | undefined };
}

/** Starts an activity task the moment it is scheduled, for a poller waiting on its list. */
function activityHandoff(deps: OperationDeps, identity: string | undefined): HandoffStarter {
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

function claimActivityTask(deps: OperationDeps, entry: QueueEntry, identity: string | undefined) {
  return claimQueuedTask<StartedActivityTask>(deps, entry, ({ state, recentEvents }) => {
    // entryStatus found it scheduled and not started on this list.
    const activity = activityByScheduledId(state, entry.scheduledEventId) as ActivityState;
    return startActivity(deps, state, activity, identity, recentEvents ?? []);
  });
}

/**
 * Starts a scheduled activity. Its input is in its ActivityTaskScheduled event: taken from `known`
 * (events in hand) when it is there, else read when the poll answers.
 */
function startActivity(
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

/** The started activity a token names, or the fault SWF gives for a token that no longer applies. */
function tokenActivity(state: ExecutionState, claims: TaskTokenClaims): ActivityState {
  if (state.status !== 'OPEN') throw closedExecution(state);
  const activity = activityByScheduledId(state, claims.scheduledEventId);
  if (activity === undefined || activity.startedEventId !== claims.startedEventId) {
    throw new UnknownResourceFault(
      `Unknown activity, scheduledEventId = ${claims.scheduledEventId}`,
    );
  }
  return activity;
}

async function loadForToken(
  deps: OperationDeps,
  taskToken: string,
): Promise<{ claims: TaskTokenClaims; loaded: LoadedRun }> {
  const claims = await deps.taskTokens.decode(taskToken, 'activity');
  const loaded = await deps.executions.loadRun(claims.runId);
  if (loaded === undefined)
    throw new UnknownResourceFault(
      `Unknown activity, scheduledEventId = ${claims.scheduledEventId}`,
    );
  return { claims, loaded };
}

export const recordActivityTaskHeartbeat = operation<{ taskToken: string; details?: string }>(
  async (input, deps) => {
    const { claims, loaded } = await loadForToken(deps, input.taskToken);
    const activity = tokenActivity(loaded.state, claims);
    // The heartbeat expires by itself at the run's latest expiry: one written as the run closes, after
    // the close marked the run's items, is not kept forever.
    const retention = await domainRetention(deps, loaded.state.domain);
    await deps.executions.putHeartbeat(
      claims.runId,
      claims.scheduledEventId,
      {
        at: epochSeconds(deps.clock),
        ...(input.details === undefined ? {} : { details: input.details }),
      },
      latestExpiry(loaded.state, retention),
    );
    return { cancelRequested: activity.latestCancelRequestedEventId !== undefined };
  },
);

const respondActivity = (
  outcomeOf: (input: Record<string, string | undefined>) => ActivityOutcome,
) =>
  operation<{ taskToken: string } & Record<string, string | undefined>>(async (input, deps) => {
    const { claims, loaded } = await loadForToken(deps, input.taskToken);
    return mutateRun(
      deps,
      claims.runId,
      ({ state }) => {
        const activity = tokenActivity(state, claims);
        const t = closeActivityTask(state, activity, outcomeOf(input), epochSeconds(deps.clock));
        return { write: true, result: undefined, state: t.state, events: t.events };
      },
      loaded,
    );
  });

const present = <K extends string>(key: K, value: string | undefined) =>
  value === undefined ? {} : { [key]: value };

export const respondActivityTaskCompleted = respondActivity((i) => ({
  kind: 'completed',
  ...present('result', i.result),
}));
export const respondActivityTaskFailed = respondActivity((i) => ({
  kind: 'failed',
  ...present('reason', i.reason),
  ...present('details', i.details),
}));
export const respondActivityTaskCanceled = respondActivity((i) => ({
  kind: 'canceled',
  ...present('details', i.details),
}));

const countPending = (kind: 'decision' | 'activity') =>
  operation<{ domain: string; taskList: TaskList }>(async (input, deps) => {
    await requireDomain(deps, input.domain, RECENT_REGISTRY);
    const count = await deps.executions.countQueue(kind, input.domain, input.taskList.name);
    return { count, truncated: false };
  });

export const countPendingActivityTasks = countPending('activity');
export const countPendingDecisionTasks = countPending('decision');
