/**
 * The SQS wake channel against an SQS-compatible server (test/support/deployed/sqs-server.ts): a
 * queue per task list made by the first listener, one wake per task (ten to a request), one wake
 * reaching one waiting poll with the task it names, nothing sent where nobody ever listened, and a
 * wait that ends on its time or its signal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsTaskWakes } from '../../../lib/adapters/aws/sqs-task-wakes.js';
import type { QueuedTaskRef } from '../../../lib/core/task-queue.js';
import { SqsServer } from '../../support/deployed/sqs-server.js';

const task = (scheduledEventId: number, taskList = 'l'): QueuedTaskRef => ({
  kind: 'activity',
  domain: 'd',
  runId: `run-${scheduledEventId}`,
  taskList,
  taskPriority: '0',
  scheduledAt: 1,
  scheduledEventId,
});

let sqs: SqsServer;
const wakesOn = () =>
  new SqsTaskWakes({
    queuePrefix: 'test-wake',
    client: {
      endpoint: sqs.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    },
  });

beforeAll(async () => {
  sqs = await new SqsServer().start();
});
afterAll(async () => {
  await sqs.close();
});

describe('SqsTaskWakes', () => {
  it('sends nothing to a list nobody listened on', async () => {
    sqs.resetCounters();
    await wakesOn().wake([task(1, 'nobody')]);
    expect(sqs.requests).toEqual({ GetQueueUrl: 1 });
    expect(sqs.queueNames()).toEqual([]);
  });

  it('wakes one waiting poll per task, naming it, from another process', async () => {
    const poller = wakesOn();
    const [first, second] = await Promise.all([
      poller.listen('activity', 'd', 'one-each'),
      poller.listen('activity', 'd', 'one-each'),
    ]);
    const signal = new AbortController().signal;
    const waits = [first?.next(5_000, signal), second?.next(5_000, signal)];
    sqs.resetCounters();
    await wakesOn().wake([task(1, 'one-each'), task(2, 'one-each')]);
    const woken = await Promise.all(waits);
    expect(woken.map((w) => w?.task?.scheduledEventId).sort()).toEqual([1, 2]);
    expect(woken[0]?.task).toEqual(expect.objectContaining({ runId: expect.any(String) }));
    // One lookup and one batch for both tasks, one receive each: a wake taken is not deleted, it
    // stays hidden until SQS drops it.
    expect(sqs.requests).toEqual({ ReceiveMessage: 2, GetQueueUrl: 1, SendMessageBatch: 1 });
  });

  it('hides a wake it took until SQS has dropped it, so nobody takes it again', async () => {
    const poller = wakesOn();
    const listener = await poller.listen('activity', 'd', 'taken-once');
    const signal = new AbortController().signal;
    const waiting = listener.next(5_000, signal);
    await wakesOn().wake([task(1, 'taken-once')]);
    expect((await waiting)?.task?.scheduledEventId).toBe(1);
    const name = poller.queueName('activity', 'd', 'taken-once');
    const [message] = sqs.messagesOf(name);
    const retentionMs = 60_000;
    expect(message?.visibleAt).toBeGreaterThan((message?.sentAt ?? 0) + retentionMs);
    expect(await listener.next(1_000, signal)).toBeUndefined();
  });

  it('sends ten wakes to a request', async () => {
    const listener = await wakesOn().listen('activity', 'd', 'batches');
    sqs.resetCounters();
    await wakesOn().wake(Array.from({ length: 23 }, (_, i) => task(i, 'batches')));
    expect(sqs.requests.SendMessageBatch).toBe(3);
    const signal = new AbortController().signal;
    const got = new Set<number | undefined>();
    for (let i = 0; i < 23; i++)
      got.add((await listener.next(1_000, signal))?.task?.scheduledEventId);
    expect(got.size).toBe(23);
  });

  it('keeps a queue per list and kind, within SQS names', () => {
    const wakes = wakesOn();
    const a = wakes.queueName('activity', 'd', 'l');
    expect(a).toMatch(/^test-wake-a-[0-9a-f]{40}$/);
    expect(wakes.queueName('decision', 'd', 'l')).not.toBe(a);
    expect(wakes.queueName('activity', 'd', 'l2')).not.toBe(a);
    expect(wakes.queueName('activity', 'd2', 'l')).not.toBe(a);
  });

  it('ends a wait on its time, and at once on its signal', async () => {
    const listener = await wakesOn().listen('decision', 'd', 'quiet');
    const began = Date.now();
    expect(await listener.next(1_200, new AbortController().signal)).toBeUndefined();
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
    const stop = new AbortController();
    const waiting = listener.next(10_000, stop.signal);
    const stoppedAt = Date.now();
    stop.abort();
    expect(await waiting).toBeUndefined();
    expect(Date.now() - stoppedAt).toBeLessThan(500);
  });

  it('rejects a wait when SQS fails, so the poll rechecks instead', async () => {
    const lost = await new SqsServer().start();
    const wakes = new SqsTaskWakes({
      queuePrefix: 'test-wake',
      client: {
        endpoint: lost.url,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        maxAttempts: 1,
      },
    });
    const listener = await wakes.listen('decision', 'd', 'failing');
    await lost.close();
    await expect(listener.next(5_000, new AbortController().signal)).rejects.toThrow();
  });

  it('keeps a long poll per waiting poll in flight, past the SDK’s 50 sockets', async () => {
    // One process serving many invocations (Lambda Managed Instances) holds a long poll per poll.
    const poller = wakesOn();
    const controller = new AbortController();
    const crowd = await Promise.all(
      Array.from({ length: 60 }, () => poller.listen('activity', 'd', 'crowded')),
    );
    const waiting = crowd.map((l) => l?.next(10_000, controller.signal));
    const other = await poller.listen('activity', 'd', 'quiet');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const woken = other?.next(10_000, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await wakesOn().wake([task(7, 'quiet')]);
    expect((await woken)?.task?.scheduledEventId).toBe(7);
    expect(Date.now() - started).toBeLessThan(2_000);
    controller.abort();
    await Promise.all(waiting);
  });
});
