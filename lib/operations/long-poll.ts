import type { ExecutionState } from '../core/execution-state.js';
import { LimitExceededFault, UnknownResourceFault } from '../core/faults.js';
import type { HistoryEvent } from '../core/history-event.js';
import { entryStatus, type TaskKind } from '../core/task-queue.js';
import { epochSeconds } from '../ports/clock.js';
import type { LoadedRun, QueueEntry } from '../ports/execution-store.js';
import type { HandoffStarter } from '../ports/task-notifier.js';
import type { OperationDeps, RequestContext } from './context.js';
import { mutateRun } from './run-mutation.js';

/** What a poller made of one queue entry: its task, or it was left (not committed yet), or removed. */
export type Take<T> = { readonly task: T } | 'pending' | 'dropped';

/** SWF's quota on pollers of one task list (swf-api.md §4). */
const MAX_POLLERS = 1000;
/** How many queue heads a poll looks at. */
const PEEK = 10;

/**
 * A long poll: take a task now if one is queued, else wait for one until the poll's time is up (then
 * the caller answers with an empty task). The waiter is registered before each look at the queue, so a
 * task queued in between still wakes it. A poll whose caller has gone takes nothing.
 */
export async function longPoll<T>(
  deps: OperationDeps,
  request: RequestContext,
  list: { kind: TaskKind; domain: string; taskList: string },
  take: (entry: QueueEntry) => Promise<Take<T>>,
  handoff?: HandoffStarter,
): Promise<T | undefined> {
  const { kind, domain, taskList } = list;
  if (deps.notifier.waiting(kind, domain, taskList) >= MAX_POLLERS) {
    throw new LimitExceededFault(
      `More than ${MAX_POLLERS} pollers are waiting on task list ${taskList}`,
    );
  }
  const deadline = deps.clock.now() + deps.polling.maxWaitMs;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  request.signal.addEventListener('abort', onAbort, { once: true });
  try {
    while (!request.signal.aborted) {
      const remaining = deadline - deps.clock.now();
      const wait = deps.notifier.wait(
        kind,
        domain,
        taskList,
        Math.min(remaining, deps.polling.recheckMs),
        stop.signal,
      );
      const taken = await takeFirst(deps, request, list, take);
      if (taken !== undefined || remaining <= 0) return taken;
      // The queue was empty: a task scheduled from now on may be started for this poller directly.
      if (handoff !== undefined) wait.acceptHandoff(handoff);
      const handed = await wait.done;
      if (handed !== undefined) return handed.result as T;
    }
    return undefined;
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    stop.abort();
  }
}

async function takeFirst<T>(
  deps: OperationDeps,
  request: RequestContext,
  list: { kind: TaskKind; domain: string; taskList: string },
  take: (entry: QueueEntry) => Promise<Take<T>>,
): Promise<T | undefined> {
  for (;;) {
    const entries = await deps.executions.peekQueue(list.kind, list.domain, list.taskList, PEEK);
    if (entries.length === 0) return undefined;
    // Strictly in queue order (priority, then age: swf-api.md §5.6); a poller that loses the head
    // to another one moves on to the next entry, as does one that finds another poller of this
    // process already on it.
    let dropped = false;
    for (const entry of entries) {
      if (request.signal.aborted) return undefined;
      const release = deps.notifier.goFor(entry);
      if (release === undefined) continue;
      let taken: Take<T>;
      try {
        taken = await take(entry);
      } finally {
        release();
      }
      if (taken === 'dropped') dropped = true;
      else if (taken !== 'pending') return taken.task;
    }
    // Every head was stale, taken by others or not committed yet: look again if any went (more may
    // wait behind them), else wait to be woken.
    if (!dropped) return undefined;
  }
}

/** A task started from a queue entry: the run's new state, its events, what the poll answers. */
export interface StartedFromQueue<T> {
  readonly state: ExecutionState;
  readonly events: readonly HistoryEvent[];
  readonly result: T;
}

/**
 * Starts the task of a queue entry if its run still has it scheduled on that list, in one conditional
 * commit that also removes the entry. Of several pollers holding the same entry only one commits (the
 * run's version decides); the others find the task started and drop the entry. An entry whose commit
 * has not landed yet is left for later; one whose task is gone is removed.
 */
export async function claimQueuedTask<T>(
  deps: OperationDeps,
  entry: QueueEntry,
  start: (loaded: LoadedRun) => StartedFromQueue<T>,
): Promise<Take<T>> {
  const now = () => epochSeconds(deps.clock);
  let status: ReturnType<typeof entryStatus> = 'stale';
  let task: T | undefined;
  try {
    task = await mutateRun(
      deps,
      entry.runId,
      (loaded) => {
        status = entryStatus(loaded.state, entry, now());
        if (status !== 'claimable') return { write: false, result: undefined };
        const started = start(loaded);
        return { write: true, ...started, claim: entry };
      },
      undefined,
      // Its start would take the run's history past its limit: the run is terminated, no task given.
      () => undefined,
    );
  } catch (error) {
    if (!(error instanceof UnknownResourceFault)) throw error;
    status = entryStatus(undefined, entry, now());
  }
  if (task !== undefined) return { task };
  if (status === 'pending') return 'pending';
  await deps.executions.dropQueueEntries([entry]);
  return 'dropped';
}
