/**
 * A task scheduled on a push task list is started in the very commit that schedules it, for the
 * list's function, and handed to the function by the committer once the commit has landed: no queue
 * entry, no second commit, no stream record needed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InProcessTaskNotifier } from '../../../lib/adapters/in-process/task-notifier.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import type { HistoryEvent } from '../../../lib/core/history-event.js';
import { queueChanges } from '../../../lib/core/task-queue.js';
import type { OperationDeps } from '../../../lib/operations/context.js';
import { commitRuns } from '../../../lib/operations/run-mutation.js';
import type { CommitOutcome, RunWrite } from '../../../lib/ports/run-store.js';
import type { PushedTaskEvent, TaskPush } from '../../../lib/ports/task-push.js';
import { RunDriver, scheduleActivity } from '../../support/core-builders.js';

/** The activity type's default task list (core-builders), here served by a function. */
const LIST = 'activity-default-list';

/** A decision that schedules two activities, as the write RespondDecisionTaskCompleted commits. */
function schedulingWrite(): { write: RunWrite; before: ExecutionState } {
  const run = new RunDriver();
  run.startDecisionTask();
  const before = run.state;
  const base = { state: before, version: 3, recentEvents: [...run.history] };
  const { events } = run.respond([
    scheduleActivity('a1', { input: 'one' }),
    scheduleActivity('a2'),
  ]);
  const write: RunWrite = {
    state: run.state,
    base,
    events,
    queue: queueChanges(before, run.state),
  };
  return { write, before };
}

function deps(outcome: CommitOutcome, push: TaskPush['push']) {
  const committed: RunWrite[] = [];
  const pushed: PushedTaskEvent[] = [];
  const d = {
    runs: {
      commit: async (writes: readonly RunWrite[]) => {
        if (outcome === 'committed') committed.push(...writes);
        return outcome;
      },
    },
    clock: { now: () => 1_700_000_100_000 },
    registry: { getDomain: async () => undefined },
    notifier: new InProcessTaskNotifier(),
    taskTokens: { encode: async (claims: object) => JSON.stringify(claims) },
    push: {
      target: (kind: string, _domain: string, taskList: string) =>
        kind === 'activity' && taskList === LIST ? 'worker-fn' : undefined,
      push: async (target: string, event: PushedTaskEvent) => {
        pushed.push(event);
        return push(target, event);
      },
    },
  };
  return { deps: d as unknown as OperationDeps, committed, pushed };
}

const types = (events: readonly HistoryEvent[]) => events.map((e) => e.eventType);

afterEach(() => vi.restoreAllMocks());

describe('a commit that schedules tasks on a push task list', () => {
  it('starts them in the same commit, for the function, and hands each over once it has landed', async () => {
    const { write } = schedulingWrite();
    expect(write.queue.add).toHaveLength(2);
    const { deps: d, committed, pushed } = deps('committed', async () => undefined);

    expect(await commitRuns(d, [write], [])).toBe('committed');

    const [landed] = committed;
    if (landed === undefined) throw new Error('nothing committed');
    // Started in the scheduling commit by the function's name, and never queued.
    expect(types(landed.events)).toEqual([
      'DecisionTaskCompleted',
      'ActivityTaskScheduled',
      'ActivityTaskScheduled',
      'ActivityTaskStarted',
      'ActivityTaskStarted',
    ]);
    const started = landed.events.filter((e) => e.eventType === 'ActivityTaskStarted');
    expect(started.map((e) => e.attributes)).toEqual([
      expect.objectContaining({ identity: 'worker-fn' }),
      expect.objectContaining({ identity: 'worker-fn' }),
    ]);
    expect(landed.queue.add).toEqual([]);
    expect(
      Object.values(landed.state.activities).every((a) => a.startedEventId !== undefined),
    ).toBe(true);
    // Each function invoked once, with what PollForActivityTask would answer for its start.
    expect(pushed).toHaveLength(2);
    const a1 = pushed.find((e) => e.task.activityId === 'a1');
    expect(a1).toMatchObject({ source: 'swf.pushed-task', kind: 'activity', taskList: LIST });
    expect(a1?.task).toMatchObject({ input: 'one', activityType: { name: 'full', version: '1' } });
    const firstStart = started[0]?.eventId;
    expect(JSON.parse(String(a1?.task.taskToken))).toMatchObject({
      kind: 'activity',
      startedEventId: firstStart,
    });
  });

  it('hands nothing over when the commit does not land', async () => {
    const { write } = schedulingWrite();
    const { deps: d, pushed } = deps('conflict', async () => undefined);
    expect(await commitRuns(d, [write], [])).toBe('conflict');
    expect(pushed).toEqual([]);
  });

  it('still answers for the commit when a function cannot be reached: that task times out', async () => {
    const { write } = schedulingWrite();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const {
      deps: d,
      committed,
      pushed,
    } = deps('committed', async (_target, event) => {
      if (event.task.activityId === 'a1') throw new Error('TooManyRequestsException');
    });
    expect(await commitRuns(d, [write], [])).toBe('committed');
    expect(committed).toHaveLength(1);
    expect(pushed).toHaveLength(2);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]?.[0])).toContain('pushed task not delivered');
  });
});
