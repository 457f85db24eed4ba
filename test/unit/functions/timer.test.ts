/**
 * functions/timer.ts as Lambda runs it: SQS events carrying deadline fires, from delayed messages and
 * from EventBridge Scheduler targets (the same body). SQS, Scheduler and DynamoDB are mocked; a fire
 * against a real table is covered by test/contract/stream-replay-timer-function.test.ts.
 */
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockDocClient } from '../../support/doc-client-mock.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../../support/lambda-events.js';
import { OUTBOX_ENV } from './outbox-env.js';

const sqs = mockClient(SQSClient);
const scheduler = mockClient(SchedulerClient);
const dynamo = mockDocClient();

let handler: typeof import('../../../functions/timer.js').handler;

beforeAll(async () => {
  for (const [name, value] of Object.entries(OUTBOX_ENV)) vi.stubEnv(name, value);
  ({ handler } = await import('../../../functions/timer.js'));
});
afterAll(() => {
  vi.unstubAllEnvs();
  sqs.restore();
  scheduler.restore();
  dynamo.restore();
});

let warn: ReturnType<typeof vi.spyOn>;
let error: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  sqs.reset();
  scheduler.reset();
  dynamo.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
  scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:s' });
  // No run item: the run expired with its retention, or never was.
  dynamo.on('get', () => ({}));
  warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  return () => {
    warn.mockRestore();
    error.mockRestore();
  };
});

const now = () => Date.now() / 1000;
const fire = (runId: string, key: string, at: number) => JSON.stringify({ runId, key, at });

describe('functions/timer.ts', () => {
  it('puts a fire that came early back on the queue for the rest of its wait', async () => {
    const at = Math.floor(now()) + 120;

    const result = await handler(sqsEvent([sqsRecord(fire('run-1', 'T:5', at))]), lambdaContext());

    expect(result).toEqual({ batchItemFailures: [] });
    const [sent] = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent?.QueueUrl).toBe(OUTBOX_ENV.TIMER_QUEUE_URL);
    expect(JSON.parse(sent?.MessageBody ?? '')).toEqual({ runId: 'run-1', key: 'T:5', at });
    expect(sent?.DelaySeconds).toBeGreaterThanOrEqual(118);
    expect(sent?.DelaySeconds).toBeLessThanOrEqual(120);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('re-schedules a fire still over 15 minutes away in the schedule group', async () => {
    const at = Math.floor(now()) + 3_600;

    await handler(sqsEvent([sqsRecord(fire('run-1', 'X', at))]), lambdaContext());

    expect(sqs.calls()).toHaveLength(0);
    expect(scheduler.commandCalls(CreateScheduleCommand)[0]?.args[0].input).toMatchObject({
      GroupName: OUTBOX_ENV.SCHEDULE_GROUP,
      Target: {
        Arn: OUTBOX_ENV.TIMER_QUEUE_ARN,
        RoleArn: OUTBOX_ENV.SCHEDULER_ROLE_ARN,
        DeadLetterConfig: { Arn: OUTBOX_ENV.SCHEDULE_DEAD_LETTER_ARN },
      },
    });
  });

  it('reads the run for a due fire, and a fire for a run that is gone does nothing', async () => {
    const result = await handler(
      sqsEvent([sqsRecord(fire('gone-run', 'T:5', now() - 1))]),
      lambdaContext(),
    );

    expect(result).toEqual({ batchItemFailures: [] });
    const gets = dynamo.calls('get');
    expect(gets[0]).toMatchObject({ TableName: OUTBOX_ENV.TABLE_NAME, ConsistentRead: true });
    expect(JSON.stringify(gets[0]?.Key)).toContain('gone-run');
    expect(sqs.calls()).toHaveLength(0);
    expect(scheduler.calls()).toHaveLength(0);
  });

  it('drops a message that is not a fire instead of retrying it forever', async () => {
    const result = await handler(
      sqsEvent([sqsRecord('{"hello": "world"}', 'junk'), sqsRecord('not json', 'worse')]),
      lambdaContext(),
    );

    expect(result).toEqual({ batchItemFailures: [] });
    expect(dynamo.calls()).toHaveLength(0);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('"messageId":"junk"'));
  });

  it('reports only the fires that failed, by message id', async () => {
    dynamo.on('get', (input) => {
      if (JSON.stringify(input.Key).includes('unlucky'))
        throw Object.assign(new Error('Throughput exceeded'), {
          name: 'ProvisionedThroughputExceededException',
        });
      return {};
    });
    const due = now() - 1;

    const result = await handler(
      sqsEvent([
        sqsRecord(fire('lucky-1', 'T:5', due), 'm-1'),
        sqsRecord(fire('unlucky', 'T:5', due), 'm-2'),
        sqsRecord(fire('lucky-2', 'T:5', due), 'm-3'),
      ]),
      lambdaContext(),
    );

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    expect(error).toHaveBeenCalledWith(expect.stringContaining('"messageId":"m-2"'));
  });
});
