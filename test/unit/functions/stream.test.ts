/**
 * functions/stream.ts as Lambda runs it: the module reads its environment, and each invocation gets a
 * DynamoDB stream event. SQS, Scheduler and DynamoDB are mocked (aws-sdk-client-mock); the replay of a
 * real table's stream is test/contract/stream-replay.test.ts.
 */
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { withAlarm } from '../../../lib/core/deadlines.js';
import type { ExecutionState } from '../../../lib/core/execution-state.js';
import { RUN_ID, RunDriver } from '../../support/core-builders.js';
import { mockDocClient } from '../../support/doc-client-mock.js';
import { lambdaContext, streamEvent } from '../../support/lambda-events.js';
import { OUTBOX_ENV } from './outbox-env.js';

const sqs = mockClient(SQSClient);
const scheduler = mockClient(SchedulerClient);
const dynamo = mockDocClient();

let handler: typeof import('../../../functions/stream.js').handler;
let logged: { error: ReturnType<typeof vi.spyOn>; warn: ReturnType<typeof vi.spyOn> };

beforeAll(async () => {
  for (const [name, value] of Object.entries(OUTBOX_ENV)) vi.stubEnv(name, value);
  ({ handler } = await import('../../../functions/stream.js'));
});
afterAll(() => {
  vi.unstubAllEnvs();
  sqs.restore();
  scheduler.restore();
  dynamo.restore();
});

beforeEach(() => {
  sqs.reset();
  scheduler.reset();
  dynamo.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
  scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:s' });
  dynamo.on('put', () => ({}));
  logged = {
    error: vi.spyOn(console, 'error').mockImplementation(() => undefined),
    warn: vi.spyOn(console, 'warn').mockImplementation(() => undefined),
  };
  return () => {
    logged.error.mockRestore();
    logged.warn.mockRestore();
  };
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A started run, and the same run with timers added: the change arms exactly those timers. */
function withTimers(...waits: number[]): { before: ExecutionState; after: ExecutionState } {
  const before = new RunDriver().state;
  const timers: Record<string, ExecutionState['timers'][string]> = {};
  waits.forEach((wait, i) => {
    const id = `t${i}`;
    timers[id] = {
      timerId: id,
      startedEventId: 10 + i,
      startToFireTimeout: String(wait),
      fireAt: nowSeconds() + wait,
    };
  });
  // The run started now with a year to run, so its execution deadline comes after every timer: only
  // the timers are new; the commit set the run's alarm.
  const started = {
    ...before,
    startTimestamp: nowSeconds(),
    config: { ...before.config, executionStartToCloseTimeout: '31536000' },
  };
  return { before: started, after: withAlarm({ ...started, timers }) };
}

let sequence = 1000;
function runRecord(
  change: { before?: ExecutionState; after: ExecutionState },
  overrides: { state?: string; pk?: string } = {},
): DynamoDBRecord {
  const pk = overrides.pk ?? `RUN|${RUN_ID}`;
  const image = (state: string) => ({
    pk: { S: pk },
    sk: { S: 'STATE' },
    entity: { S: 'Run' },
    version: { N: '2' },
    state: { S: state },
  });
  sequence += 1;
  return {
    eventID: `event-${sequence}`,
    eventName: change.before === undefined ? 'INSERT' : 'MODIFY',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      Keys: { pk: { S: pk }, sk: { S: 'STATE' } },
      NewImage: image(overrides.state ?? JSON.stringify(change.after)),
      ...(change.before === undefined ? {} : { OldImage: image(JSON.stringify(change.before)) }),
      SequenceNumber: String(sequence).padStart(21, '0'),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

const fires = () =>
  sqs.commandCalls(SendMessageCommand).map((c) => JSON.parse(c.args[0].input.MessageBody ?? ''));

describe('functions/stream.ts', () => {
  it("arms a run's alarm, its earliest deadline, on the configured queue when it is near", async () => {
    const change = withTimers(30, 7200);

    const result = await handler(streamEvent([runRecord(change)]), lambdaContext());

    expect(result).toEqual({ batchItemFailures: [] });
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent).toEqual([
      {
        QueueUrl: OUTBOX_ENV.TIMER_QUEUE_URL,
        MessageBody: JSON.stringify({
          runId: RUN_ID,
          key: 'T:10',
          at: change.after.timers.t0?.fireAt,
        }),
        DelaySeconds: expect.any(Number),
      },
    ]);
    expect(sent[0]?.DelaySeconds).toBeGreaterThanOrEqual(29);
    expect(sent[0]?.DelaySeconds).toBeLessThanOrEqual(30);
    // One fire for the run: the later timer is armed when the alarm fires, not now.
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(0);
    // Nothing but the arm: no table write for a change that only starts timers.
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("arms a run's alarm in the schedule group when it is over 15 minutes away", async () => {
    const change = withTimers(7200);

    await handler(streamEvent([runRecord(change)]), lambdaContext());

    expect(sqs.calls()).toHaveLength(0);
    const [schedule] = scheduler.commandCalls(CreateScheduleCommand).map((c) => c.args[0].input);
    expect(schedule).toMatchObject({
      GroupName: OUTBOX_ENV.SCHEDULE_GROUP,
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: OUTBOX_ENV.TIMER_QUEUE_ARN,
        RoleArn: OUTBOX_ENV.SCHEDULER_ROLE_ARN,
        Input: JSON.stringify({ runId: RUN_ID, key: 'T:10', at: change.after.timers.t0?.fireAt }),
        DeadLetterConfig: { Arn: OUTBOX_ENV.SCHEDULE_DEAD_LETTER_ARN },
      },
    });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('ignores records that are not changes of a run state', async () => {
    const other: DynamoDBRecord = {
      eventID: 'other',
      eventName: 'INSERT',
      dynamodb: {
        NewImage: { pk: { S: 'DOMAIN#d' }, sk: { S: 'INFO' }, entity: { S: 'Domain' } },
        SequenceNumber: '1',
      },
    };
    const removed: DynamoDBRecord = {
      eventID: 'removed',
      eventName: 'REMOVE',
      dynamodb: { OldImage: { entity: { S: 'Run' }, state: { S: '{}' } }, SequenceNumber: '2' },
    };

    const result = await handler(streamEvent([other, removed]), lambdaContext());

    expect(result).toEqual({ batchItemFailures: [] });
    expect(sqs.calls()).toHaveLength(0);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('dead-letters a corrupt run image after STREAM_MAX_ATTEMPTS tries and carries on behind it', async () => {
    const poison = runRecord(withTimers(30), { state: '{"not json' });
    const good = runRecord(withTimers(40));

    const result = await handler(streamEvent([poison, good]), lambdaContext());

    expect(result).toEqual({ batchItemFailures: [] });
    const letters = dynamo.calls('put');
    expect(letters).toEqual([
      {
        TableName: OUTBOX_ENV.TABLE_NAME,
        Item: expect.objectContaining({
          entity: 'DeadLetter',
          id: poison.eventID,
          record: JSON.stringify(poison),
          error: expect.stringMatching(/^SyntaxError: /),
        }),
      },
    ]);
    expect(fires().map((f) => f.key)).toEqual(['T:10']);
    expect(logged.error).toHaveBeenCalledWith(
      expect.stringContaining('"message":"stream record dead-lettered"'),
    );
  });

  it('retries an effect that keeps failing exactly STREAM_MAX_ATTEMPTS times before dead-lettering', async () => {
    sqs.on(SendMessageCommand).rejects(new TypeError('the message is malformed'));

    const result = await handler(streamEvent([runRecord(withTimers(30))]), lambdaContext());

    expect(result).toEqual({ batchItemFailures: [] });
    // Three tries, plus at most one up-front arming of the record's one deadline.
    const sends = sqs.commandCalls(SendMessageCommand).length;
    expect(sends).toBeGreaterThanOrEqual(3);
    expect(sends).toBeLessThanOrEqual(4);
    expect(dynamo.calls('put')[0]?.Item).toMatchObject({
      error: 'TypeError: the message is malformed',
    });
  });

  it('hands a throttled record and those behind it back to Lambda, dead-lettering nothing', async () => {
    const throttling = Object.assign(new Error('Rate exceeded'), {
      name: 'ThrottlingException',
      $retryable: { throttling: true },
      $metadata: { httpStatusCode: 400 },
    });
    sqs.on(SendMessageCommand).resolvesOnce({ MessageId: 'ok' }).rejects(throttling);
    const first = runRecord(withTimers(30));
    const throttled = runRecord(withTimers(31));
    const behind = runRecord(withTimers(32));

    const result = await handler(streamEvent([first, throttled, behind]), lambdaContext());

    expect(result).toEqual({
      batchItemFailures: [{ itemIdentifier: throttled.dynamodb?.SequenceNumber }],
    });
    // first: its one arm; throttled: three tries (plus at most one up-front arm); behind: none.
    const sends = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input.MessageBody);
    expect(sends.length).toBeGreaterThanOrEqual(1 + 3);
    expect(sends.length).toBeLessThanOrEqual(1 + 4);
    const behindAt = behind.dynamodb?.NewImage?.state?.S ?? '';
    const behindFireAt = JSON.parse(behindAt).timers.t0.fireAt;
    expect(sends.map((b) => JSON.parse(b ?? '{}').at)).not.toContain(behindFireAt);
    expect(dynamo.calls('put')).toHaveLength(0);
  });

  it('carries out other runs while one run waits on a transient failure, reporting the earliest', async () => {
    const fireAt = (record: DynamoDBRecord) =>
      JSON.parse(record.dynamodb?.NewImage?.state?.S ?? '{}').timers.t0.fireAt;
    const stuck = runRecord(withTimers(50), { pk: 'RUN|stuck' });
    const stuckLater = runRecord(withTimers(51), { pk: 'RUN|stuck' });
    const other = runRecord(withTimers(52), { pk: 'RUN|other' });
    sqs.on(SendMessageCommand).callsFake((input: { MessageBody?: string }) => {
      if (JSON.parse(input.MessageBody ?? '{}').at === fireAt(stuck)) {
        throw Object.assign(new Error('Service unavailable'), {
          name: 'ServiceUnavailable',
          $metadata: { httpStatusCode: 503 },
        });
      }
      return { MessageId: 'ok' };
    });

    const result = await handler(streamEvent([stuck, other, stuckLater]), lambdaContext());

    expect(result).toEqual({
      batchItemFailures: [{ itemIdentifier: stuck.dynamodb?.SequenceNumber }],
    });
    const armedAt = fires().map((f) => f.at);
    expect(armedAt).toContain(fireAt(other)); // the other run went on
    expect(armedAt).not.toContain(fireAt(stuckLater)); // the stuck run's next record waited
    expect(dynamo.calls('put')).toHaveLength(0);
  });

  it('hands the record back when its dead letter cannot be written', async () => {
    dynamo.on('put', () => {
      throw Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET' });
    });
    const poison = runRecord(withTimers(30), { state: 'corrupt' });

    const result = await handler(streamEvent([poison]), lambdaContext());

    expect(result).toEqual({
      batchItemFailures: [{ itemIdentifier: poison.dynamodb?.SequenceNumber }],
    });
  });

  it('begins no record when the Lambda deadline is near, reporting the batch for redelivery', async () => {
    const records = [runRecord(withTimers(30)), runRecord(withTimers(31))];

    const result = await handler(streamEvent(records), lambdaContext({ remainingMs: 5_000 }));

    expect(result).toEqual({
      batchItemFailures: [{ itemIdentifier: records[0]?.dynamodb?.SequenceNumber }],
    });
    expect(sqs.calls()).toHaveLength(0);
  });
});
