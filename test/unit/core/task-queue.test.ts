/**
 * A queue entry is written just before the commit that schedules its task: a poller judges it on its
 * run's latest state, leaving one whose commit has not landed yet and dropping one whose task is gone.
 */
import { describe, expect, it } from 'vitest';
import {
  entryStatus,
  type QueuedTaskRef,
  queuedTasks,
  REMOVAL_GRACE_SECONDS,
  UNCOMMITTED_ENTRY_GRACE_SECONDS,
} from '../../../lib/core/task-queue.js';
import { RunDriver, scheduleActivity, T0 } from '../../support/core-builders.js';

const only = (tasks: QueuedTaskRef[]): QueuedTaskRef => {
  expect(tasks).toHaveLength(1);
  return tasks[0] as QueuedTaskRef;
};

describe('entryStatus', () => {
  it('finds the scheduled task of an entry claimable, on its list only', () => {
    const run = new RunDriver();
    const decision = only(queuedTasks(run.state));
    expect(entryStatus(run.state, decision, T0 + 1)).toBe('claimable');
    expect(entryStatus(run.state, { ...decision, taskList: 'other' }, T0 + 1)).toBe('stale');
    expect(entryStatus(run.state, { ...decision, kind: 'activity' }, T0 + 1)).toBe('stale');
  });

  it('leaves the entry of a task past its schedule-to-start timeout to the fire that withdraws it', () => {
    const run = new RunDriver();
    run.startDecisionTask();
    run.respond([scheduleActivity('a1', { scheduleToStartTimeout: '5' })]);
    const activity = only(queuedTasks(run.state));
    expect(entryStatus(run.state, activity, activity.scheduledAt + 4.9)).toBe('claimable');
    expect(entryStatus(run.state, activity, activity.scheduledAt + 5)).toBe('pending');
  });

  it('drops the entry of a task started or withdrawn a while ago', () => {
    const run = new RunDriver();
    const decision = only(queuedTasks(run.state));
    run.startDecisionTask();
    const started = run.state.latestEventTimestamp ?? 0;
    expect(entryStatus(run.state, decision, started + REMOVAL_GRACE_SECONDS)).toBe('stale');
    run.respond([scheduleActivity('a1')]);
    const activity = only(queuedTasks(run.state));
    expect(entryStatus(run.state, activity, run.now)).toBe('claimable');
    run.terminate();
    const closed = run.state.latestEventTimestamp ?? 0;
    expect(entryStatus(run.state, activity, closed + REMOVAL_GRACE_SECONDS + 1)).toBe('stale');
  });

  it('leaves the entry of a task that just left the queue to the commit that is removing it', () => {
    const run = new RunDriver();
    const decision = only(queuedTasks(run.state));
    run.startDecisionTask();
    const started = run.state.latestEventTimestamp ?? 0;
    expect(entryStatus(run.state, decision, started)).toBe('pending');
    expect(entryStatus(run.state, decision, started + REMOVAL_GRACE_SECONDS - 0.001)).toBe(
      'pending',
    );
    run.respond([scheduleActivity('a1')]);
    const activity = only(queuedTasks(run.state));
    run.terminate();
    expect(entryStatus(run.state, activity, run.state.latestEventTimestamp ?? 0)).toBe('pending');
  });

  it('leaves an entry whose commit has not landed, until the grace is over', () => {
    const run = new RunDriver();
    const next = run.state.nextEventId;
    const ahead: QueuedTaskRef = {
      ...only(queuedTasks(run.state)),
      scheduledEventId: next,
      scheduledAt: T0 + 10,
    };
    expect(entryStatus(run.state, ahead, T0 + 10)).toBe('pending');
    expect(entryStatus(undefined, ahead, T0 + 10 + UNCOMMITTED_ENTRY_GRACE_SECONDS - 1)).toBe(
      'pending',
    );
    expect(entryStatus(run.state, ahead, T0 + 10 + UNCOMMITTED_ENTRY_GRACE_SECONDS)).toBe('stale');
    expect(entryStatus(undefined, ahead, T0 + 10 + UNCOMMITTED_ENTRY_GRACE_SECONDS)).toBe('stale');
  });

  it('drops an entry for an event the run committed as something else', () => {
    const run = new RunDriver();
    const decision = only(queuedTasks(run.state));
    run.signal('s');
    // The signal's event id, claimed by an entry of a commit that lost its race.
    const lost: QueuedTaskRef = { ...decision, scheduledEventId: run.lastEventId() };
    const signalled = run.state.latestEventTimestamp ?? 0;
    expect(entryStatus(run.state, lost, signalled + REMOVAL_GRACE_SECONDS)).toBe('stale');
  });
});
