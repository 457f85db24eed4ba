/**
 * The outbox disarms an alarm the run outlived or that a sooner one overtook, unless the run has set
 * that alarm again by the time the record is handled (a record handled late, or replayed).
 */
import { describe, expect, it, vi } from 'vitest';
import { fireDue, withAlarm } from '../../../lib/core/deadlines.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import { carryOutRunChange, type OutboxDeps } from '../../../lib/operations/outbox.js';
import type { DeadlineFire } from '../../../lib/ports/deadline-scheduler.js';
import { decision, RunDriver } from '../../support/core-builders.js';

/** The outbox's dependencies with the run as the store has it now, and the scheduler's calls. */
function deps(current: ExecutionState | undefined) {
  const calls: { op: 'arm' | 'disarm'; fire: DeadlineFire }[] = [];
  const loads = { count: 0, atDisarm: [] as number[] };
  const d = {
    runs: {
      loadRun: async () => {
        loads.count++;
        return current === undefined ? undefined : { state: current, version: 9 };
      },
    },
    scheduler: {
      arm: async (fire: DeadlineFire) => void calls.push({ op: 'arm', fire }),
      // As AwsDeadlineScheduler does for a schedule: asks whether the run set it again.
      disarm: async (fire: DeadlineFire, armedAgain: () => Promise<boolean>) => {
        const again = await armedAgain();
        loads.atDisarm.push(loads.count);
        if (!again) calls.push({ op: 'disarm', fire });
      },
    },
  };
  return { deps: d as unknown as OutboxDeps, calls, loads };
}

/** A run whose alarm (the execution's timeout) a 20 s timer overtakes, and that timer's fire. */
function overtaken() {
  const run = new RunDriver();
  const start = withAlarm(run.state);
  run.state = start;
  run.decide([decision('StartTimer', { timerId: 't', startToFireTimeout: '20' })]);
  const sooner = withAlarm(run.state);
  const fired = fireDue(sooner, sooner.alarm?.at ?? 0, new Map()).state;
  const far = { runId: start.execution.runId, key: start.alarm?.key, at: start.alarm?.at };
  return { start, sooner, fired, far };
}

describe('disarming an alarm', () => {
  it('disarms the overtaken alarm and arms the sooner one', async () => {
    const { start, sooner, far } = overtaken();
    const { deps: d, calls } = deps(sooner);
    await carryOutRunChange(d, start, sooner);
    expect(calls).toEqual([
      { op: 'arm', fire: { runId: far.runId, key: sooner.alarm?.key, at: sooner.alarm?.at } },
      { op: 'disarm', fire: far },
    ]);
  });

  it('leaves an alarm the run has set again since the record was written', async () => {
    const { start, sooner, fired, far } = overtaken();
    // The sooner alarm fired and moved the alarm back to the execution's timeout, which that
    // change's record armed again: the older record, handled now, must not take it away.
    expect(fired.alarm).toEqual(start.alarm);
    const { deps: d, calls } = deps(fired);
    await carryOutRunChange(d, start, sooner, true);
    expect(calls).toEqual([]);
    // The same record against a run whose alarm is still the sooner one does disarm.
    const { deps: d2, calls: calls2 } = deps(sooner);
    await carryOutRunChange(d2, start, sooner, true);
    expect(calls2).toEqual([{ op: 'disarm', fire: far }]);
  });

  it('disarms the alarm of a run that closed without reading it: it sets no alarm again', async () => {
    const run = new RunDriver();
    run.state = withAlarm(run.state);
    const open = run.state;
    run.terminate();
    const closed = run.state;
    if (open.alarm === undefined) throw new Error('the open run has no alarm');
    const { deps: d, calls, loads } = deps({ ...closed, alarm: open.alarm });
    const effects = carryOutRunChange(d, open, closed);
    // Closing has other effects (visibility, retention) whose dependencies this test leaves out.
    await effects.catch(() => undefined);
    expect(calls).toContainEqual({
      op: 'disarm',
      fire: { runId: open.execution.runId, key: open.alarm?.key, at: open.alarm?.at },
    });
    expect(loads.atDisarm).toEqual([0]);
  });
});

describe('a disarm that fails', () => {
  it('is only a lost saving: it is logged and the other effects go on', async () => {
    const { start, sooner } = overtaken();
    const { deps: d, calls } = deps(sooner);
    const failing = {
      ...d,
      scheduler: {
        arm: d.scheduler.arm,
        disarm: async () => {
          throw new Error('AccessDeniedException');
        },
      },
    } as OutboxDeps;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await expect(carryOutRunChange(failing, start, sooner)).resolves.toBeUndefined();
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('disarm failed'));
    } finally {
      warn.mockRestore();
    }
    expect(calls.map((c) => c.op)).toEqual(['arm']);
  });
});
