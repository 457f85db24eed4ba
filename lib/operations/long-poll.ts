import { type ExecutionState, isStartedDecisionTask } from '../core/execution-state.js';
import { UnknownResourceFault } from '../core/faults.js';
import type { HistoryEvent } from '../core/history-event.js';
import { entryStatus, type QueuedTaskRef, type TaskKind, taskKey } from '../core/task-queue.js';
import { epochSeconds } from '../ports/clock.js';
import type { LoadedRun } from '../ports/run-store.js';
import type { HandoffStarter } from '../ports/task-notifier.js';
import type { QueueEntry } from '../ports/task-queue-store.js';
import type { WakeListener } from '../ports/task-wakes.js';
import { isTransientFailure } from '../ports/transient-failure.js';
import type { OperationDeps, RequestContext } from './context.js';
import { MAX_POLLERS, pollAdmission, warn } from './poller-admission.js';
import { mutateRun, timedOutUnfired } from './run-mutation.js';

/** What a poller made of one queue entry: its task, or it was left (not committed yet), or removed. */
export type Take<T> = { readonly task: T } | 'pending' | 'dropped';

/** How many queue heads a poll looks at first. */
const PEEK = 10;
/**
 * How far it looks past heads that other pollers of the process hold or whose commit has not landed:
 * up to as many as there may be pollers, each holding one.
 */
const MAX_PEEK = MAX_POLLERS;

/**
 * How long after its scheduling a task's wake may still be on its way to a waiting poll (the commit,
 * the send, the receive): until then another poll leaves the task to the one woken for it.
 */
export const WAKE_IN_FLIGHT_MS = 500;
/** A poll with less time than this left takes what it finds, wake or none. */
const LEAVE_YOUNG_MIN_REMAINING_MS = 2_000;
/** How long a poll that left entries to their wakes waits before it looks whether they were taken. */
const SHORT_WAIT_MS = 1_000;

/**
 * Whether an entry was scheduled less than `leaveMs` before `nowMs` (both the service's clock):
 * its wake may still be on its way to the poll it wakes.
 */
export const wakeInFlight = (entry: QueuedTaskRef, nowMs: number, leaveMs: number): boolean =>
  leaveMs > 0 && nowMs - entry.scheduledAt * 1000 < leaveMs;

/** The list a poll is for. */
type PollList = { kind: TaskKind; domain: string; taskList: string };

/** One long poll as it waits: what it polls, how it takes an entry, until when. */
interface Poll<T> {
  readonly deps: OperationDeps;
  readonly request: RequestContext;
  readonly list: PollList;
  readonly take: (entry: QueueEntry) => Promise<Take<T>>;
  readonly handoff: HandoffStarter | undefined;
  /** Epoch ms (the service's clock) by which the poll answers. */
  readonly deadline: number;
  /** Aborted when the poll ends, its caller gone or its answer chosen. */
  readonly stop: AbortSignal;
  /**
   * Takes the poll's place among the list's waiting polls before it waits for long; true when it
   * has just taken it (the poll then looks at its queue once more before waiting).
   */
  readonly admit: () => Promise<boolean>;
  /** Whether another poll waits on the list (the wake of a task queued now may be its). */
  readonly othersWaiting: () => Promise<boolean>;
}

/**
 * Where one turn of a waiting poll leaves it: with a task, at its time's end, or to go round again
 * (looking at the queue at once or not; with its wake channel or, that failing, by rechecks).
 */
type Turn<T> =
  | { readonly task: T }
  | 'time-up'
  | { readonly look: Look; readonly channelLost?: true };

/**
 * When a poll next reads its queue: at once, after a short wait on its channel (it left entries to
 * the polls their wakes went to, and looks whether they took them), or only when woken.
 */
type Look = 'now' | 'soon' | 'when-woken';

/**
 * A long poll: take a task now if one is queued, else wait for one until the poll's time is up (then
 * the caller answers with an empty task). The waiter is registered before each look at the queue, so a
 * task queued in between still wakes it. A poll whose caller has gone takes nothing.
 */
export async function longPoll<T extends TaskInHand>(
  deps: OperationDeps,
  request: RequestContext,
  list: PollList,
  take: (entry: QueueEntry) => Promise<Take<T>>,
  handoff?: HandoffStarter,
): Promise<T | undefined> {
  // The poll's time runs from when the edge took the request: under a burst, its turn may come later.
  const waited = request.receivedAt === undefined ? 0 : performance.now() - request.receivedAt;
  const deadline = deps.clock.now() + deps.polling.maxWaitMs - Math.max(0, waited);
  const admission = await pollAdmission(deps, list, deadline);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  request.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const { admit, othersWaiting } = admission;
    const poll = {
      deps,
      request,
      list,
      take,
      handoff,
      deadline,
      stop: stop.signal,
      admit,
      othersWaiting,
    };
    return await waitForTask(poll);
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    stop.abort();
    await admission.release();
  }
}

/** Turns of a poll until it has a task, its time is up or its caller left. */
async function waitForTask<T extends TaskInHand>(poll: Poll<T>): Promise<T | undefined> {
  const { deps, request, list, deadline } = poll;
  // Listening before the first look: a task queued after it wakes this poll.
  let wakes = await listenForWakes(deps, list);
  // A new poll looks at once, as does one woken by a notify; see lookAgain for those whose time ran out.
  let look = 'now' as Look;
  while (!request.signal.aborted) {
    const left = await adoptLeftTask(poll);
    if (left !== undefined) return left;
    const remaining = deadline - deps.clock.now();
    // The channel waits whole seconds: under one left, the poll waits out its time by rechecks.
    const turn: Turn<T> =
      wakes !== undefined && remaining >= 1_000
        ? await channelTurn(poll, wakes, look, remaining)
        : await recheckTurn(poll, look !== 'when-woken', remaining);
    if (turn === 'time-up') return undefined;
    if ('task' in turn) return turn.task;
    // A channel or a read that failed leaves the poll to its rechecks from now on.
    if (turn.channelLost) wakes = undefined;
    look = turn.look;
  }
  return undefined;
}

/** A task another poll of the process started and whose caller left, if it is still started. */
async function adoptLeftTask<T extends TaskInHand>(poll: Poll<T>): Promise<T | undefined> {
  const { deps, list } = poll;
  for (
    let left = deps.notifier.adopt(list.kind, list.domain, list.taskList);
    left !== undefined;
    left = deps.notifier.adopt(list.kind, list.domain, list.taskList)
  ) {
    const task = left.result as T;
    if (await stillStarted(deps, list.kind, task)) return task;
  }
  return undefined;
}

/**
 * A turn on the wake channel: look at the queue (when due), then wait for a wake and go for the task
 * it names. Having read the queue, or heard nothing, the poll waits again without a look; having left
 * entries to the polls their wakes went to, it looks again after a short wait.
 */
async function channelTurn<T>(
  poll: Poll<T>,
  wakes: WakeListener,
  look: Look,
  remaining: number,
): Promise<Turn<T>> {
  // With time to look again, tasks whose wakes are on their way are left to the polls they wake.
  const leaveMs = remaining >= LEAVE_YOUNG_MIN_REMAINING_MS ? WAKE_IN_FLIGHT_MS : 0;
  let soon = look === 'soon';
  if (look === 'now') {
    const taken = await takeFirst(poll, leaveMs).catch(failedForAMoment);
    // A read that failed is tried again on time, as where no wake reaches.
    if (taken === 'failed') return { look: 'now', channelLost: true };
    if (taken === 'left') soon = true;
    else if (taken !== undefined) return { task: taken };
  }
  const wait = soon ? Math.min(remaining, SHORT_WAIT_MS) : remaining;
  // A moment's wait for wakes on their way is not a poll waiting for work: no lease. A poll that
  // has just taken its lease looks once more: a commit before it saw no poll waiting, sent no wake.
  if (!soon && (await poll.admit())) return { look: 'now' };
  const woken = await wakes.next(wait, poll.stop).catch(channelFailed);
  if (woken === 'failed') return { look: soon ? 'now' : 'when-woken', channelLost: true };
  if (woken === undefined) return { look: soon ? 'now' : 'when-woken' };
  const named = await takeNamed(poll, woken.task, leaveMs).catch(failedForAMoment);
  if (named === 'failed') return { look: 'now', channelLost: true };
  if (named === 'left') return { look: 'soon' };
  // Nothing for it: the queue was read to its end just now (takeNamed), nothing left to a wake.
  return named === undefined ? { look: 'when-woken' } : { task: named };
}

/**
 * A turn where no wake channel reaches the poll: look at the queue (when due), then wait for a
 * notify of the process, a task handed over, or the next recheck.
 */
async function recheckTurn<T>(poll: Poll<T>, look: boolean, remaining: number): Promise<Turn<T>> {
  const { deps, list } = poll;
  const wait = deps.notifier.wait(
    list.kind,
    list.domain,
    list.taskList,
    Math.min(remaining, deps.polling.recheckMs),
    poll.stop,
  );
  let failed = false;
  if (look) {
    const taken = await takeFirst(poll, 0).catch(failedForAMoment);
    if (taken === 'failed') failed = true;
    // Nothing is left to a wake here (no leave time): 'left' cannot come.
    else if (taken !== undefined && taken !== 'left') return { task: taken };
  }
  if (remaining <= 0) return 'time-up';
  await poll.admit();
  // The queue was empty: a task scheduled from now on may be started for this poller directly.
  if (poll.handoff !== undefined) wait.acceptHandoff(poll.handoff);
  const handed = await wait.done;
  if (handed !== undefined) return { task: handed.result as T };
  // A look that failed is tried again at the next recheck, whichever poll of the list is due.
  const again = !wait.endedByTime() || failed || lookAgain(deps, list, poll.deadline);
  return { look: again ? 'now' : 'when-woken' };
}

/** The list's wake channel, where polls have one; a channel that fails leaves the poll to its rechecks. */
async function listenForWakes(
  deps: OperationDeps,
  list: PollList,
): Promise<WakeListener | undefined> {
  if (deps.wakes === undefined) return undefined;
  try {
    return await deps.wakes.listen(list.kind, list.domain, list.taskList);
  } catch (error) {
    channelFailed(error);
    return undefined;
  }
}

function channelFailed(error: unknown): 'failed' {
  warn('wake channel failed; polls recheck', error);
  return 'failed';
}

/**
 * A woken poll goes first for the task its wake names (one wake, one poll: no herd at the head of
 * the queue), if it is on this list; else, or if that task went to another poll, to the queue's head.
 */
async function takeNamed<T>(
  poll: Poll<T>,
  named: QueuedTaskRef | undefined,
  leaveMs: number,
): Promise<T | undefined | 'failed' | 'left'> {
  const { deps, list, take } = poll;
  const onList =
    named !== undefined &&
    named.kind === list.kind &&
    named.domain === list.domain &&
    named.taskList === list.taskList;
  const release = onList ? deps.notifier.goFor(named) : undefined;
  if (named !== undefined && release !== undefined) {
    let taken: Take<T>;
    try {
      taken = await take({ ...named, named: true });
    } finally {
      release();
    }
    if (typeof taken === 'object') return taken.task;
  }
  return takeFirst(poll, leaveMs);
}

/**
 * Whether a poll whose wait ran out reads its queue again. At its deadline, only where no wake
 * reaches it (a task queued in the process would have woken it); before, once per list per interval.
 */
function lookAgain(deps: OperationDeps, list: PollList, deadline: number): boolean {
  if (deadline - deps.clock.now() <= 0) return !deps.notifier.wakesOnQueue;
  return deps.notifier.lookDue(list.kind, list.domain, list.taskList, deps.polling.recheckMs);
}

/**
 * A poll's answer with the task it got, built by `build` (which may read the history). A caller that
 * left by then (as the commit that started the task landed, or while the answer was built) never
 * receives it: the task goes to the next poll on the list, and the answer is `empty` (nobody reads
 * it). A poll ended by a stopping server or the Lambda's deadline still has its caller: it answers.
 */
export async function answerPoll<T extends TaskInHand, A>(
  deps: OperationDeps,
  request: RequestContext,
  list: PollList,
  task: T,
  build: (task: T) => Promise<A>,
  empty: A,
): Promise<A> {
  const answer = await build(task);
  if (request.callerGone?.aborted !== true) return answer;
  deps.notifier.orphan(list.kind, list.domain, list.taskList, task);
  return empty;
}

/** What a poll holds of a task it started: the run as the start left it, and the started event. */
export interface TaskInHand {
  readonly state: ExecutionState;
  readonly startedEventId: number;
}

/**
 * Whether a task a gone caller left is still started on its run: not timed out, answered, withdrawn
 * or closed with its run while it waited for the next poll.
 */
async function stillStarted(deps: OperationDeps, kind: TaskKind, task: TaskInHand) {
  const state = (await deps.runs.loadRun(task.state.execution.runId))?.state;
  if (state?.status !== 'OPEN') return false;
  const decision = state.decisionTask;
  const scheduledEventId =
    kind === 'decision'
      ? isStartedDecisionTask(state, task.startedEventId) && decision.status === 'started'
        ? decision.scheduledEventId
        : undefined
      : Object.values(state.activities).find((a) => a.startedEventId === task.startedEventId)
          ?.scheduledEventId;
  // Past one of its timeouts (or the run's), its fire not come: as good as timed out.
  return (
    scheduledEventId !== undefined &&
    !(await timedOutUnfired(deps, state, { kind, scheduledEventId }))
  );
}

/**
 * What a look at the queue that failed for a moment (throttled, a 5xx, a timeout) comes to: nothing
 * taken, and the poll looks again later; its time up, it answers empty, never a fault. A failed read
 * takes nothing, and a claim whose commit did not land leaves its entry queued. Any other error is
 * thrown on.
 */
function failedForAMoment(error: unknown): 'failed' {
  if (!isTransientFailure(error)) throw error;
  warn('a waiting poll could not read its queue; it looks again', error);
  return 'failed';
}

/**
 * A read of the list's head, given up at the poll's deadline: a read the client retries under
 * throttling may outlast it, and the poll must answer in time. What it would have found stays queued.
 * Where polls may not wait at all (maxWaitMs 0), there is no time to keep: a poll reads to the end.
 */
async function peekBy(
  deps: OperationDeps,
  list: PollList,
  limit: number,
  deadline: number,
): Promise<QueueEntry[] | 'late'> {
  const read = deps.taskQueues.peekQueue(list.kind, list.domain, list.taskList, limit);
  if (deps.polling.maxWaitMs <= 0) return read;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, deadline - deps.clock.now()));
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
    // A read given up may still fail: nobody waits for it.
    read.catch(() => {});
  }
}

/**
 * The first task of the list this poll can take, or undefined; 'failed' when a read outlasted the
 * poll's deadline; 'left' when it took nothing but left entries scheduled less than `leaveMs` ago:
 * their wakes are on their way to other polls, which go for them (racing them would only make one
 * of the two claims lose), and the poll looks again shortly in case a wake was lost.
 */
async function takeFirst<T>(
  poll: Poll<T>,
  leaveMs: number,
): Promise<T | undefined | 'failed' | 'left'> {
  const { deps, request, list, take, deadline } = poll;
  let left = false;
  // Young entries are left only where another poll waits, which their wakes may have gone to.
  let leaving: boolean | undefined = leaveMs > 0 ? undefined : false;
  let limit = PEEK;
  // Entries this poll is done with: another poller of this process holds them, their commit has not
  // landed, or this poll dropped them.
  const passed = new Set<string>();
  for (;;) {
    const entries = await peekBy(deps, list, limit, deadline);
    if (entries === 'late') return 'failed';
    // Strictly in queue order (priority, then age, as SWF hands them out); a poller that loses the head
    // to another one moves on to the next entry, as does one that finds another poller of this
    // process already on it.
    let dropped = false;
    for (const entry of entries) {
      if (request.signal.aborted) return undefined;
      const id = `${entry.runId}|${taskKey(entry)}`;
      if (passed.has(id)) continue;
      const young = leaving !== false && wakeInFlight(entry, deps.clock.now(), leaveMs);
      if (young) leaving ??= await poll.othersWaiting();
      if (young && leaving) {
        passed.add(id);
        left = true;
        continue;
      }
      const release = deps.notifier.goFor(entry);
      if (release === undefined) {
        passed.add(id);
        continue;
      }
      let taken: Take<T>;
      try {
        taken = await take(entry);
      } finally {
        release();
      }
      if (taken === 'dropped') {
        // Not looked at again by this poll, even were its removal lost.
        passed.add(id);
        dropped = true;
      } else if (taken === 'pending') passed.add(id);
      else return taken.task;
    }
    // Some heads were stale and went: look again, more may wait behind them. Every head was left:
    // look past them, as older tasks than the next one scheduled may wait there (a poll that finds
    // nothing takes that one first). Else the queue has nothing for this poll: wait to be woken.
    if (dropped) continue;
    if (entries.length < limit || limit >= MAX_PEEK) return left ? 'left' : undefined;
    limit = Math.min(limit * 4, MAX_PEEK);
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
  // A wake's task found gone was, almost always, started from the queue, its entry removed: a
  // delete would be a write unit for nothing. An entry left behind goes with the next look's.
  if (entry.named !== true) await deps.taskQueues.dropQueueEntries([entry]);
  return 'dropped';
}
