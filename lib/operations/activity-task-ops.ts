import type { ActivityOutcome } from '../core/activity-tasks.js';
import { closeActivityTask } from '../core/activity-tasks.js';
import {
  type ActivityState,
  activityByScheduledId,
  type ExecutionState,
} from '../core/execution-state.js';
import { UnknownResourceFault } from '../core/faults.js';
import type { TaskList } from '../core/registry.js';
import { latestExpiry } from '../core/visibility.js';
import { epochSeconds } from '../ports/clock.js';
import type { LoadedRun } from '../ports/run-store.js';
import type { QueueEntry } from '../ports/task-queue-store.js';
import { authorizeInDomain } from './access.js';
import { type OperationDeps, operation, type RequestContext } from './context.js';
import { RECENT_REGISTRY, requireDomain } from './domains.js';
import { answerPoll, claimQueuedTask, longPoll } from './long-poll.js';
import { closedExecution, mutateRun, timedOutUnfired } from './run-mutation.js';
import {
  activityHandoff,
  activityTaskAnswer,
  type StartedActivityTask,
  startActivity,
} from './task-start.js';
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
    // An empty task when the poll times out: no taskToken, startedEventId 0.
    const empty = { startedEventId: 0 };
    if (task === undefined) return empty;
    return answerPoll(deps, request, list, task, (t) => activityTaskAnswer(deps, t), empty);
  },
);

function claimActivityTask(deps: OperationDeps, entry: QueueEntry, identity: string | undefined) {
  return claimQueuedTask<StartedActivityTask>(deps, entry, ({ state, recentEvents }) => {
    // entryStatus found it scheduled and not started on this list.
    const activity = activityByScheduledId(state, entry.scheduledEventId) as ActivityState;
    return startActivity(deps, state, activity, identity, recentEvents ?? []);
  });
}

const unknownActivity = (claims: TaskTokenClaims) =>
  new UnknownResourceFault(`Unknown activity, scheduledEventId = ${claims.scheduledEventId}`);

/**
 * The started activity a token names, or the fault SWF gives for a token that no longer applies: its
 * run closed, the activity closed, or one of its timeouts passed (the fire that records it may not
 * have come yet: see passedDeadline).
 */
async function tokenActivity(
  deps: OperationDeps,
  state: ExecutionState,
  claims: TaskTokenClaims,
): Promise<ActivityState> {
  if (state.status !== 'OPEN') throw closedExecution(state);
  const activity = activityByScheduledId(state, claims.scheduledEventId);
  if (activity === undefined || activity.startedEventId !== claims.startedEventId)
    throw unknownActivity(claims);
  const task = { kind: 'activity' as const, scheduledEventId: claims.scheduledEventId };
  if (await timedOutUnfired(deps, state, task)) throw unknownActivity(claims);
  return activity;
}

/** The run a token names, once the caller may act in its domain (SWF's resource is the domain). */
async function loadForToken(
  deps: OperationDeps,
  request: RequestContext,
  action: string,
  taskToken: string,
): Promise<{ claims: TaskTokenClaims; loaded: LoadedRun }> {
  const claims = await deps.taskTokens.decode(taskToken, 'activity');
  const loaded = await deps.runs.loadRun(claims.runId);
  if (loaded === undefined) throw unknownActivity(claims);
  authorizeInDomain(deps, request, action, loaded.state.domain);
  return { claims, loaded };
}

export const recordActivityTaskHeartbeat = operation<{ taskToken: string; details?: string }>(
  async (input, deps, request) => {
    const { claims, loaded } = await loadForToken(
      deps,
      request,
      'RecordActivityTaskHeartbeat',
      input.taskToken,
    );
    const activity = await tokenActivity(deps, loaded.state, claims);
    // The heartbeat expires by itself at the run's latest expiry: one written as the run closes, after
    // the close marked the run's items, is not kept forever.
    const retention = await domainRetention(deps, loaded.state.domain);
    await deps.heartbeats.putHeartbeat(
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
  action: string,
  outcomeOf: (input: Record<string, string | undefined>) => ActivityOutcome,
) =>
  operation<{ taskToken: string } & Record<string, string | undefined>>(
    async (input, deps, request) => {
      const { claims, loaded } = await loadForToken(deps, request, action, input.taskToken);
      return mutateRun(
        deps,
        claims.runId,
        async ({ state }) => {
          const activity = await tokenActivity(deps, state, claims);
          const t = closeActivityTask(state, activity, outcomeOf(input), epochSeconds(deps.clock));
          return { write: true, result: undefined, state: t.state, events: t.events };
        },
        loaded,
      );
    },
  );

const present = <K extends string>(key: K, value: string | undefined) =>
  value === undefined ? {} : { [key]: value };

export const respondActivityTaskCompleted = respondActivity(
  'RespondActivityTaskCompleted',
  (i) => ({
    kind: 'completed',
    ...present('result', i.result),
  }),
);
export const respondActivityTaskFailed = respondActivity('RespondActivityTaskFailed', (i) => ({
  kind: 'failed',
  ...present('reason', i.reason),
  ...present('details', i.details),
}));
export const respondActivityTaskCanceled = respondActivity('RespondActivityTaskCanceled', (i) => ({
  kind: 'canceled',
  ...present('details', i.details),
}));

const countPending = (kind: 'decision' | 'activity') =>
  operation<{ domain: string; taskList: TaskList }>(async (input, deps) => {
    await requireDomain(deps, input.domain, RECENT_REGISTRY);
    const count = await deps.taskQueues.countQueue(kind, input.domain, input.taskList.name);
    return { count, truncated: false };
  });

export const countPendingActivityTasks = countPending('activity');
export const countPendingDecisionTasks = countPending('decision');
