/**
 * A deadline fire that loses a race for its run (a signal committed at the same moment) is recorded
 * neither late nor out of order: at the time it was first processed, or just after the winner's event.
 */
import { describe, expect, it } from 'vitest';
import { InProcessTaskNotifier } from '../../../lib/adapters/in-process/task-notifier.js';
import { deadlines } from '../../../lib/core/deadlines.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import { signalExecution } from '../../../lib/core/executions.js';
import type { HistoryEvent } from '../../../lib/core/history-event.js';
import { fireRunDeadline, type OutboxDeps } from '../../../lib/operations/outbox.js';
import type { CommitOutcome, RunWrite } from '../../../lib/ports/run-store.js';
import { noTaskPush } from '../../../lib/ports/task-push.js';
import { decision, RunDriver } from '../../support/core-builders.js';

/** A run with a timer, and the same run once a signal won the race at `signalAt` (epoch seconds). */
function racedRun(signalAt: (due: number) => number) {
  const run = new RunDriver();
  run.decide([decision('StartTimer', { timerId: 't1', startToFireTimeout: '5' })]);
  const timer = deadlines(run.state).find((d) => d.subject.kind === 'timer');
  if (timer === undefined) throw new Error('no timer deadline');
  const before = run.state;
  const after = signalExecution(before, { signalName: 'CancelOrder' }, signalAt(timer.at)).state;
  return { timer, before, after };
}

/** Store answers: the first commit loses the race, the next succeeds; the clock moves on meanwhile. */
function deps(runs: readonly ExecutionState[], clockMs: readonly number[]) {
  const committed: RunWrite[] = [];
  let loads = 0;
  let commits = 0;
  const d = {
    runs: {
      loadRun: async () => {
        const state = runs[Math.min(loads, runs.length - 1)] as ExecutionState;
        loads++;
        return { state, version: loads };
      },
      commit: async (writes: readonly RunWrite[]): Promise<CommitOutcome> => {
        commits++;
        if (commits === 1) return 'conflict';
        committed.push(...writes);
        return 'committed';
      },
    },
    heartbeats: { getHeartbeat: async () => undefined },
    // The time of each attempt: it moves on with every load of the run.
    clock: { now: () => clockMs[Math.min(loads - 1, clockMs.length - 1)] as number },
    registry: { getDomain: async () => undefined },
    notifier: new InProcessTaskNotifier(),
    push: noTaskPush,
    scheduler: { arm: async () => undefined },
  };
  return { deps: d as unknown as OutboxDeps, committed };
}

const fired = (writes: readonly RunWrite[]): HistoryEvent | undefined =>
  writes.flatMap((w) => w.events).find((e) => e.eventType === 'TimerFired');

describe('a deadline fire that loses a race for its run', () => {
  it('keeps the time it was first processed when the winner recorded its event before that', async () => {
    const { timer, before, after } = racedRun((due) => due - 0.2);
    // first attempt 10 ms after the deadline; the retry, after a slow lost race, 400 ms after it
    const clock = [timer.at * 1000 + 10, timer.at * 1000 + 400];
    const { deps: d, committed } = deps([before, after], clock);

    await fireRunDeadline(d, { runId: before.execution.runId, key: timer.key, at: timer.at });

    const event = fired(committed);
    expect(event?.eventTimestamp).toBeCloseTo(timer.at + 0.01, 6);
    expect(event?.eventId).toBeGreaterThan(after.nextEventId - 1);
  });

  it('is stamped just after the winner when the winner recorded its event later, never before it', async () => {
    const { timer, before, after } = racedRun((due) => due + 0.05);
    const clock = [timer.at * 1000 + 10, timer.at * 1000 + 400];
    const { deps: d, committed } = deps([before, after], clock);

    await fireRunDeadline(d, { runId: before.execution.runId, key: timer.key, at: timer.at });

    const event = fired(committed);
    expect(event?.eventTimestamp).toBeCloseTo(timer.at + 0.05, 6);
    expect(event?.eventTimestamp).toBeGreaterThanOrEqual(after.latestEventTimestamp ?? 0);
  });
});
