/**
 * What an execution's task queues should hold is a function of its state: its scheduled-but-unstarted
 * decision task and activity tasks, while it is open. Diffing two states gives the queue writes of a
 * transition, so handing out, cancelling, timing out or closing all withdraw tasks the same way.
 */
import type { ExecutionState, QueuedTask } from './execution-state.js';

export type TaskKind = 'decision' | 'activity';

export interface QueuedTaskRef {
  readonly kind: TaskKind;
  readonly domain: string;
  readonly runId: string;
  readonly taskList: string;
  readonly taskPriority: string;
  /** Epoch seconds. */
  readonly scheduledAt: number;
  readonly scheduledEventId: number;
}

export interface QueueChanges {
  readonly add: readonly QueuedTaskRef[];
  readonly remove: readonly QueuedTaskRef[];
}

export const noQueueChanges: QueueChanges = { add: [], remove: [] };

export function queuedTasks(state: ExecutionState | undefined): QueuedTaskRef[] {
  return unstartedTasks(state)
    .filter((t) => t.pushTo === undefined)
    .map(({ pushTo: _, ...task }) => task);
}

/** A task scheduled on a push task list, not started yet: the outbox starts it for its function. */
export interface PushedTaskRef extends QueuedTaskRef {
  readonly target: string;
}

/** The run's tasks waiting for the outbox to start them and hand them to their push functions. */
export function pushedTasks(state: ExecutionState | undefined): PushedTaskRef[] {
  return unstartedTasks(state).flatMap(({ pushTo, ...task }) =>
    pushTo === undefined ? [] : [{ ...task, target: pushTo }],
  );
}

/** The run's scheduled, unstarted tasks while it is open, with where each is served. */
function unstartedTasks(
  state: ExecutionState | undefined,
): (QueuedTaskRef & { pushTo?: string })[] {
  if (state === undefined || state.status !== 'OPEN') return [];
  const base = { domain: state.domain, runId: state.execution.runId };
  const tasks: (QueuedTaskRef & { pushTo?: string })[] = [];
  const d = state.decisionTask;
  if (d.status === 'scheduled') tasks.push({ ...base, kind: 'decision', ...taskPlace(d) });
  for (const a of Object.values(state.activities)) {
    if (a.startedEventId === undefined) tasks.push({ ...base, kind: 'activity', ...taskPlace(a) });
  }
  return tasks;
}

const taskPlace = (t: QueuedTask & { readonly scheduledEventId: number }) => ({
  taskList: t.taskList,
  taskPriority: t.taskPriority,
  scheduledAt: t.scheduledAt,
  scheduledEventId: t.scheduledEventId,
  ...(t.pushTo === undefined ? {} : { pushTo: t.pushTo }),
});

/**
 * The state with a task it has just scheduled given to the function of its push task list instead of
 * the queue. The task must be scheduled and unstarted in `state` (as `queueChanges` reported it).
 */
export function pushTask(
  state: ExecutionState,
  task: QueuedTaskRef,
  target: string,
): ExecutionState {
  if (task.kind === 'decision') {
    const d = state.decisionTask;
    if (d.status !== 'scheduled' || d.scheduledEventId !== task.scheduledEventId)
      throw new Error(`decision task ${task.scheduledEventId} is not scheduled`);
    return { ...state, decisionTask: { ...d, pushTo: target } };
  }
  const activity = Object.values(state.activities).find(
    (a) => a.scheduledEventId === task.scheduledEventId && a.startedEventId === undefined,
  );
  if (activity === undefined)
    throw new Error(`activity task ${task.scheduledEventId} is not scheduled`);
  return {
    ...state,
    activities: { ...state.activities, [activity.activityId]: { ...activity, pushTo: target } },
  };
}

/** A task's identity within its run: its kind and the id of the event that scheduled it. */
export const taskKey = (t: Pick<QueuedTaskRef, 'kind' | 'scheduledEventId'>) =>
  `${t.kind}:${t.scheduledEventId}`;

export function queueChanges(
  before: ExecutionState | undefined,
  after: ExecutionState,
): QueueChanges {
  const was = new Map(queuedTasks(before).map((t) => [taskKey(t), t]));
  const now = new Map(queuedTasks(after).map((t) => [taskKey(t), t]));
  return {
    add: [...now].filter(([id]) => !was.has(id)).map(([, t]) => t),
    remove: [...was].filter(([id]) => !now.has(id)).map(([, t]) => t),
  };
}

/**
 * How long a queue entry whose task is not in its run's state may be waiting for the commit that
 * schedules it (entries are written just before that commit). Far beyond any commit's retries.
 */
export const UNCOMMITTED_ENTRY_GRACE_SECONDS = 60;

/**
 * How long after its run's latest change an entry whose task left the queue is left to the writer of
 * that change, which removes it just after its commit: a poller that peeked it before then would
 * only delete it a second time (a write unit for nothing). One that stays longer is dropped.
 */
export const REMOVAL_GRACE_SECONDS = 5;

/**
 * What a poller may do with a queue entry, judged on its run's latest state (undefined: no such run):
 * start its task (`claimable`); leave it, as the commit that schedules its task has not landed yet or
 * the commit that started or withdrew it is removing it (`pending`); or remove it, as its task was
 * started or withdrawn a while ago, or never committed (`stale`).
 */
export function entryStatus(
  state: ExecutionState | undefined,
  entry: QueuedTaskRef,
  nowSeconds: number,
): 'claimable' | 'pending' | 'stale' {
  const uncommitted = state === undefined || entry.scheduledEventId >= state.nextEventId;
  if (uncommitted)
    return nowSeconds - entry.scheduledAt < UNCOMMITTED_ENTRY_GRACE_SECONDS ? 'pending' : 'stale';
  const same = queuedTasks(state).find((t) => t.scheduledEventId === entry.scheduledEventId);
  if (same !== undefined)
    return same.kind === entry.kind && same.taskList === entry.taskList ? 'claimable' : 'stale';
  const changedAt = state.latestEventTimestamp ?? state.startTimestamp;
  return nowSeconds - changedAt < REMOVAL_GRACE_SECONDS ? 'pending' : 'stale';
}
