import { UnknownResourceFault } from '../../core/faults.js';
import type { HistoryEvent } from '../../core/history-event.js';
import { closeLambdaFunction, startLambdaFunction } from '../../core/lambda-functions.js';
import { epochSeconds } from '../../ports/clock.js';
import type { LambdaResult, LambdaTask } from '../../ports/lambda-invoker.js';
import { isTransientFailure } from '../../ports/transient-failure.js';
import type { OperationDeps } from '../context.js';
import type { OutboxDeps } from '../outbox.js';
import { mutateRun } from '../run-mutation.js';
import { sleep } from '../sleep.js';

/**
 * A scheduled Lambda function: record LambdaFunctionStarted (once), invoke it, record how it ended. A
 * replayed record finds it started and does nothing; if this process dies mid-invocation the function's
 * START_TO_CLOSE deadline closes it as timed out.
 */
export async function runLambdaFunction(
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
      execution: { domain: state.domain, runId: state.execution.runId },
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
  const claimed = await deps.lambdaTaskClaims.claimLambdaTask(
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
  const loaded = await deps.runs.loadRun(task.runId);
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
