/**
 * The timer function over the table: a fire that comes early goes back on the queue for the rest of
 * its wait, a due one fires once, and a duplicate changes nothing.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { timerBatchHandler } from '../../functions/shared/timer-batch.js';
import { decide, eventTypes, single, sleep } from '../support/decider.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/lambda-events.js';
import { outboxReplayForFile, parentType } from '../support/outbox-replay.js';

const replay = outboxReplayForFile();

describe('the timer function over the table', () => {
  it('puts an early fire back, fires a due one once, and a duplicate changes nothing', async () => {
    const run = await replay.driver.start(parentType);
    await replay.driver.decide(run.taskList, () => [decide.startTimer('long', '600')]);
    const history = await replay.driver.history(run.execution);
    const started = single(history, 'TimerStarted');
    const at = (started.eventTimestamp?.getTime() ?? 0) / 1000 + 600;
    const message = JSON.stringify({ runId: run.execution.runId, key: `T:${started.eventId}`, at });
    const timerAt = (offsetMs: number) =>
      timerBatchHandler(() => ({
        ...replay.awsOutbox(),
        clock: { now: () => Date.now() + offsetMs },
      }));

    // Now: ten minutes early. Back on the queue for the rest (under SQS's 15-minute limit).
    expect(await timerAt(0)(sqsEvent([sqsRecord(message)]), lambdaContext())).toEqual({
      batchItemFailures: [],
    });
    const [requeued] = replay.sqsMock.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(requeued?.MessageBody).toBe(message);
    expect(requeued?.DelaySeconds).toBeGreaterThanOrEqual(590);
    expect(requeued?.DelaySeconds).toBeLessThanOrEqual(601);
    expect(await replay.driver.history(run.execution)).toEqual(history);

    // Ten minutes later: the timer fires.
    const later = timerAt(601_000);
    expect(await later(sqsEvent([sqsRecord(message)]), lambdaContext())).toEqual({
      batchItemFailures: [],
    });
    const fired = await replay.driver.history(run.execution);
    expect(eventTypes(fired).slice(history.length)).toEqual([
      'TimerFired',
      'DecisionTaskScheduled',
    ]);
    expect(single(fired, 'TimerFired').timerFiredEventAttributes).toEqual({
      timerId: 'long',
      startedEventId: started.eventId,
    });

    // The same fire again, twice in one batch: nothing changes anywhere in the table.
    await sleep(300);
    const before = await replay.scanTable();
    expect(
      await later(sqsEvent([sqsRecord(message), sqsRecord(message)]), lambdaContext()),
    ).toEqual({ batchItemFailures: [] });
    expect(await replay.scanTable()).toEqual(before);
  });
});
