/**
 * What an execution's task queues should hold is a function of its state: its scheduled-but-unstarted
 * decision task and activity tasks, while it is open. Diffing two states gives the queue writes of a
 * transition, so handing out, cancelling, timing out or closing all withdraw tasks the same way.
 */
import { passedDeadline } from './deadlines.js';
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

/** The run's scheduled, unstarted tasks while it is open: what its task lists' queues hold of it. */
export function queuedTasks(state: ExecutionState | undefined): QueuedTaskRef[] {
  if (state === undefined || state.status !== 'OPEN') return [];
  const base = { domain: state.domain, runId: state.execution.runId };
  const tasks: QueuedTaskRef[] = [];
  const d = state.decisionTask;
  if (d.status === 'scheduled') tasks.push({ ...base, kind: 'decision', ...taskPlace(d) });
  for (const a of Object.values(state.activities)) {
    if (a.startedEventId === undefined) tasks.push({ ...base, kind: 'activity', ...taskPlace(a) });
  }
  return tasks;
}

/**
 * A task scheduled on a push task list: never queued, it is started in the commit that schedules it,
 * for the list's function, and handed to that function once the commit has landed.
 */
export interface PushedTaskRef extends QueuedTaskRef {
  readonly target: string;
}

const taskPlace = (t: QueuedTask & { readonly scheduledEventId: number }) => ({
  taskList: t.taskList,
  taskPriority: t.taskPriority,
  scheduledAt: t.scheduledAt,
  scheduledEventId: t.scheduledEventId,
});

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
  if (same !== undefined) {
    if (same.kind !== entry.kind || same.taskList !== entry.taskList) return 'stale';
    // Its schedule-to-start or schedule-to-close timeout (or the run's) has passed, the fire not come
    // yet: it is as good as timed out, and the fire's commit withdraws it and removes the entry.
    const task = { kind: entry.kind, scheduledEventId: entry.scheduledEventId };
    return passedDeadline(state, task, nowSeconds) === undefined ? 'claimable' : 'pending';
  }
  const changedAt = state.latestEventTimestamp ?? state.startTimestamp;
  return nowSeconds - changedAt < REMOVAL_GRACE_SECONDS ? 'pending' : 'stale';
}
