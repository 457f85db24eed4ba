/**
 * A queue entry is written just before the commit that schedules its task: a poller judges it on its
 * run's latest state, leaving one whose commit has not landed yet and dropping one whose task is gone.
 */
import { describe, expect, it } from 'vitest';
import { outboxEffects } from '../../../lib/core/outbox.js';
import {
  entryStatus,
  pushedTasks,
  pushTask,
  type QueuedTaskRef,
  queueChanges,
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

describe('push task lists', () => {
  it('keeps a task given to a function out of the queue, and out of the queue writes', () => {
    const run = new RunDriver();
    const decision = only(queuedTasks(run.state));
    const pushed = pushTask(run.state, decision, 'decider-fn');
    expect(queuedTasks(pushed)).toEqual([]);
    expect(pushedTasks(pushed)).toEqual([{ ...decision, target: 'decider-fn' }]);
    expect(queueChanges(pushed, pushed)).toEqual({ add: [], remove: [] });
    // Once started, it is nobody's to push any more, and no queue entry is removed for it.
    run.state = pushed;
    run.startDecisionTask();
    expect(pushedTasks(run.state)).toEqual([]);
    expect(queueChanges(pushed, run.state)).toEqual({ add: [], remove: [] });
  });

  it('marks only the activity it is given; a closed run has nothing to push', () => {
    const run = new RunDriver();
    run.startDecisionTask();
    run.respond([scheduleActivity('a1'), scheduleActivity('a2')]);
    const [first, second] = queuedTasks(run.state) as [QueuedTaskRef, QueuedTaskRef];
    const pushed = pushTask(run.state, first, 'worker-fn');
    expect(queuedTasks(pushed)).toEqual([second]);
    expect(pushedTasks(pushed).map((t) => [t.scheduledEventId, t.target])).toEqual([
      [first.scheduledEventId, 'worker-fn'],
    ]);
    expect(() => pushTask(pushed, { ...second, scheduledEventId: 999 }, 'worker-fn')).toThrow(
      /not scheduled/,
    );
    run.state = pushed;
    run.terminate();
    expect(pushedTasks(run.state)).toEqual([]);
  });

  it('asks the outbox to push a task once: when it is given to the function', () => {
    const run = new RunDriver();
    const decision = only(queuedTasks(run.state));
    const pushed = pushTask(run.state, decision, 'decider-fn');
    const pushes = (before: typeof pushed | undefined, after: typeof pushed) =>
      outboxEffects(before, after).filter((e) => e.kind === 'push-task');
    expect(pushes(run.state, pushed)).toEqual([
      { kind: 'push-task', task: { ...decision, target: 'decider-fn' } },
    ]);
    expect(pushes(undefined, pushed)).toHaveLength(1);
    // A later change that leaves it waiting (a signal) does not push it again.
    expect(pushes(pushed, { ...pushed, nextEventId: pushed.nextEventId + 1 })).toEqual([]);
  });
});
