import { passesEventLimit, terminateForEventLimit } from '../../core/executions.js';
import { queueChanges } from '../../core/task-queue.js';
import type { Transition } from '../../core/transition.js';
import { epochSeconds } from '../../ports/clock.js';
import type { LoadedRun, RunWrite } from '../../ports/run-store.js';
import type { OperationDeps } from '../context.js';
import { commitRuns, RunContendedError } from '../run-mutation.js';
import { sleep } from '../sleep.js';

const MAX_ATTEMPTS = 50;

/**
 * Commits transitions of two runs together, each guarded by its version, retried on conflict. `decide`
 * returns undefined when there is nothing (left) to do: the replay of a delivered record.
 */
export async function commitPair(
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
    const a = await deps.runs.loadRun(runIds[0]);
    if (a === undefined) return 'nothing';
    const b = runIds[1] === runIds[0] ? a : await deps.runs.loadRun(runIds[1]);
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
