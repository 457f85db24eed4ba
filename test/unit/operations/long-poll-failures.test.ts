/**
 * A waiting poll whose reads of its queue fail for a moment (DynamoDB throttling them, a 5xx, a
 * read that never answers) answers its empty task by its deadline, never a fault, and takes the task
 * once a read succeeds: nothing queued is lost. A failure that is no passing one still surfaces.
 */
import { describe, expect, it } from 'vitest';
import { NoTaskNotifier } from '../../../lib/adapters/in-process/task-notifier.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import type { QueuedTaskRef } from '../../../lib/core/task-queue.js';
import type { OperationDeps } from '../../../lib/operations/context.js';
import { longPoll, type Take, type TaskInHand } from '../../../lib/operations/long-poll.js';
import { TransientServiceError } from '../../../lib/ports/transient-failure.js';

const MAX_WAIT_MS = 400;
/** How late past its deadline an answer may come here (timers, a shared machine). */
const SLACK_MS = 150;

const queued: QueuedTaskRef = {
  kind: 'activity',
  domain: 'd',
  runId: 'run-1',
  taskList: 'l',
  taskPriority: '0',
  scheduledAt: 0,
  scheduledEventId: 5,
};

const throttled = () =>
  new TransientServiceError(true, new Error('ProvisionedThroughputExceededException'));

/** A poll over a queue whose reads `peek` answers; what it got and how long it took. */
async function poll(peek: (reads: number) => Promise<QueuedTaskRef[]>) {
  let reads = 0;
  const deps = {
    notifier: new NoTaskNotifier(),
    clock: { now: () => Date.now() },
    polling: { maxWaitMs: MAX_WAIT_MS, recheckMs: 50 },
    taskQueues: { peekQueue: () => peek(++reads) },
  } as unknown as OperationDeps;
  const take = async (e: QueuedTaskRef): Promise<Take<TaskInHand>> => ({
    task: { state: { execution: { runId: e.runId } } as ExecutionState, startedEventId: 6 },
  });
  const started = Date.now();
  const task = await longPoll(
    deps,
    { requestId: 'r', signal: new AbortController().signal },
    { kind: 'activity', domain: 'd', taskList: 'l' },
    take,
  );
  return { task, ms: Date.now() - started, reads: () => reads };
}

describe('a waiting poll whose reads fail', () => {
  it('answers empty by its deadline while every read is throttled', async () => {
    const { task, ms, reads } = await poll(async () => {
      throw throttled();
    });
    expect(task).toBeUndefined();
    expect(ms).toBeGreaterThanOrEqual(MAX_WAIT_MS - 5);
    expect(ms).toBeLessThan(MAX_WAIT_MS + SLACK_MS);
    // It kept looking at each recheck, not only once.
    expect(reads()).toBeGreaterThan(3);
  });

  it('answers empty by its deadline while a read never answers', async () => {
    const { task, ms } = await poll(() => new Promise(() => {}));
    expect(task).toBeUndefined();
    expect(ms).toBeLessThan(MAX_WAIT_MS + SLACK_MS);
  });

  it('takes the queued task once the store answers again', async () => {
    const { task, ms } = await poll(async (reads) => {
      if (reads <= 3) throw throttled();
      return [queued];
    });
    expect(task?.state.execution.runId).toBe('run-1');
    expect(ms).toBeLessThan(MAX_WAIT_MS);
  });

  it('fails on an error that is no passing one', async () => {
    await expect(
      poll(async () => {
        throw new Error('ValidationException: the key is malformed');
      }),
    ).rejects.toThrow('malformed');
  });
});
