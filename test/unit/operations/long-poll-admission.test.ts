/**
 * A poll takes its place among its list's waiting polls (its lease slots, deployed) only when it is
 * about to wait: one that finds its task at its first look never waited, and writes no lease; one
 * that waits holds its slot while it waits and frees it when it ends, on the wake channel or by
 * rechecks.
 */
import { describe, expect, it } from 'vitest';
import { NoTaskNotifier } from '../../../lib/adapters/in-process/task-notifier.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import type { QueuedTaskRef } from '../../../lib/core/task-queue.js';
import type { OperationDeps } from '../../../lib/operations/context.js';
import { longPoll, type Take, type TaskInHand } from '../../../lib/operations/long-poll.js';
import type { LeaseSpace } from '../../../lib/ports/poller-leases.js';
import type { TaskWakes } from '../../../lib/ports/task-wakes.js';
import { InMemoryPollerLeases } from '../../support/fakes/poller-leases.js';

const list = { kind: 'activity', domain: 'd', taskList: 'l' } as const;
const queued = (scheduledEventId: number): QueuedTaskRef => ({
  ...list,
  runId: `run-${scheduledEventId}`,
  taskPriority: '0',
  scheduledAt: 0,
  scheduledEventId,
});

/** The in-memory leases, counting the slots taken and freed. */
class CountedLeases extends InMemoryPollerLeases {
  taken = 0;
  freed = 0;
  /** Called as each slot is taken. */
  onTake = () => {};
  override async takeSlot(...args: Parameters<InMemoryPollerLeases['takeSlot']>) {
    const took = await super.takeSlot(...args);
    if (took) this.taken += 1;
    this.onTake();
    return took;
  }
  override async freeSlot(space: LeaseSpace, slot: number, holder: string) {
    this.freed += 1;
    return super.freeSlot(space, slot, holder);
  }
}

/** A channel that never wakes anyone: a poll on it waits until its time is up. */
const quietChannel: TaskWakes = {
  listen: async () => ({
    next: (ms, signal) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), ms);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
      }),
  }),
  wake: async () => {},
};

function setup(channel: TaskWakes | undefined, maxWaitMs = 1_200) {
  const leases = new CountedLeases();
  const queue: QueuedTaskRef[] = [];
  const deps = {
    notifier: new NoTaskNotifier(),
    ...(channel === undefined ? {} : { wakes: channel }),
    clock: { now: () => Date.now() },
    polling: { maxWaitMs, recheckMs: 100 },
    pollerLeasing: { store: leases, maxWaitingPolls: 10 },
    taskQueues: { peekQueue: async () => [...queue] },
    runs: { loadRun: async () => undefined },
  } as unknown as OperationDeps;
  const take = async (e: QueuedTaskRef): Promise<Take<TaskInHand>> => {
    const at = queue.findIndex((q) => q.scheduledEventId === e.scheduledEventId);
    if (at < 0) return 'pending';
    queue.splice(at, 1);
    const state = { execution: { workflowId: 'w', runId: e.runId } } as ExecutionState;
    return { task: { state, startedEventId: e.scheduledEventId } };
  };
  const poll = () => longPoll(deps, { signal: new AbortController().signal } as never, list, take);
  return { leases, queue, poll };
}

describe.each([
  ['on the wake channel', quietChannel],
  ['by rechecks', undefined],
])('a deployed long poll %s', (_, channel) => {
  it('that finds its task at its first look writes no lease', async () => {
    const { leases, queue, poll } = setup(channel);
    queue.push(queued(1));
    expect((await poll())?.startedEventId).toBe(1);
    expect(leases.taken).toBe(0);
    expect(leases.freed).toBe(0);
  });

  it('that waits holds a slot of its list and of the service while it waits, then frees them', async () => {
    const { leases, poll } = setup(channel);
    const answer = poll();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(leases.taken).toBe(2);
    expect(await answer).toBeUndefined();
    expect(leases.freed).toBe(2);
  });
});

describe('a deployed long poll and the polls its list’s leases show waiting', () => {
  const young = (id: number) => ({ ...queued(id), scheduledAt: Date.now() / 1000 });
  const otherWaits = (leases: CountedLeases) =>
    leases.takeSlot(
      { scope: 'list', ...list },
      5,
      { holder: 'other', until: Date.now() + 60_000 },
      0,
    );

  it('takes a task scheduled just now when no other poll waits: no wake went anywhere', async () => {
    const { leases, queue, poll } = setup(quietChannel, 5_000);
    queue.push(young(1));
    const began = Date.now();
    expect((await poll())?.startedEventId).toBe(1);
    expect(Date.now() - began).toBeLessThan(300);
    expect(leases.taken).toBe(0);
  });

  it('leaves it to the waiting poll its wake went to, taking no lease for that moment', async () => {
    const { leases, queue, poll } = setup(quietChannel, 5_000);
    await otherWaits(leases);
    queue.push(young(2));
    const answer = poll();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(queue).toHaveLength(1);
    expect(leases.taken).toBe(1);
    // No poll took it: a second later the poll looks again, and takes it.
    expect((await answer)?.startedEventId).toBe(2);
    expect(leases.taken).toBe(1);
  });

  it('about to wait, takes its lease and then looks once more: a commit before saw nobody', async () => {
    const { leases, queue, poll } = setup(quietChannel, 5_000);
    // Queued after the poll's first look, and before its lease: no wake was sent for it.
    leases.onTake = () => {
      if (queue.length === 0 && leases.taken === 1) queue.push(queued(3));
    };
    const began = Date.now();
    expect((await poll())?.startedEventId).toBe(3);
    expect(Date.now() - began).toBeLessThan(500);
  });
});
