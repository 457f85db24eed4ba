import { passedDeadline, type TaskRef, withAlarm } from '../core/deadlines.js';
import type { ExecutionState } from '../core/execution-state.js';
import { passesEventLimit, terminateForEventLimit } from '../core/executions.js';
import { faultText, ThrottlingException, UnknownResourceFault } from '../core/faults.js';
import type { HistoryEvent } from '../core/history-event.js';
import { commitMetrics } from '../core/swf-metrics.js';
import {
  type QueueChanges,
  type QueuedTaskRef,
  queueChanges,
  taskKey,
} from '../core/task-queue.js';
import { upFrontExpiry } from '../core/visibility.js';
import { epochSeconds } from '../ports/clock.js';
import type { CommitOutcome, LoadedRun, OpenPointerChange, RunWrite } from '../ports/run-store.js';
import type { Reservation } from '../ports/task-notifier.js';
import type { OperationDeps } from './context.js';
import { pollsWaitOn } from './poller-admission.js';
import { deliverPushes, type StartedPush } from './task-push.js';
import { pushHandoff } from './task-start.js';
import { domainRetention } from './visibility-sync.js';

const MAX_ATTEMPTS = 50;

/** Jittered exponential backoff between attempts, capped near 0.3 s. */
const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** Math.min(attempt, 6)));

/**
 * Other writers of the run kept committing first, through every attempt: the run changes faster than
 * this request can get a change in. Answered as SWF answers a request over its rate (400,
 * ThrottlingException), which clients retry after a pause, not as a failure of the service.
 */
export class RunContendedError extends ThrottlingException {
  override readonly name = 'RunContendedError';
}

/** What a step decided: nothing to write, or a new state with its events (and maybe a second run). */
export type MutationPlan<R> =
  | { readonly write: false; readonly result: R }
  | {
      readonly write: true;
      readonly result: R;
      readonly state: ExecutionState;
      readonly events: readonly HistoryEvent[];
      readonly claim?: QueuedTaskRef;
      /** A run created by the same commit (continue-as-new). */
      readonly newRun?: {
        readonly state: ExecutionState;
        readonly events: readonly HistoryEvent[];
      };
    };

/**
 * Read → decide → conditional commit, retried from a fresh read when another writer got there first.
 * The step is pure over the loaded state, so a retry simply decides again on newer facts. A caller
 * that has just loaded the run passes it (`loaded`) for the first attempt.
 */
export async function mutateRun<R>(
  deps: OperationDeps,
  runId: string,
  step: (loaded: LoadedRun) => MutationPlan<R> | Promise<MutationPlan<R>>,
  loadedAlready?: LoadedRun,
  /** The result when the run is terminated instead, its history at its limit (default: the step's). */
  atEventLimit?: () => R,
): Promise<R> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const loaded =
      attempt === 0 && loadedAlready !== undefined ? loadedAlready : await deps.runs.loadRun(runId);
    if (loaded === undefined) throw new UnknownResourceFault(`Unknown execution: runId=${runId}`);
    let plan = await step(loaded);
    if (!plan.write) return plan.result;
    let queue = queueChanges(loaded.state, plan.state);
    if (passesEventLimit(plan.state, queue.add.length)) {
      const t = terminateForEventLimit(loaded.state, epochSeconds(deps.clock));
      plan = {
        write: true,
        result: atEventLimit === undefined ? plan.result : atEventLimit(),
        state: t.state,
        events: t.events,
        ...(plan.claim === undefined ? {} : { claim: plan.claim }),
      };
      queue = queueChanges(loaded.state, plan.state);
    }
    const outcome = await commitPlan(deps, loaded, plan, queue);
    if (outcome === 'committed') return plan.result;
    await backoff(attempt);
  }
  throw new RunContendedError(`execution ${runId} kept changing under ${MAX_ATTEMPTS} attempts`);
}

async function commitPlan<R>(
  deps: OperationDeps,
  loaded: LoadedRun,
  plan: Extract<MutationPlan<R>, { write: true }>,
  /** The plan's queue changes (mutateRun has them already). */
  queue: QueueChanges,
) {
  const before = loaded.state;
  const writes: RunWrite[] = [
    {
      state: plan.state,
      base: loaded,
      events: plan.events,
      queue,
      ...(plan.claim === undefined ? {} : { claim: plan.claim }),
    },
  ];
  if (plan.newRun !== undefined) {
    writes.push({
      state: plan.newRun.state,
      events: plan.newRun.events,
      queue: queueChanges(undefined, plan.newRun.state),
    });
  }
  return commitRuns(deps, writes, pointerChanges(before, plan), [before, undefined]);
}

/**
 * Commits runs' writes. A task a write schedules on a push task list is started in the same commit
 * for the list's function, and the function invoked with it once the commit has landed (by whichever
 * process committed: the API, the stream or the timer function); one on a list where a poller of this
 * process sits idle is started for that poller in the same commit and handed to it when the commit
 * lands. Either way: no queue item, no second commit, no wait. Tasks nobody is waiting for are queued
 * and their pollers woken.
 */
export async function commitRuns(
  deps: OperationDeps,
  writes: readonly RunWrite[],
  pointers: readonly OpenPointerChange[],
  /** Each write's run as it was loaded (undefined for a new run), for `onCommitted`. */
  before: readonly (ExecutionState | undefined)[] = [],
): Promise<CommitOutcome> {
  const handed: { reservation: Reservation; result: unknown }[] = [];
  const pushes: StartedPush[] = [];
  let outcome: CommitOutcome;
  let final: RunWrite[];
  try {
    // Each run's alarm comes forward to a sooner deadline the write made (see withAlarm), and its
    // items get the expiry that is known already (see upFrontExpiry).
    final = await Promise.all(
      writes
        .map((write) => handOff(deps, write, handed, pushes))
        .map(async (write) => {
          const expiresAt = upFrontExpiry(
            write.state,
            await domainRetention(deps, write.state.domain),
          );
          return { ...write, state: withAlarm(write.state), expiresAt };
        }),
    );
    outcome = await deps.runs.commit(final, pointers);
  } catch (error) {
    for (const h of handed) h.reservation.release();
    throw error;
  }
  if (outcome !== 'committed') {
    for (const h of handed) h.reservation.release();
    return outcome;
  }
  for (const h of handed) h.reservation.deliver(h.result);
  notifyQueued(deps, final);
  for (const [i, write] of final.entries()) deps.onCommitted?.(before[i], write.state);
  recordMetrics(deps, final);
  await Promise.all([deliverPushes(deps, pushes), wakeQueued(deps, final)]);
  return outcome;
}

/** SWF's metrics of what landed; a failure to record them never fails the commit's request. */
function recordMetrics(deps: OperationDeps, writes: readonly RunWrite[]): void {
  if (deps.metrics === undefined) return;
  try {
    for (const write of writes)
      deps.metrics.record(commitMetrics(write.base?.state, write.state, write.events));
  } catch (error) {
    console.warn(
      JSON.stringify({ level: 'warn', message: 'metrics not recorded', error: String(error) }),
    );
  }
}

function handOff(
  deps: OperationDeps,
  write: RunWrite,
  handed: { reservation: Reservation; result: unknown }[],
  pushes: StartedPush[],
): RunWrite {
  let { state, events } = write;
  const queued: QueuedTaskRef[] = [];
  for (const task of write.queue.add) {
    const target = deps.push.target(task.kind, task.domain, task.taskList);
    if (target !== undefined) {
      const started = pushHandoff(deps, target, write.base?.recentEvents)(state, task, events);
      // The write has just scheduled it: nothing else can have started or withdrawn it.
      if (started === undefined)
        throw new Error(`${taskKey(task)} of run ${task.runId} cannot be started for ${target}`);
      state = started.state;
      events = [...events, ...started.events];
      pushes.push({ task: { ...task, target }, started: started.result });
      continue;
    }
    // A task already past its timeouts (or its run's), the fire not come, is queued, where polls
    // find it pending (entryStatus), not started for a waiting poller.
    if (passedDeadline(state, task, epochSeconds(deps.clock)) !== undefined) {
      queued.push(task);
      continue;
    }
    const reservation = deps.notifier.reserve(task.kind, task.domain, task.taskList);
    if (reservation === undefined) {
      queued.push(task);
      continue;
    }
    let started: ReturnType<Reservation['start']>;
    try {
      started = reservation.start(state, task, events);
    } finally {
      if (started === undefined) reservation.release();
    }
    if (started === undefined) {
      queued.push(task);
      continue;
    }
    state = started.state;
    events = [...events, ...started.events];
    handed.push({ reservation, result: started.result });
  }
  if (queued.length === write.queue.add.length) return write;
  return { ...write, state, events, queue: { add: queued, remove: write.queue.remove } };
}

/**
 * A run that continues as new hands its workflowId to the new run. One that closes otherwise leaves
 * its pointer (the next start takes it over: see OpenPointerChange), a write saved per execution.
 */
function pointerChanges<R>(
  before: ExecutionState,
  plan: Extract<MutationPlan<R>, { write: true }>,
): OpenPointerChange[] {
  const next = plan.newRun?.state.execution.runId;
  if (before.status !== 'OPEN' || plan.state.status !== 'CLOSED' || next === undefined) return [];
  const { domain, execution } = before;
  return [
    { kind: 'move', domain, workflowId: execution.workflowId, from: execution.runId, to: next },
  ];
}

export function notifyQueued(deps: OperationDeps, writes: readonly RunWrite[]): void {
  for (const write of writes) {
    for (const task of write.queue.add) deps.notifier.notify(task.kind, task.domain, task.taskList);
  }
}

/**
 * Wakes a poll waiting elsewhere for each task queued on a list where polls wait (never fails the
 * commit's request). Where none waits, the next poll finds the task by reading the queue, and the
 * wake's requests are spared: in a busy fleet, most tasks'.
 */
export async function wakeQueued(deps: OperationDeps, writes: readonly RunWrite[]): Promise<void> {
  const { wakes } = deps;
  const queued = writes.flatMap((write) => write.queue.add);
  if (wakes === undefined || queued.length === 0) return;
  const byList = new Map<string, { list: QueuedTaskRef; tasks: QueuedTaskRef[] }>();
  for (const task of queued) {
    const key = `${task.kind}|${task.domain}|${task.taskList}`;
    const entry = byList.get(key) ?? { list: task, tasks: [] };
    entry.tasks.push(task);
    byList.set(key, entry);
  }
  const heard = await Promise.all(
    [...byList.values()].map(async ({ list, tasks }) =>
      (await pollsWaitOn(deps, list)) ? tasks : [],
    ),
  );
  const woken = heard.flat();
  if (woken.length > 0) await wakes.wake(woken);
}

/**
 * The open run of a workflowId, loaded. Its open-run pointer may name a run that is closed or not
 * there (see findOpenRun): that is no open run.
 */
export async function loadOpenRun(
  deps: OperationDeps,
  domain: string,
  workflowId: string,
): Promise<LoadedRun | undefined> {
  const loaded = await loadPointedRun(deps, domain, workflowId);
  return loaded !== undefined && isOpenRunOf(loaded.state, domain, workflowId) ? loaded : undefined;
}

/** The run a workflowId's open-run pointer names, whatever its status, if it is there. */
async function loadPointedRun(
  deps: Pick<OperationDeps, 'runs'>,
  domain: string,
  workflowId: string,
): Promise<LoadedRun | undefined> {
  const runId = await deps.runs.findOpenRun(domain, workflowId);
  return runId === undefined ? undefined : deps.runs.loadRun(runId);
}

/** The run a request names: its runId, else the open run of its workflowId. Open runs only, loaded. */
export async function resolveOpenRun(
  deps: OperationDeps,
  domain: string,
  workflowId: string,
  runId: string | undefined,
): Promise<LoadedRun> {
  const given = runId === '' ? undefined : runId;
  let loaded =
    given === undefined
      ? await loadPointedRun(deps, domain, workflowId)
      : await deps.runs.loadRun(given);
  // By workflowId, a run that continued as new since its pointer was read names the open one.
  for (let hop = 1; given === undefined && hop < MAX_CONTINUED_HOPS; hop++) {
    const next = loaded !== undefined && continuedAsNew(loaded.state) ? loaded.state : undefined;
    if (next?.newExecutionRunId === undefined || !belongsTo(next, domain, workflowId)) break;
    loaded = await deps.runs.loadRun(next.newExecutionRunId);
  }
  if (loaded === undefined || !isOpenRunOf(loaded.state, domain, workflowId))
    throw new UnknownResourceFault(faultText.unknownExecution(workflowId, given));
  return loaded;
}

/**
 * How many runs of a continued-as-new workflowId a request or effect by workflowId follows before it
 * gives up (each hop is a continue-as-new that landed between its read of the open run and its commit).
 */
export const MAX_CONTINUED_HOPS = 5;

export const continuedAsNew = (state: ExecutionState) =>
  state.status === 'CLOSED' && state.closeStatus === 'CONTINUED_AS_NEW';

const isOpenRunOf = (state: ExecutionState, domain: string, workflowId: string) =>
  state.status === 'OPEN' && belongsTo(state, domain, workflowId);

export const belongsTo = (state: ExecutionState, domain: string, workflowId: string) =>
  state.domain === domain && state.execution.workflowId === workflowId;

/** Tries of a start that keeps losing its workflowId to runs closing as it commits. */
const MAX_START_TRIES = 3;

/**
 * A start of a new run (`start`, its runs stamped `now`), tried again stamped at the close of the run
 * that held its workflowId when that run closed after the first stamp (see OpenPointerChange): it was
 * open at that moment, not at the new one. `takenBy` names the workflowId a result lost, if it did.
 */
export async function startStampedAfterClose<R>(
  deps: Pick<OperationDeps, 'runs' | 'clock'>,
  start: (now: number) => Promise<R>,
  takenBy: (result: R) => { readonly domain: string; readonly workflowId: string } | undefined,
): Promise<{ result: R; now: number }> {
  let now = epochSeconds(deps.clock);
  let result = await start(now);
  for (let tries = 1; tries < MAX_START_TRIES; tries++) {
    const taken = takenBy(result);
    if (taken === undefined) break;
    const closedAt = await closedSince(deps, taken.domain, taken.workflowId, now);
    if (closedAt === undefined) break;
    now = closedAt;
    result = await start(now);
  }
  return { result, now };
}

/**
 * When a workflowId's latest run closed, if it did so after `at`: a start stamped at `at` lost the
 * workflowId to that run, which was open then, and may start again at its close (see
 * OpenPointerChange). Undefined when the run is open, or closed by then.
 */
async function closedSince(
  deps: Pick<OperationDeps, 'runs'>,
  domain: string,
  workflowId: string,
  at: number,
): Promise<number | undefined> {
  const run = await loadPointedRun(deps, domain, workflowId);
  const closedAt = run?.state.closeTimestamp;
  return run?.state.status === 'CLOSED' && closedAt !== undefined && closedAt > at
    ? closedAt
    : undefined;
}

/** Loads a run (open or closed) named by domain, workflowId and runId, or throws `Unknown execution`. */
export async function requireRun(
  deps: OperationDeps,
  domain: string,
  workflowId: string,
  runId: string,
): Promise<LoadedRun> {
  const loaded = await deps.runs.loadRun(runId);
  if (loaded === undefined || !belongsTo(loaded.state, domain, workflowId)) {
    throw new UnknownResourceFault(faultText.unknownExecution(workflowId, runId));
  }
  return loaded;
}

/** The unknown-execution fault for a run whose token or request no longer applies. */
export const closedExecution = (state: ExecutionState) =>
  new UnknownResourceFault(
    faultText.unknownExecution(state.execution.workflowId, state.execution.runId),
  );

/**
 * Whether `task` of the run has timed out by now, its fire not handled yet (see passedDeadline): a
 * heartbeat deadline the state knows to have passed is looked at again with the latest heartbeat,
 * which may have pushed it (read only then).
 */
export async function timedOutUnfired(
  deps: OperationDeps,
  state: ExecutionState,
  task: TaskRef,
): Promise<boolean> {
  const now = epochSeconds(deps.clock);
  const passed = passedDeadline(state, task, now);
  if (passed === undefined) return false;
  const subject = passed.subject;
  if (subject.kind !== 'activity' || subject.timeoutType !== 'HEARTBEAT') return true;
  const heartbeat = await deps.heartbeats.getHeartbeat(
    state.execution.runId,
    task.scheduledEventId,
  );
  return passedDeadline(state, task, now, heartbeat) !== undefined;
}
