/**
 * Polls with a wake channel (Lambda containers): a woken poll goes first for the task its wake
 * names, not the queue's head (one wake, one poll: no herd on the head); it waits on the channel,
 * not on a timer, so it reads its queue only when it starts and when woken; a channel that fails
 * leaves the poll to re-read its queue on time, as without a channel.
 */
import { describe, expect, it } from 'vitest';
import { NoTaskNotifier } from '../../../lib/adapters/in-process/task-notifier.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import type { QueuedTaskRef } from '../../../lib/core/task-queue.js';
import type { OperationDeps } from '../../../lib/operations/context.js';
import {
  longPoll,
  type Take,
  type TaskInHand,
  WAKE_IN_FLIGHT_MS,
  wakeInFlight,
} from '../../../lib/operations/long-poll.js';
import type { TaskWakes, WakeListener } from '../../../lib/ports/task-wakes.js';

/** A queued task, scheduled long ago, or `scheduledAt` (epoch seconds). */
const entry = (scheduledEventId: number, scheduledAt = 0): QueuedTaskRef => ({
  kind: 'activity',
  domain: 'd',
  runId: `run-${scheduledEventId}`,
  taskList: 'l',
  taskPriority: '0',
  scheduledAt,
  scheduledEventId,
});
/** A task scheduled just now: its wake may be on its way to a waiting poll. */
const fresh = (scheduledEventId: number) => entry(scheduledEventId, Date.now() / 1000);

const inHand = (id: number): TaskInHand => ({
  state: { execution: { workflowId: 'w', runId: `run-${id}` } } as ExecutionState,
  startedEventId: id,
});

/** A channel whose wakes the test sends; `fail` makes every wait reject. */
class TestWakes implements TaskWakes {
  readonly pending: ((woken: { task?: QueuedTaskRef } | undefined) => void)[] = [];
  listens = 0;
  waits = 0;
  fail = false;

  async listen(): Promise<WakeListener> {
    this.listens += 1;
    return {
      next: (ms, signal) => {
        this.waits += 1;
        if (this.fail) return Promise.reject(new Error('SQS is down'));
        return new Promise((resolve) => {
          const timer = setTimeout(() => end(undefined), ms);
          const end = (woken: { task?: QueuedTaskRef } | undefined) => {
            clearTimeout(timer);
            const at = this.pending.indexOf(end);
            if (at >= 0) this.pending.splice(at, 1);
            resolve(woken);
          };
          this.pending.push(end);
          signal.addEventListener('abort', () => end(undefined), { once: true });
        });
      },
    };
  }

  async wake(): Promise<void> {}

  /** Wakes the first waiting poll with a wake naming `task`. */
  send(task: QueuedTaskRef): void {
    this.pending.shift()?.({ task });
  }
}

function setup(wakes: TestWakes, recheckMs = 60_000, maxWaitMs = 5_000) {
  const queue: QueuedTaskRef[] = [];
  const peeks: number[] = [];
  const attempts: number[] = [];
  const deps = {
    notifier: new NoTaskNotifier(),
    wakes,
    clock: { now: () => Date.now() },
    polling: { maxWaitMs, recheckMs },
    taskQueues: {
      peekQueue: async () => {
        peeks.push(Date.now());
        return [...queue];
      },
    },
    runs: { loadRun: async () => undefined },
  } as unknown as OperationDeps;
  const take = async (e: QueuedTaskRef): Promise<Take<TaskInHand>> => {
    attempts.push(e.scheduledEventId);
    const at = queue.findIndex((q) => q.scheduledEventId === e.scheduledEventId);
    if (at < 0) return 'pending';
    queue.splice(at, 1);
    return { task: inHand(e.scheduledEventId) };
  };
  const poll = (signal = new AbortController().signal) =>
    longPoll(deps, { signal } as never, { kind: 'activity', domain: 'd', taskList: 'l' }, take);
  return { queue, peeks, attempts, poll };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('a long poll with a wake channel', () => {
  it('listens before it first reads the queue, then waits on the channel, not on a timer', async () => {
    const wakes = new TestWakes();
    const { peeks, poll } = setup(wakes, 50);
    const stop = new AbortController();
    const answer = poll(stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // One look when it started: no re-reads every 50 ms while the channel is quiet.
    expect(wakes.listens).toBe(1);
    expect(peeks).toHaveLength(1);
    stop.abort();
    expect(await answer).toBeUndefined();
  });

  it('goes first for the task its wake names, not the queue head', async () => {
    const wakes = new TestWakes();
    const { queue, attempts, poll } = setup(wakes);
    const answer = poll();
    await settle();
    queue.push(entry(1), entry(2), entry(3));
    wakes.send(entry(3));
    expect((await answer)?.startedEventId).toBe(3);
    expect(attempts).toEqual([3]);
  });

  it('woken for a task another poll took, takes the queue head instead', async () => {
    const wakes = new TestWakes();
    const { queue, attempts, poll } = setup(wakes);
    const answer = poll();
    await settle();
    queue.push(entry(1));
    wakes.send(entry(7));
    expect((await answer)?.startedEventId).toBe(1);
    expect(attempts).toEqual([7, 1]);
  });

  it('ignores the task a wake names on another list', async () => {
    const wakes = new TestWakes();
    const { queue, attempts, poll } = setup(wakes);
    const answer = poll();
    await settle();
    queue.push(entry(1));
    wakes.send({ ...entry(2), taskList: 'other' });
    expect((await answer)?.startedEventId).toBe(1);
    expect(attempts).toEqual([1]);
  });

  it('re-reads its queue on time when the channel fails', async () => {
    const wakes = new TestWakes();
    wakes.fail = true;
    const { queue, poll } = setup(wakes, 50);
    const answer = poll();
    await new Promise((resolve) => setTimeout(resolve, 120));
    queue.push(entry(4));
    expect((await answer)?.startedEventId).toBe(4);
    // The failed channel was given up, not retried in a loop.
    expect(wakes.waits).toBe(1);
  });
});

describe('a poll that starts while wakes are on their way', () => {
  it('judges a task in its wake’s way while it is younger than the leave time', () => {
    const task = entry(1, 100);
    expect(wakeInFlight(task, 100_000 + WAKE_IN_FLIGHT_MS - 1, WAKE_IN_FLIGHT_MS)).toBe(true);
    expect(wakeInFlight(task, 100_000 + WAKE_IN_FLIGHT_MS, WAKE_IN_FLIGHT_MS)).toBe(false);
    // No leave time (no channel, or the poll's time nearly up): nothing is left.
    expect(wakeInFlight(task, 100_000, 0)).toBe(false);
  });

  it('leaves the task a wake names to the woken poll instead of racing it for it', async () => {
    const wakes = new TestWakes();
    const { queue, attempts, poll } = setup(wakes);
    const waiting = poll();
    await settle();
    queue.push(fresh(2));
    const stop = new AbortController();
    const starting = poll(stop.signal);
    await settle();
    wakes.send(fresh(2));
    expect((await waiting)?.startedEventId).toBe(2);
    // One claim for the task: the poll that started read the queue and left it.
    expect(attempts).toEqual([2]);
    stop.abort();
    expect(await starting).toBeUndefined();
  });

  it('takes older tasks at once, and one whose wake never came a moment later', async () => {
    const wakes = new TestWakes();
    const { queue, attempts, peeks, poll } = setup(wakes);
    queue.push(entry(1), fresh(3));
    expect((await poll())?.startedEventId).toBe(1);
    const started = Date.now();
    expect((await poll())?.startedEventId).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(attempts).toEqual([1, 3]);
    expect(peeks).toHaveLength(3);
  });

  it('takes what it finds at once when its time is nearly up', async () => {
    const wakes = new TestWakes();
    const { queue, poll } = setup(wakes, 60_000, 1_500);
    queue.push(fresh(4));
    const started = Date.now();
    expect((await poll())?.startedEventId).toBe(4);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('hands every task out once, those whose wakes were lost included', async () => {
    const wakes = new TestWakes();
    const { queue, attempts, poll } = setup(wakes);
    const waiting = [poll(), poll(), poll()];
    await settle();
    queue.push(fresh(1), fresh(2), fresh(3), fresh(4), fresh(5));
    const starting = [poll(), poll()];
    await settle();
    // Wakes for three tasks reach the three waiting polls; those of 4 and 5 are lost.
    for (const id of [1, 2, 3]) wakes.send(fresh(id));
    const got = await Promise.all([...waiting, ...starting]);
    expect(got.map((t) => t?.startedEventId).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(queue).toEqual([]);
    // The woken polls went straight for their tasks: only the lost wakes' tasks could be contended.
    expect(attempts.slice(0, 3)).toEqual([1, 2, 3]);
  });
});
