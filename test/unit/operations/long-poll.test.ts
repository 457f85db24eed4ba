/**
 * Pollers of one process that look at the same queue heads at once do not all read the head's run to
 * lose the same race: each goes for an entry no other poller of the process holds.
 */
import { describe, expect, it } from 'vitest';
import {
  InProcessTaskNotifier,
  NoTaskNotifier,
} from '../../../lib/adapters/memory/task-notifier.js';
import type { QueuedTaskRef } from '../../../lib/core/task-queue.js';
import type { OperationDeps } from '../../../lib/operations/context.js';
import { longPoll, type Take } from '../../../lib/operations/long-poll.js';
import type { TaskNotifier } from '../../../lib/ports/task-notifier.js';

const entry = (scheduledEventId: number): QueuedTaskRef => ({
  kind: 'activity',
  domain: 'd',
  runId: `run-${scheduledEventId}`,
  taskList: 'l',
  taskPriority: '0',
  scheduledAt: 0,
  scheduledEventId,
});

/** A queue of three entries that stay listed until a poller has taken them. */
function setup(notifier: TaskNotifier) {
  const queue = [entry(1), entry(2), entry(3)];
  const attempts: number[] = [];
  const deps = {
    notifier,
    clock: { now: () => Date.now() },
    polling: { maxWaitMs: 1_000, recheckMs: 50 },
    executions: { peekQueue: async () => [...queue] },
  } as unknown as OperationDeps;
  /** Reading a run takes a moment; the first poller to read an entry's run starts its task. */
  const take = async (e: QueuedTaskRef): Promise<Take<number>> => {
    attempts.push(e.scheduledEventId);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const at = queue.findIndex((q) => q.scheduledEventId === e.scheduledEventId);
    if (at < 0) return 'pending'; // started by another poller, its entry on the way out
    queue.splice(at, 1);
    return { task: e.scheduledEventId };
  };
  const poll = () =>
    longPoll(
      deps,
      { requestId: 'r', signal: new AbortController().signal },
      { kind: 'activity', domain: 'd', taskList: 'l' },
      take,
    );
  return { poll, attempts };
}

describe('longPoll', () => {
  it('sends concurrent pollers of one process to different entries', async () => {
    const { poll, attempts } = setup(new InProcessTaskNotifier());
    const tasks = await Promise.all([poll(), poll(), poll()]);
    expect([...tasks].sort()).toEqual([1, 2, 3]);
    expect([...attempts].sort()).toEqual([1, 2, 3]); // each run read once
  });

  it('across containers every poller tries the head (nothing to coordinate with)', async () => {
    const { poll, attempts } = setup(new NoTaskNotifier());
    const tasks = await Promise.all([poll(), poll(), poll()]);
    expect([...tasks].sort()).toEqual([1, 2, 3]);
    expect(attempts.filter((id) => id === 1)).toHaveLength(3);
  });
});
