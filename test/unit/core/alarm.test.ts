/**
 * One deadline fire per run, its alarm: brought forward by a change that adds a sooner deadline, moved
 * by its fire to the earliest deadline left after everything due has fired.
 */
import { describe, expect, it } from 'vitest';
import {
  deadlines,
  earliestDeadline,
  fireDue,
  isCurrentAlarm,
  passedDeadline,
  pendingFire,
  withAlarm,
} from '../../../lib/core/deadlines.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import { outboxEffects } from '../../../lib/core/outbox.js';
import {
  decision,
  eventTypes,
  RunDriver,
  runConfig,
  scheduleActivity,
  T0,
} from '../../support/core-builders.js';

const timers = (...waits: number[]) =>
  waits.map((wait, i) =>
    decision('StartTimer', { timerId: `t${i}`, startToFireTimeout: String(wait) }),
  );

const arms = (before: ExecutionState | undefined, after: ExecutionState) =>
  outboxEffects(before, after).filter((e) => e.kind === 'arm');
const disarms = (before: ExecutionState | undefined, after: ExecutionState) =>
  outboxEffects(before, after).filter((e) => e.kind === 'disarm');

describe('the fire an open run waits for (pendingFire)', () => {
  it('is its alarm, or its earliest deadline when none is kept; none once it closed', () => {
    const run = new RunDriver();
    run.decide(timers(50, 20));
    const runId = run.state.execution.runId;
    const earliest = earliestDeadline(run.state);
    const { alarm: _kept, ...withoutAlarm } = run.state;
    expect(pendingFire(withoutAlarm)).toEqual({
      runId,
      key: earliest?.key,
      at: T0 + 2 + 20,
    });
    // A kept alarm is the fire to arm: a fire for an earlier time counts as overtaken.
    const kept = { ...run.state, alarm: { key: 'X', at: T0 + 900 } };
    expect(pendingFire(kept)).toEqual({ runId, key: 'X', at: T0 + 900 });
    run.state = kept;
    run.terminate();
    expect(run.state.status).toBe('CLOSED');
    expect(pendingFire(run.state)).toBeUndefined();
  });
});

describe('the alarm of a run', () => {
  it('is its earliest deadline, and only comes forward', () => {
    const run = new RunDriver();
    run.decide(timers(50, 20, 90));
    const state = withAlarm(run.state);
    expect(state.alarm).toEqual({ key: earliestDeadline(run.state)?.key, at: T0 + 2 + 20 });
    // a later deadline leaves it; a sooner one brings it forward
    expect(withAlarm({ ...state, alarm: { key: 'x', at: T0 + 5 } }).alarm?.at).toBe(T0 + 5);
    expect(withAlarm({ ...state, alarm: { key: 'x', at: T0 + 500 } }).alarm?.at).toBe(T0 + 2 + 20);
  });

  it("counts an execution timeout of NONE (a child's or a continued run's) as SWF's one-year limit", () => {
    const run = new RunDriver({ config: { ...runConfig, executionStartToCloseTimeout: 'NONE' } });
    expect(deadlines(run.state).find((d) => d.key === 'X')?.at).toBe(T0 + 31_536_000);
    const limited = new RunDriver();
    expect(deadlines(limited.state).find((d) => d.key === 'X')?.at).toBe(T0 + 86_400);
  });

  it('is armed by the outbox only when a commit moved it: one fire for many deadlines', () => {
    const run = new RunDriver();
    const start = withAlarm(run.state); // the execution's own timeout
    expect(arms(undefined, start)).toHaveLength(1);
    run.state = start;
    run.decide(timers(50, 20, 90));
    const later = withAlarm(run.state);
    expect(later.alarm?.at).toBe(T0 + 2 + 20);
    expect(arms(start, later)).toEqual([
      { kind: 'arm', deadline: { runId: later.execution.runId, ...later.alarm } },
    ]);
    // a change that adds only later deadlines arms nothing
    const z = { timerId: 'z', startedEventId: 99, startToFireTimeout: '300', fireAt: T0 + 400 };
    const more = withAlarm({ ...later, timers: { ...later.timers, z } });
    expect(deadlines(more)).toHaveLength(deadlines(later).length + 1);
    expect(arms(later, more)).toEqual([]);
  });

  it('fires every deadline due, earliest first, and moves to the earliest one left', () => {
    const run = new RunDriver();
    run.decide(timers(10, 5, 60));
    const state = withAlarm(run.state);
    const due = fireDue(state, T0 + 2 + 30, new Map());
    expect(eventTypes([...due.events])).toEqual([
      'TimerFired',
      'DecisionTaskScheduled',
      'TimerFired',
    ]);
    expect(due.events.filter((e) => e.eventType === 'TimerFired').map((e) => e.attributes)).toEqual(
      [expect.objectContaining({ timerId: 't1' }), expect.objectContaining({ timerId: 't0' })],
    );
    expect(due.state.alarm).toEqual({ key: earliestDeadline(due.state)?.key, at: T0 + 2 + 60 });
    expect(due.changed).toBe(true);
  });

  it('moves a HEARTBEAT deadline a later heartbeat pushed, without an event', () => {
    const run = new RunDriver();
    run.decide([scheduleActivity('a', { heartbeatTimeout: '10', startToCloseTimeout: '600' })]);
    run.startActivity('a');
    const state = withAlarm(run.state);
    const scheduledEventId = run.activity('a').scheduledEventId;
    const heartbeatAt = (state.activities.a?.startedAt ?? 0) + 8;
    const at = state.alarm?.at ?? 0;

    const due = fireDue(state, at, new Map([[scheduledEventId, { at: heartbeatAt }]]));

    expect(due.events).toEqual([]);
    expect(due.changed).toBe(true);
    const heartbeat = deadlines(due.state).find((d) => d.key.endsWith(':HEARTBEAT'));
    expect(heartbeat?.at).toBe(heartbeatAt + 10);
    expect(due.state.alarm?.at).toBe(heartbeatAt + 10);
  });

  it('changes nothing for a closed run or when nothing is due and the alarm stands', () => {
    const run = new RunDriver();
    run.decide(timers(10));
    const state = withAlarm(run.state);
    expect(fireDue(state, (state.alarm?.at ?? 0) - 1, new Map()).changed).toBe(false);
    run.state = state;
    run.terminate();
    expect(fireDue(run.state, T0 + 1_000, new Map())).toMatchObject({ events: [], changed: false });
  });

  it('is disarmed when a sooner alarm overtakes it, not when its own fire moves it later', () => {
    const run = new RunDriver();
    const start = withAlarm(run.state); // the execution's own timeout, an hour away
    run.state = start;
    run.decide(timers(20));
    const sooner = withAlarm(run.state);
    const runId = start.execution.runId;
    expect(disarms(start, sooner)).toEqual([
      {
        kind: 'disarm',
        deadline: { runId, key: start.alarm?.key, at: start.alarm?.at },
        closed: false,
      },
    ]);
    // its fire handles the timer and moves the alarm back to the execution's timeout: spent, not
    // overtaken, so nothing to disarm (and the outbox arms the later one again)
    const fired = fireDue(sooner, sooner.alarm?.at ?? 0, new Map());
    expect(fired.state.alarm).toEqual(start.alarm);
    expect(disarms(sooner, fired.state)).toEqual([]);
    expect(arms(sooner, fired.state)).toHaveLength(1);
    // a change that keeps the alarm disarms nothing
    expect(disarms(sooner, { ...sooner, latestExecutionContext: 'x' })).toEqual([]);
  });

  it('is disarmed when the run closes before it, once', () => {
    const run = new RunDriver();
    run.state = withAlarm(run.state);
    const open = run.state;
    run.terminate();
    expect(disarms(open, run.state)).toEqual([
      {
        kind: 'disarm',
        deadline: { runId: open.execution.runId, key: open.alarm?.key, at: open.alarm?.at },
        closed: true,
      },
    ]);
    // a later change of the closed run (its record replayed, say) asks for nothing more
    expect(disarms(run.state, run.state)).toEqual([]);
    expect(arms(open, run.state)).toEqual([]);
  });

  it('tells a fire that was overtaken (earlier than the alarm) from the current one', () => {
    const state = { ...new RunDriver().state, alarm: { key: 'T:5', at: T0 + 30 } };
    expect(isCurrentAlarm(state, T0 + 30)).toBe(true);
    expect(isCurrentAlarm(state, T0 + 31)).toBe(true); // a retried fire
    expect(isCurrentAlarm(state, T0 + 29)).toBe(false);
    expect(isCurrentAlarm(new RunDriver().state, T0)).toBe(true); // none armed yet
  });
});

describe('passedDeadline: a task whose timeout passed before its fire came', () => {
  const started = () => {
    const run = new RunDriver();
    run.decide([
      scheduleActivity('a', { startToCloseTimeout: '10', heartbeatTimeout: '4' }),
      ...timers(1),
    ]);
    run.startActivity('a');
    const activity = run.activity('a');
    return {
      run,
      activity,
      task: { kind: 'activity' as const, scheduledEventId: activity.scheduledEventId },
    };
  };

  it("is the task's own deadline, not another's (a timer due does not time the activity out)", () => {
    const { run, activity, task } = started();
    const startedAt = activity.startedAt ?? 0;
    expect(passedDeadline(run.state, task, startedAt + 3)).toBeUndefined();
    expect(passedDeadline(run.state, task, startedAt + 4)?.key).toBe(
      `A:${task.scheduledEventId}:HEARTBEAT`,
    );
  });

  it('counts a heartbeat deadline from the latest heartbeat when it is given', () => {
    const { run, activity, task } = started();
    const startedAt = activity.startedAt ?? 0;
    const heartbeat = { at: startedAt + 3 };
    expect(passedDeadline(run.state, task, startedAt + 6, heartbeat)).toBeUndefined();
    expect(passedDeadline(run.state, task, startedAt + 7, heartbeat)?.key).toBe(
      `A:${task.scheduledEventId}:HEARTBEAT`,
    );
    // start-to-close passes whatever the heartbeats
    expect(passedDeadline(run.state, task, startedAt + 10, { at: startedAt + 9 })?.key).toBe(
      `A:${task.scheduledEventId}:START_TO_CLOSE`,
    );
  });

  it("counts the run's execution timeout for every task of it", () => {
    const { run, task } = started();
    const x = deadlines(run.state).find((d) => d.key === 'X')?.at ?? 0;
    const far = { at: x };
    expect(passedDeadline(run.state, task, x, far)?.key).toBe('X');
    expect(passedDeadline(run.state, { kind: 'decision', scheduledEventId: 999 }, x)?.key).toBe(
      'X',
    );
  });
});
