import {
  childAlreadyRunning,
  childClosed,
  childConfig,
  childStarted,
  externalRequestArrival,
  externalRequestOutcome,
  externalRequestToSelf,
} from '../core/cross-execution.js';
import {
  deadlines,
  executionTimedOutBy,
  fireDue,
  type HeartbeatInfo,
  isCurrentAlarm,
} from '../core/deadlines.js';
import type { ExecutionState } from '../core/execution-state.js';
import {
  passesEventLimit,
  requestCancelExecution,
  startRun,
  terminateExecution,
  terminateForEventLimit,
} from '../core/executions.js';
import { UnknownResourceFault } from '../core/faults.js';
import type { HistoryEvent } from '../core/history-event.js';
import { closeLambdaFunction, startLambdaFunction } from '../core/lambda-functions.js';
import { type OutboxEffect, outboxEffects } from '../core/outbox.js';
import { queueChanges } from '../core/task-queue.js';
import { stampAfter, type Transition } from '../core/transition.js';
import { epochSeconds } from '../ports/clock.js';
import type { DeadlineFire, DeadlineScheduler } from '../ports/deadline-scheduler.js';
import type { LoadedRun, RunWrite } from '../ports/execution-store.js';
import type { LambdaResult, LambdaTask } from '../ports/lambda-invoker.js';
import { isTransientFailure } from '../ports/transient-failure.js';
import type { OperationDeps } from './context.js';
import {
  commitRuns,
  continuedAsNew,
  MAX_CONTINUED_HOPS,
  mutateRun,
  RunContendedError,
  startStampedAfterClose,
} from './run-mutation.js';
import { expireClosedRun, syncVisibility } from './visibility-sync.js';

export interface OutboxDeps extends OperationDeps {
  readonly scheduler: DeadlineScheduler;
}

const MAX_ATTEMPTS = 50;
/** How early a fire may arrive and still wait for its deadline instead of re-arming. */
const MAX_EARLY_WAIT_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Carries out what one committed change of a run's state asks for (see lib/core/outbox.ts). */
export async function carryOutRunChange(
  deps: OutboxDeps,
  before: ExecutionState | undefined,
  after: ExecutionState,
  alreadyArmed = false,
): Promise<void> {
  for (const effect of outboxEffects(before, after)) {
    if (effect.kind === 'arm' && alreadyArmed) continue;
    await carryOut(deps, effect);
  }
}

/** Arms a change's new deadlines (cheap, idempotent, order-free: the stream handler does these first). */
export async function armDeadlines(
  deps: OutboxDeps,
  before: ExecutionState | undefined,
  after: ExecutionState,
): Promise<void> {
  const arms = outboxEffects(before, after).filter((e) => e.kind === 'arm');
  await Promise.all(arms.map((effect) => carryOut(deps, effect)));
}

async function carryOut(deps: OutboxDeps, effect: OutboxEffect): Promise<void> {
  switch (effect.kind) {
    case 'arm':
      return deps.scheduler.arm({
        runId: effect.deadline.runId,
        key: effect.deadline.key,
        at: effect.deadline.at,
      });
    case 'disarm':
      return disarmAlarm(deps, effect.deadline, effect.closed);
    case 'deliver-external':
      return deliverExternal(deps, effect.runId, effect.initiatedEventId);
    case 'start-child':
      return startChild(deps, effect.runId, effect.initiatedEventId);
    case 'notify-parent':
      return notifyParent(deps, effect.child);
    case 'apply-child-policy':
      return applyChildPolicy(deps, effect.parent, effect.policy, effect.children);
    case 'invoke-lambda':
      return runLambdaFunction(deps, effect.runId, effect.scheduledEventId);
    case 'sync-visibility':
      return syncVisibility(deps, effect.before, effect.after);
    case 'expire-run':
      return expireClosedRun(deps, effect.run);
  }
}

/**
 * Disarms an alarm the run no longer needs. One that a sooner alarm overtook is left if the run has set
 * it again since (that alarm fired and the alarm moved back to it, which its change's record armed
 * anew): a record handled late, or again, must not take away a deadline the run still has. A closed
 * run sets no alarm again.
 */
async function disarmAlarm(deps: OutboxDeps, fire: DeadlineFire, closed: boolean): Promise<void> {
  const armedAgain = async () => {
    if (closed) return false;
    const current = (await deps.executions.loadRun(fire.runId))?.state;
    const alarm = current?.status === 'OPEN' ? current.alarm : undefined;
    return alarm !== undefined && alarm.key === fire.key && alarm.at === fire.at;
  };
  try {
    await deps.scheduler.disarm({ runId: fire.runId, key: fire.key, at: fire.at }, armedAgain);
  } catch (error) {
    // Only a saving: the fire, if it comes, finds nothing to do. The record's other effects go on.
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.warn(JSON.stringify({ level: 'warn', message: 'disarm failed', ...fire, reason }));
  }
}

/**
 * A run's alarm fired: every deadline of the run due by now fires (its event recorded), and the alarm
 * moves to the earliest deadline left, which the commit's outbox record arms. A fire for an earlier
 * time than the run's alarm was overtaken (a duplicate, or the alarm moved since) and does nothing.
 */
export async function fireRunDeadline(deps: OutboxDeps, fire: DeadlineFire): Promise<void> {
  let firstAt: number | undefined;
  const early = await mutateRun(deps, fire.runId, async ({ state }) => {
    if (!isCurrentAlarm(state, fire.at)) return { write: false, result: false };
    // A fire handed over a little early has read the run already; it waits out the rest here, so the
    // event is recorded the moment the deadline passes rather than a store read later.
    const wait = fire.at * 1000 - deps.clock.now();
    if (wait > 0 && wait <= MAX_EARLY_WAIT_MS) await sleep(wait);
    // A fire that lost a race (a signal committed to the run at the same moment) is recorded when it
    // was first processed, or just after what the winner recorded: the race makes it neither late nor
    // out of order.
    const now = epochSeconds(deps.clock);
    firstAt ??= now;
    const at = Math.min(now, Math.max(firstAt, state.latestEventTimestamp ?? 0));
    if (fire.at > at) return { write: false, result: true };
    const due = fireDue(state, at, await dueHeartbeats(deps, state, at));
    if (!due.changed) return { write: false, result: false };
    return { write: true, result: false, state: due.state, events: [...due.events] };
  }).catch((error: unknown) => {
    // A run that no longer exists (expired with its retention) has nothing left to fire.
    if (error instanceof UnknownResourceFault) return false;
    throw error;
  });
  // Too early to wait for here: the same fire again at its time.
  if (early) await deps.scheduler.arm(fire);
}

/**
 * The latest heartbeat of each activity with a deadline due by `now`: a HEARTBEAT deadline is pushed by
 * it, and every activity timeout carries its details (swf-api.md §9).
 */
async function dueHeartbeats(
  deps: OutboxDeps,
  state: ExecutionState,
  now: number,
): Promise<Map<number, HeartbeatInfo>> {
  const ids = new Set<number>();
  for (const d of deadlines(state))
    if (d.at <= now && d.subject.kind === 'activity') ids.add(d.subject.scheduledEventId);
  const heartbeats = new Map<number, HeartbeatInfo>();
  await Promise.all(
    [...ids].map(async (id) => {
      const heartbeat = await deps.executions.getHeartbeat(state.execution.runId, id);
      if (heartbeat !== undefined) heartbeats.set(id, heartbeat);
    }),
  );
  return heartbeats;
}

/**
 * Commits transitions of two runs together, each guarded by its version, retried on conflict. `decide`
 * returns undefined when there is nothing (left) to do: the replay of a delivered record.
 */
async function commitPair(
  deps: OperationDeps,
  runIds: readonly [string, string],
  decide: (
    a: LoadedRun,
    b: LoadedRun | undefined,
  ) => { a?: Transition; b?: Transition; created?: RunWrite } | undefined,
): Promise<'committed' | 'nothing' | 'already-open'> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    // After a lost race, a pause (jittered, growing to 50 ms) lets the winners get through.
    if (attempt > 0) await sleep(Math.random() * Math.min(5 * attempt, 50));
    const a = await deps.executions.loadRun(runIds[0]);
    if (a === undefined) return 'nothing';
    const b = runIds[1] === runIds[0] ? a : await deps.executions.loadRun(runIds[1]);
    const plan = decide(a, b);
    if (plan === undefined) return 'nothing';
    const writes: RunWrite[] = [];
    if (plan.a !== undefined) writes.push(runWrite(a, plan.a));
    if (plan.b !== undefined && b !== undefined) writes.push(runWrite(b, plan.b));
    // A run whose history the change would take past its limit is terminated instead, alone; the
    // next attempt decides again on it closed (a request to or from a closed run is not carried out).
    const over = writes.find((w) => passesEventLimit(w.state, w.queue.add.length))?.base;
    if (over !== undefined) {
      const t = terminateForEventLimit(over.state, epochSeconds(deps.clock));
      await commitRuns(deps, [runWrite(over, t)], [], [over.state]);
      continue;
    }
    if (plan.created !== undefined) writes.push(plan.created);
    const pointers =
      plan.created === undefined
        ? []
        : [
            {
              kind: 'acquire' as const,
              domain: plan.created.state.domain,
              workflowId: plan.created.state.execution.workflowId,
              runId: plan.created.state.execution.runId,
              startedAt: plan.created.state.startTimestamp,
            },
          ];
    const loadedBefore = [a.state, ...(b === undefined ? [] : [b.state])];
    const before = writes.map((w) =>
      loadedBefore.find((s) => s.execution.runId === w.state.execution.runId),
    );
    const outcome = await commitRuns(deps, writes, pointers, before);
    if (outcome === 'committed') return 'committed';
    if (outcome === 'already-open') return 'already-open';
  }
  throw new RunContendedError(
    `runs ${runIds.join(', ')} kept changing under ${MAX_ATTEMPTS} attempts`,
  );
}

const runWrite = (loaded: LoadedRun, t: Transition): RunWrite => ({
  state: t.state,
  base: loaded,
  events: t.events,
  queue: queueChanges(loaded.state, t.state),
});

/** A signal or cancel request to another execution: both histories change in one transaction, or neither. */
async function deliverExternal(
  deps: OutboxDeps,
  sourceRunId: string,
  initiatedEventId: number,
): Promise<void> {
  const source = await deps.executions.loadRun(sourceRunId);
  const request = source?.state.externalRequests[String(initiatedEventId)];
  if (source === undefined || request === undefined) return;
  const now = epochSeconds(deps.clock);
  // A request by workflowId whose run continues as new meanwhile is carried to the new run (a few
  // runs at most), as it would have been a moment later.
  for (let hop = 0; hop < MAX_CONTINUED_HOPS; hop++) {
    const targetRunId =
      request.runId ?? (await deps.executions.findOpenRun(source.state.domain, request.workflowId));
    let retarget = false;
    await commitPair(deps, [sourceRunId, targetRunId ?? sourceRunId], (src, tgt) => {
      const target = targetRunId === undefined ? undefined : tgt?.state;
      // A target past its own timeout, its fire not come, has timed out: it takes no request, as
      // the API's signals and cancel requests are refused then (see executionTimedOutBy).
      const reachable =
        target !== undefined &&
        target.status === 'OPEN' &&
        target.domain === src.state.domain &&
        target.execution.workflowId === request.workflowId &&
        (target.execution.runId === src.state.execution.runId ||
          !executionTimedOutBy(target, stampAfter(src.state, now)));
      if (!reachable) {
        if (
          request.runId === undefined &&
          target !== undefined &&
          continuedAsNew(target) &&
          hop + 1 < MAX_CONTINUED_HOPS
        ) {
          retarget = true;
          return undefined;
        }
        const failed = externalRequestOutcome(src.state, initiatedEventId, undefined, now);
        return failed === undefined ? undefined : { a: failed };
      }
      if (target.execution.runId === src.state.execution.runId) {
        const self = externalRequestToSelf(src.state, initiatedEventId, now);
        return self === undefined ? undefined : { a: self };
      }
      const arrival = externalRequestArrival(
        target,
        src.state,
        initiatedEventId,
        stampAfter(src.state, now),
      );
      // The sender learns of the arrival no earlier than the target recorded it (its history may be
      // ahead of this clock reading).
      const heard = arrival?.now ?? now;
      const outcome = externalRequestOutcome(src.state, initiatedEventId, target.execution, heard);
      return arrival === undefined || outcome === undefined
        ? undefined
        : { a: outcome, b: arrival };
    });
    if (!retarget) return;
  }
}

/** Starts the child run and records ChildWorkflowExecutionStarted in the parent, in one transaction. */
async function startChild(
  deps: OutboxDeps,
  parentRunId: string,
  initiatedEventId: number,
): Promise<void> {
  const childRunId = deps.ids.runId();
  const { result: outcome, now } = await startStampedAfterClose(
    deps,
    (now) => startChildAt(deps, parentRunId, initiatedEventId, childRunId, now),
    (tried) => (tried.result === 'already-open' ? tried : undefined),
  );
  if (outcome.result !== 'already-open') return;
  await mutateRun(deps, parentRunId, ({ state }) => {
    const t = childAlreadyRunning(state, initiatedEventId, now);
    return t === undefined
      ? { write: false, result: undefined }
      : { write: true, result: undefined, state: t.state, events: t.events };
  });
}

/** One try of startChild, its runs stamped `now`. */
async function startChildAt(
  deps: OutboxDeps,
  parentRunId: string,
  initiatedEventId: number,
  childRunId: string,
  now: number,
): Promise<{
  result: 'committed' | 'nothing' | 'already-open';
  domain: string;
  workflowId: string;
}> {
  let target = { domain: '', workflowId: '' };
  const result = await commitPair(deps, [parentRunId, parentRunId], (parent) => {
    const entry = parent.state.children[String(initiatedEventId)];
    const initiated = entry?.initiated;
    if (entry === undefined || initiated === undefined) return undefined;
    const execution = { workflowId: entry.workflowId, runId: childRunId };
    target = { domain: parent.state.domain, workflowId: entry.workflowId };
    // The child starts no earlier than its parent initiated it (the parent's clock may be ahead).
    const at = stampAfter(parent.state, now);
    const started = childStarted(parent.state, initiatedEventId, execution, at);
    if (started === undefined) return undefined;
    const child = startRun(
      {
        domain: parent.state.domain,
        execution,
        workflowType: entry.workflowType,
        config: childConfig(initiated),
        ...(initiated.input === undefined ? {} : { input: initiated.input }),
        ...(initiated.tagList === undefined ? {} : { tagList: initiated.tagList }),
        parent: { execution: parent.state.execution, initiatedEventId },
      },
      at,
    );
    return {
      a: started,
      created: {
        state: child.state,
        events: child.events,
        queue: queueChanges(undefined, child.state),
      },
    };
  });
  return { result, ...target };
}

async function notifyParent(deps: OutboxDeps, child: ExecutionState): Promise<void> {
  const parentRunId = child.parent?.execution.runId;
  if (parentRunId === undefined) return;
  const now = epochSeconds(deps.clock);
  await mutateRun(deps, parentRunId, ({ state }) => {
    const t = childClosed(state, child, stampAfter(child, now));
    return t === undefined
      ? { write: false, result: undefined }
      : { write: true, result: undefined, state: t.state, events: t.events };
  }).catch(ignoreMissingRun);
}

/**
 * TERMINATE ends each open child (its own child policy then applies to its children); REQUEST_CANCEL
 * asks each to cancel, once. A child that continued as new is reached through its workflowId.
 */
async function applyChildPolicy(
  deps: OutboxDeps,
  parent: ExecutionState,
  policy: 'TERMINATE' | 'REQUEST_CANCEL',
  children: readonly { readonly workflowId: string }[],
): Promise<void> {
  // What the policy does to a child is no earlier than the parent's close.
  const now = stampAfter(parent, epochSeconds(deps.clock));
  for (const child of children) {
    // A child that continues as new meanwhile is followed to its new run (a few times at most).
    for (let hop = 0; hop < MAX_CONTINUED_HOPS; hop++) {
      const runId = await deps.executions.findOpenRun(parent.domain, child.workflowId);
      if (runId === undefined) break;
      const continued = await mutateRun(deps, runId, ({ state }) => {
        const ours = state.parent?.execution.runId === parent.execution.runId;
        if (state.status !== 'OPEN' || !ours) {
          return { write: false, result: ours && continuedAsNew(state) };
        }
        if (policy === 'REQUEST_CANCEL' && state.cancelRequested)
          return { write: false, result: false };
        // Past its own timeout, its fire not come: it has timed out, and its fire records that.
        if (executionTimedOutBy(state, now)) return { write: false, result: false };
        const t =
          policy === 'TERMINATE'
            ? terminateExecution(
                state,
                { childPolicy: state.config.childPolicy, cause: 'CHILD_POLICY_APPLIED' },
                now,
              )
            : requestCancelExecution(state, { cause: 'CHILD_POLICY_APPLIED' }, now);
        return { write: true, result: false, state: t.state, events: t.events };
      }).catch((error: unknown) => ignoreMissingRun(error) ?? false);
      if (!continued) break;
    }
  }
}

const ignoreMissingRun = (error: unknown) => {
  if (error instanceof UnknownResourceFault) return;
  throw error;
};

/**
 * A scheduled Lambda function: record LambdaFunctionStarted (once), invoke it, record how it ended. A
 * replayed record finds it started and does nothing; if this process dies mid-invocation the function's
 * START_TO_CLOSE deadline closes it as timed out.
 */
async function runLambdaFunction(
  deps: OutboxDeps,
  runId: string,
  scheduledEventId: number,
): Promise<void> {
  const started = await mutateRun(deps, runId, ({ state }) => {
    const t = startLambdaFunction(state, scheduledEventId, epochSeconds(deps.clock));
    if (t === undefined) return { write: false, result: undefined };
    const fn = Object.values(state.lambdaFunctions).find(
      (f) => f.scheduledEventId === scheduledEventId,
    );
    const request = {
      name: fn?.name ?? '',
      timeoutSeconds: Number(fn?.startToCloseTimeout ?? 900),
      ...(fn?.input === undefined ? {} : { input: fn.input }),
      ...(state.config.lambdaRole === undefined ? {} : { role: state.config.lambdaRole }),
    };
    return {
      write: true,
      result: { request, startedEventId: t.state.nextEventId - 1 },
      state: t.state,
      events: t.events,
    };
  }).catch((error: unknown) => {
    if (error instanceof UnknownResourceFault) return undefined;
    throw error;
  });
  if (started === undefined) return;
  const task: LambdaTask = { runId, scheduledEventId, ...started };
  try {
    await deps.lambdaTasks.dispatch(task, () => runLambdaTask(deps, task));
  } catch (error) {
    // Not handed over: the task fails now rather than at its timeout. It is never invoked twice (a
    // replayed record finds it started and hands nothing over).
    await recordLambdaOutcome(deps, task, {
      kind: 'failed',
      reason: error instanceof Error ? error.name : 'Error',
      details: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * Invokes a started Lambda task's function and records how it ended (the Lambda-task function on AWS,
 * the background of the local server). An outcome that comes after the task timed out, or after the
 * run closed, records nothing.
 *
 * The function is invoked at most once, and only while the task can still end by it: a hand-over may
 * come twice, or late (Lambda delivers an asynchronous event at least once, and holds one it was
 * throttled on for minutes), so the task must still be open in its run, within its start-to-close
 * timeout, and not claimed by an earlier delivery. It gets only the time the task has left.
 */
export async function runLambdaTask(deps: OperationDeps, task: LambdaTask): Promise<void> {
  const deadline = await lambdaTaskDeadline(deps, task);
  const left = deadline === undefined ? 0 : deadline - epochSeconds(deps.clock);
  if (deadline === undefined || left <= 0) return;
  const claimed = await deps.executions.claimLambdaTask(
    task.runId,
    task.scheduledEventId,
    Math.ceil(deadline + LAMBDA_CLAIM_KEPT_SECONDS),
  );
  if (!claimed) return;
  const request = { ...task.request, timeoutSeconds: Math.min(task.request.timeoutSeconds, left) };
  await recordLambdaOutcome(deps, task, await deps.lambda.invoke(request));
}

/** How long a Lambda task's invocation mark outlives the task's deadline (a late delivery finds it). */
const LAMBDA_CLAIM_KEPT_SECONDS = 86_400;

/** When a started Lambda task times out (epoch seconds), while it is open in its open run. */
async function lambdaTaskDeadline(deps: OperationDeps, task: LambdaTask) {
  const loaded = await deps.executions.loadRun(task.runId);
  if (loaded === undefined || loaded.state.status !== 'OPEN') return undefined;
  const open = Object.values(loaded.state.lambdaFunctions).find(
    (l) => l.scheduledEventId === task.scheduledEventId && l.startedEventId === task.startedEventId,
  );
  if (open?.startedAt === undefined) return undefined;
  return open.startedAt + Number(open.startToCloseTimeout);
}

/**
 * Records how a Lambda task ended. A run's outcomes that come while one is being recorded are recorded
 * together, in one commit: a thousand tasks of one run ending at once would otherwise race for the
 * run one commit at a time, and most would run out of attempts. Writers in other processes can still
 * win every attempt; then the outcome is tried again for as long as a task may run.
 */
function recordLambdaOutcome(
  deps: OperationDeps,
  task: LambdaTask,
  outcome: LambdaResult,
): Promise<void> {
  let runs = pendingOutcomes.get(deps);
  if (runs === undefined) {
    runs = new Map();
    pendingOutcomes.set(deps, runs);
  }
  const waiting = runs.get(task.runId);
  return new Promise<void>((resolve, reject) => {
    const entry = { task, outcome, resolve, reject };
    if (waiting !== undefined) {
      waiting.push(entry);
      return;
    }
    runs.set(task.runId, [entry]);
    void recordPending(deps, runs, task.runId);
  });
}

interface PendingOutcome {
  readonly task: LambdaTask;
  readonly outcome: LambdaResult;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Lambda outcomes waiting to be recorded, by run, for each set of dependencies (one per server). */
const pendingOutcomes = new WeakMap<OperationDeps, Map<string, PendingOutcome[]>>();

/** How long outcomes are tried again while other processes' writers keep winning: a task's longest. */
const OUTCOME_RETRY_MS = 900_000;
/** The pause before an outcome that failed is tried again. */
const OUTCOME_RETRY_PAUSE_MS = 100;

async function recordPending(
  deps: OperationDeps,
  runs: Map<string, PendingOutcome[]>,
  runId: string,
): Promise<void> {
  for (;;) {
    const batch = runs.get(runId) ?? [];
    if (batch.length === 0) {
      runs.delete(runId);
      return;
    }
    // Outcomes that come meanwhile wait for the next commit.
    runs.set(runId, []);
    try {
      await recordOutcomes(deps, runId, batch);
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}

async function recordOutcomes(
  deps: OperationDeps,
  runId: string,
  batch: readonly PendingOutcome[],
): Promise<void> {
  const until = deps.clock.now() + OUTCOME_RETRY_MS;
  for (;;) {
    try {
      await mutateRun(deps, runId, ({ state }) => {
        const now = epochSeconds(deps.clock);
        let current = state;
        const events: HistoryEvent[] = [];
        for (const { task, outcome } of batch) {
          const { scheduledEventId, startedEventId } = task;
          const t = closeLambdaFunction(current, scheduledEventId, startedEventId, outcome, now);
          if (t === undefined) continue;
          current = t.state;
          events.push(...t.events);
        }
        return events.length === 0
          ? { write: false, result: undefined }
          : { write: true, result: undefined, state: current, events };
      });
      return;
    } catch (error) {
      // The run is gone (expired with its retention): nothing to record.
      if (error instanceof UnknownResourceFault) return;
      // Other writers kept winning, or DynamoDB failed for a moment (throttled, a 5xx, a dropped
      // connection): the function answered, so its outcome is tried again for as long as the task may
      // run (recording it twice records nothing: closeLambdaFunction checks the task is open).
      if (!isTransientFailure(error) || deps.clock.now() > until) throw error;
      await sleep(OUTCOME_RETRY_PAUSE_MS);
    }
  }
}
