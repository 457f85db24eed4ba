/**
 * The SDK's activity-task handler of push task lists against a stub SWF: a pushed task (the poll's
 * answer in SWF's JSON) is run as a polled one would be, and answered through the API.
 */
import { describe, expect, it } from 'vitest';
import {
  ActivityCancelledError,
  type ActivityContext,
  ActivityFailure,
  activityTaskHandler,
  RESULT_NOT_SERIALIZABLE,
  WORKER_SHUTDOWN,
} from '../../lib/sdk/index.js';
import { lambdaContext } from '../support/lambda-events.js';
import {
  activityEvent,
  calls,
  client,
  stub,
  useStubService,
  waitsForSignal,
} from './pushed-task-support.js';
import { recordingLogger } from './support.js';

useStubService();

describe('activityTaskHandler', () => {
  it('runs a pushed activity with its input and ids, and reports it completed', async () => {
    let seen: { input: string | undefined; ctx: ActivityContext } | undefined;
    const ends: unknown[] = [];
    const handler = activityTaskHandler({
      client: client(),
      logger: recordingLogger(),
      onTaskEnd: (end) => ends.push(end),
      activities: {
        resize: (input, ctx) => {
          seen = { input, ctx };
          return { doubled: 4 };
        },
      },
    });

    const end = await handler(activityEvent(), lambdaContext());

    expect(seen?.input).toBe('{"n":2}');
    expect(seen?.ctx).toMatchObject({
      taskToken: 'tok-1',
      activityId: 'a1',
      activityType: { name: 'resize', version: '1' },
      workflowExecution: { workflowId: 'w1', runId: 'r1' },
      startedEventId: 6,
      input: '{"n":2}',
    });
    expect(end).toMatchObject({ outcome: 'completed', reported: 'sent', activityId: 'a1' });
    expect(ends).toEqual([end]);
    expect(calls()).toEqual([
      {
        action: 'RespondActivityTaskCompleted',
        body: { taskToken: 'tok-1', result: '{"doubled":4}' },
      },
    ]);
  });

  it('reports a failing activity as failed and resolves rather than throwing', async () => {
    const handler = activityTaskHandler({
      client: client(),
      logger: recordingLogger(),
      activities: {
        resize: () => {
          throw new ActivityFailure('too big', 'max 10 MB');
        },
      },
    });

    const end = await handler(activityEvent());

    expect(end).toMatchObject({ outcome: 'failed', reported: 'sent' });
    expect(calls()).toEqual([
      {
        action: 'RespondActivityTaskFailed',
        body: { taskToken: 'tok-1', reason: 'too big', details: 'max 10 MB' },
      },
    ]);
  });

  it('fails a task whose type has no activity, even a name every object inherits', async () => {
    const handler = activityTaskHandler({
      client: client(),
      logger: recordingLogger(),
      activities: { resize: () => 'resized' },
    });

    const end = await handler(
      activityEvent({ activityType: { name: 'constructor', version: '1' } }),
    );

    expect(end).toMatchObject({ outcome: 'failed', reported: 'sent' });
    expect(calls()).toEqual([
      {
        action: 'RespondActivityTaskFailed',
        body: { taskToken: 'tok-1', reason: 'unknown activity type constructor' },
      },
    ]);
  });

  it('fails a task whose result has no JSON, and a hook that throws fails nothing', async () => {
    const logger = recordingLogger();
    const handler = activityTaskHandler({
      client: client(),
      logger,
      onTaskEnd: () => {
        throw new Error('metrics sink down');
      },
      activities: { resize: () => ({ count: 10n }) },
    });

    const end = await handler(activityEvent());

    expect(end).toMatchObject({ outcome: 'failed', reported: 'sent' });
    expect(calls()).toMatchObject([
      {
        action: 'RespondActivityTaskFailed',
        body: { reason: RESULT_NOT_SERIALIZABLE, details: expect.stringMatching(/BigInt/) },
      },
    ]);
    expect(logger.lines.map((l) => l.message)).toContain('onTaskEnd threw');
  });

  it('fires ctx.signal when a heartbeat answers cancelRequested and reports it canceled', async () => {
    stub.answers.push({ status: 200, body: { cancelRequested: true } });
    const seen: { ctx?: ActivityContext } = {};
    const handler = activityTaskHandler({
      client: client(),
      logger: recordingLogger(),
      heartbeatIntervalMs: 20,
      activities: { resize: waitsForSignal(seen) },
    });

    const end = await handler(activityEvent(), lambdaContext());

    expect(seen.ctx?.cancelReason).toBe('cancelRequested');
    // docs/sdk.md: the signal's reason is an ActivityCancelledError of that reason (throwIfAborted throws it)
    expect(seen.ctx?.signal.reason).toBeInstanceOf(ActivityCancelledError);
    expect(seen.ctx?.signal.reason).toMatchObject({ reason: 'cancelRequested' });
    expect(() => seen.ctx?.signal.throwIfAborted()).toThrow(ActivityCancelledError);
    expect(seen.ctx?.shuttingDown.aborted).toBe(false);
    expect(end).toMatchObject({ outcome: 'canceled', cancelReason: 'cancelRequested' });
    expect(calls().map((c) => c.action)).toEqual([
      'RecordActivityTaskHeartbeat',
      'RespondActivityTaskCanceled',
    ]);
    expect(calls()[1]?.body).toMatchObject({ taskToken: 'tok-1' });
  });

  it('shuts the activity down at once when less than cancelGraceMs + 2 s remain', async () => {
    const seen: { ctx?: ActivityContext; abortedAtStart?: boolean } = {};
    const logger = recordingLogger();
    const handler = activityTaskHandler({
      client: client(),
      logger,
      cancelGraceMs: 500,
      activities: { resize: waitsForSignal(seen) },
    });

    const end = await handler(activityEvent(), lambdaContext({ remainingMs: 2_400 }));

    // the first warning says why, and what to do (Lambda's default timeout is 3 s)
    const [warning] = logger.warnings();
    expect(warning?.message).toMatch(
      /^the function has \d+ ms left, no more than cancelGraceMs \+ 2 s \(2500 ms\).*timeout above/,
    );
    expect(Number(/has (\d+) ms/.exec(warning?.message ?? '')?.[1])).toBeLessThanOrEqual(2_400);
    expect(seen.ctx?.cancelReason).toBe('shutdown');
    expect(seen.ctx?.shuttingDown.aborted).toBe(true);
    expect(end).toMatchObject({ outcome: 'failed', cancelReason: 'shutdown', reported: 'sent' });
    expect(calls()).toMatchObject([
      { action: 'RespondActivityTaskFailed', body: { reason: WORKER_SHUTDOWN } },
    ]);
  });

  it('shuts the activity down when the remaining time falls to cancelGraceMs + 2 s', async () => {
    const seen: { ctx?: ActivityContext; abortedAtStart?: boolean } = {};
    const logger = recordingLogger();
    const handler = activityTaskHandler({
      client: client(),
      logger,
      cancelGraceMs: 50,
      activities: { resize: waitsForSignal(seen) },
    });
    const started = Date.now();

    const end = await handler(activityEvent(), lambdaContext({ remainingMs: 2_250 }));

    expect(logger.warnings().map((w) => w.message)).toEqual([
      'the function is about to time out: cancelling the activity',
    ]);
    expect(seen.abortedAtStart).toBe(false);
    expect((end.signalledAt ?? 0) - started).toBeGreaterThanOrEqual(150);
    expect(end).toMatchObject({ outcome: 'failed', cancelReason: 'shutdown' });
  });

  it('rejects an event that is not a pushed activity task', async () => {
    const handler = activityTaskHandler({ client: client(), activities: {} });
    const event = activityEvent();

    await expect(handler({ ...event, source: 'aws.events' } as never)).rejects.toThrow(
      /not a pushed activity task: source aws\.events/,
    );
    await expect(handler({ ...event, kind: 'decision' })).rejects.toThrow(
      /not a pushed activity task: kind decision/,
    );
    await expect(handler(activityEvent({ taskToken: undefined }))).rejects.toThrow(
      /not a pushed activity task: its task has no taskToken/,
    );
    await expect(handler({ hello: 'world' } as never)).rejects.toThrow(/not a pushed activity/);
    expect(stub.received).toEqual([]);
  });
});
