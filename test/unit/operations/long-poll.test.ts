/**
 * Pollers of one process that look at the same queue heads at once do not all read the head's run to
 * lose the same race: each goes for an entry no other poller of the process holds. A task a gone
 * caller left is taken first, if it is still started.
 */
import { describe, expect, it } from 'vitest';
import {
  InProcessTaskNotifier,
  NoTaskNotifier,
} from '../../../lib/adapters/in-process/task-notifier.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import type { QueuedTaskRef } from '../../../lib/core/task-queue.js';
import type { OperationDeps } from '../../../lib/operations/context.js';
import { longPoll, type Take, type TaskInHand } from '../../../lib/operations/long-poll.js';
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

/** A started activity task of run `run-<id>`, its started event `id`. */
const inHand = (id: number): TaskInHand => ({
  state: { execution: { workflowId: 'w', runId: `run-${id}` } } as ExecutionState,
  startedEventId: id,
});

/** A run that has the activity whose started event is `startedEventId` still started. */
const runStarting = (startedEventId: number) => ({
  state: {
    status: 'OPEN',
    execution: { workflowId: 'w', runId: 'r' },
    startTimestamp: Date.now() / 1000,
    config: { executionStartToCloseTimeout: '3600' },
    timers: {},
    lambdaFunctions: {},
    decisionTask: { status: 'none' },
    activities: {
      '5': {
        activityId: '5',
        scheduledEventId: 4,
        scheduledAt: Date.now() / 1000,
        startedEventId,
        startedAt: Date.now() / 1000,
        timeouts: {
          scheduleToStart: 'NONE',
          scheduleToClose: 'NONE',
          startToClose: 'NONE',
          heartbeat: 'NONE',
        },
      },
    },
  },
});

/** A queue of three entries that stay listed until a poller has taken them. */
function setup(notifier: TaskNotifier, runs: Record<string, unknown> = {}) {
  const queue = [entry(1), entry(2), entry(3)];
  const attempts: number[] = [];
  const deps = {
    notifier,
    clock: { now: () => Date.now() },
    polling: { maxWaitMs: 1_000, recheckMs: 50 },
    taskQueues: { peekQueue: async () => [...queue] },
    runs: { loadRun: async (runId: string) => runs[runId] },
  } as unknown as OperationDeps;
  /** Reading a run takes a moment; the first poller to read an entry's run starts its task. */
  const take = async (e: QueuedTaskRef): Promise<Take<TaskInHand>> => {
    attempts.push(e.scheduledEventId);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const at = queue.findIndex((q) => q.scheduledEventId === e.scheduledEventId);
    if (at < 0) return 'pending'; // started by another poller, its entry on the way out
    queue.splice(at, 1);
    return { task: inHand(e.scheduledEventId) };
  };
  const poll = async () =>
    (
      await longPoll(
        deps,
        { requestId: 'r', signal: new AbortController().signal },
        { kind: 'activity', domain: 'd', taskList: 'l' },
        take,
      )
    )?.startedEventId;
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

  it('first takes a task a gone caller left, if its run still has it started', async () => {
    const notifier = new InProcessTaskNotifier();
    // Run 8's task timed out (or was answered) while it waited; run 9's is still started.
    const { poll, attempts } = setup(notifier, {
      'run-8': runStarting(77),
      'run-9': runStarting(9),
    });
    notifier.orphan('activity', 'd', 'l', inHand(8));
    notifier.orphan('activity', 'd', 'l', inHand(9));
    expect(await poll()).toBe(9);
    expect(attempts).toEqual([]); // the queue was not read
    expect(await poll()).toBe(1);
  });
});

describe('idle long polls of one process', () => {
  /** `count` polls of an empty list, for 1 s with a 50 ms recheck: how many reads of the queue. */
  async function reads(notifier: TaskNotifier, count: number) {
    let peeks = 0;
    const deps = {
      notifier,
      clock: { now: () => Date.now() },
      polling: { maxWaitMs: 1_000, recheckMs: 50 },
      taskQueues: {
        peekQueue: async () => {
          peeks++;
          return [];
        },
      },
      runs: { loadRun: async () => undefined },
    } as unknown as OperationDeps;
    const list = { kind: 'activity' as const, domain: 'd', taskList: 'l' };
    const poll = () =>
      longPoll(deps, { requestId: 'r', signal: new AbortController().signal }, list, async () =>
        Promise.resolve('dropped' as const),
      );
    const answers = await Promise.all(Array.from({ length: count }, poll));
    expect(answers.every((a) => a === undefined)).toBe(true);
    return peeks;
  }

  it('read their queue once per list per recheck interval, not once per poll', async () => {
    // 20 polls: each looks when it comes (20), then one look per 50 ms stands for all of them; none
    // looks at its deadline, since a task queued in the process would have woken it.
    const peeks = await reads(new InProcessTaskNotifier(), 20);
    expect(peeks).toBeGreaterThanOrEqual(20);
    expect(peeks).toBeLessThanOrEqual(20 + 22);
  });

  it('each read it on their own across containers, where no wake reaches them', async () => {
    // Each of the 20 looks about every 50 ms: some 20 looks a poll.
    expect(await reads(new NoTaskNotifier(), 20)).toBeGreaterThan(20 * 10);
  });
});

describe("a long poll's time", () => {
  it('runs from when the edge took the request, not from when its turn came', async () => {
    const deps = {
      notifier: new InProcessTaskNotifier(),
      clock: { now: () => Date.now() },
      polling: { maxWaitMs: 1_000, recheckMs: 1_000 },
      taskQueues: { peekQueue: async () => [] },
      runs: { loadRun: async () => undefined },
    } as unknown as OperationDeps;
    const list = { kind: 'activity' as const, domain: 'd', taskList: 'l' };
    const pollTaken = async (receivedAt: number | undefined) => {
      const began = performance.now();
      const request = {
        requestId: 'r',
        signal: new AbortController().signal,
        ...(receivedAt === undefined ? {} : { receivedAt }),
      };
      await longPoll(deps, request, list, async () => 'dropped' as const);
      return performance.now() - began;
    };
    // Taken 600 ms before its turn came: 400 ms are left of its second.
    const late = await pollTaken(performance.now() - 600);
    expect(late).toBeGreaterThanOrEqual(350);
    expect(late).toBeLessThan(700);
    expect(await pollTaken(undefined)).toBeGreaterThanOrEqual(950);
  });
});
