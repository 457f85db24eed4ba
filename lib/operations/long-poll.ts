import { LimitExceededFault } from '../core/faults.js';
import type { TaskKind } from '../core/task-queue.js';
import type { QueueEntry } from '../ports/execution-store.js';
import type { HandoffStarter } from '../ports/task-notifier.js';
import type { OperationDeps, RequestContext } from './context.js';
import { ClaimLost } from './run-mutation.js';

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
  take: (entry: QueueEntry) => Promise<T | undefined>,
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
  take: (entry: QueueEntry) => Promise<T | undefined>,
): Promise<T | undefined> {
  for (;;) {
    const entries = await deps.executions.peekQueue(list.kind, list.domain, list.taskList, PEEK);
    if (entries.length === 0) return undefined;
    // Strictly in queue order (priority, then age: swf-api.md §5.6); a poller that loses the head
    // to another one moves on to the next entry.
    let lost = false;
    for (const entry of entries) {
      if (request.signal.aborted) return undefined;
      try {
        const taken = await take(entry);
        if (taken !== undefined) return taken;
      } catch (error) {
        if (!(error instanceof ClaimLost)) throw error;
        lost = true;
      }
    }
    // Every head was stale or taken by others; look again unless nothing was contested.
    if (!lost) return undefined;
  }
}
