/**
 * A claim whose task is gone removes the queue entry it read, but not the entry of a task a wake
 * named: that one was not read from the queue, and the commit that started its task removes it.
 */
import { describe, expect, it } from 'vitest';
import type { QueuedTaskRef } from '../../../lib/core/task-queue.js';
import type { OperationDeps } from '../../../lib/operations/context.js';
import { claimQueuedTask } from '../../../lib/operations/long-poll.js';

/** A task of a run that is gone, scheduled long ago: nobody can start it. */
const gone: QueuedTaskRef = {
  kind: 'activity',
  domain: 'd',
  runId: 'no-such-run',
  taskList: 'l',
  taskPriority: '0',
  scheduledAt: 0,
  scheduledEventId: 5,
};

function setup() {
  const dropped: QueuedTaskRef[][] = [];
  const deps = {
    clock: { now: () => Date.now() },
    runs: { loadRun: async () => undefined },
    taskQueues: {
      dropQueueEntries: async (entries: readonly QueuedTaskRef[]) => {
        dropped.push([...entries]);
      },
    },
  } as unknown as OperationDeps;
  const claim = (entry: QueuedTaskRef & { named?: true }) =>
    claimQueuedTask(deps, entry, () => {
      throw new Error('nothing to start');
    });
  return { dropped, claim };
}

describe('claimQueuedTask on a task that is gone', () => {
  it('removes the entry it read from the queue', async () => {
    const { dropped, claim } = setup();
    expect(await claim(gone)).toBe('dropped');
    expect(dropped).toEqual([[gone]]);
  });

  it('leaves the entry of a task a wake named alone', async () => {
    const { dropped, claim } = setup();
    expect(await claim({ ...gone, named: true })).toBe('dropped');
    expect(dropped).toEqual([]);
  });
});
