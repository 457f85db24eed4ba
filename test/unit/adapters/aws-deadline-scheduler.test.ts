import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AwsDeadlineScheduler,
  type AwsSchedulerConfig,
  atExpression,
  scheduleName,
} from '../../../lib/adapters/aws/deadline-scheduler.js';

const sqsMock = mockClient(SQSClient);
const schedulerMock = mockClient(SchedulerClient);
const config = {
  queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/timers',
  queueArn: 'arn:aws:sqs:us-east-1:123456789012:timers',
  scheduleGroup: 'swf-deadlines',
  schedulerRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
  scheduleDeadLetterArn: 'arn:aws:sqs:us-east-1:123456789012:schedule-dead-letters',
};
const now = 1_800_000_000; // epoch seconds
const scheduler = (configured: AwsSchedulerConfig = config) =>
  new AwsDeadlineScheduler(
    new SQSClient({ region: 'us-east-1' }),
    new SchedulerClient({ region: 'us-east-1' }),
    configured,
    {
      now: () => now * 1000,
    },
  );

/** The run has not set the fire again: the disarm goes ahead. */
const notAgain = async () => false;

afterEach(() => {
  sqsMock.reset();
  schedulerMock.reset();
});

describe('AwsDeadlineScheduler', () => {
  it('puts a deadline within 15 minutes on the SQS queue, delayed to the second (rounded up)', async () => {
    sqsMock.on(SendMessageCommand).resolves({});
    const fire = { runId: 'r1', key: 'T:5', at: now + 12.2 };
    await scheduler().arm(fire);
    expect(sqsMock.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: config.queueUrl, MessageBody: JSON.stringify(fire), DelaySeconds: 13 },
    ]);
    expect(schedulerMock.calls()).toHaveLength(0);
  });

  it('sends an overdue deadline at once', async () => {
    sqsMock.on(SendMessageCommand).resolves({});
    await scheduler().arm({ runId: 'r1', key: 'X', at: now - 30 });
    expect(sqsMock.commandCalls(SendMessageCommand)[0]?.args[0].input.DelaySeconds).toBe(0);
  });

  it('schedules a later deadline a minute early on EventBridge Scheduler, targeting the queue, retried for a day and then dead-lettered', async () => {
    schedulerMock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    const fire = { runId: 'r1', key: 'A:7:START_TO_CLOSE', at: now + 3600 };
    await scheduler().arm(fire);
    expect(schedulerMock.commandCalls(CreateScheduleCommand).map((c) => c.args[0].input)).toEqual([
      {
        Name: scheduleName(fire),
        GroupName: 'swf-deadlines',
        ScheduleExpression: `at(${atExpression(now + 3540)})`,
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: {
          Arn: config.queueArn,
          RoleArn: config.schedulerRoleArn,
          Input: JSON.stringify(fire),
          // Scheduler's most: 185 tries over 24 hours, then the fire goes to the queue below.
          RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
          DeadLetterConfig: { Arn: config.scheduleDeadLetterArn },
        },
      },
    ]);
    expect(sqsMock.calls()).toHaveLength(0);
  });

  it('still retries, but names no dead-letter queue, when none is configured', async () => {
    schedulerMock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    const { scheduleDeadLetterArn: _, ...withoutQueue } = config;
    await scheduler(withoutQueue).arm({ runId: 'r1', key: 'X', at: now + 3600 });
    const target = schedulerMock.commandCalls(CreateScheduleCommand)[0]?.args[0].input.Target;
    expect(target?.RetryPolicy).toEqual({
      MaximumEventAgeInSeconds: 86_400,
      MaximumRetryAttempts: 185,
    });
    expect(target).not.toHaveProperty('DeadLetterConfig');
  });

  it('treats a schedule that already exists as armed (a replayed stream record)', async () => {
    schedulerMock
      .on(CreateScheduleCommand)
      .rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
    await expect(
      scheduler().arm({ runId: 'r1', key: 'X', at: now + 7200 }),
    ).resolves.toBeUndefined();
  });

  it('disarms a deadline by deleting its schedule, by the name it was created with', async () => {
    schedulerMock.on(DeleteScheduleCommand).resolves({});
    const fire = { runId: 'r1', key: 'X', at: now + 3600 };
    await scheduler().disarm(fire, notAgain);
    expect(schedulerMock.commandCalls(DeleteScheduleCommand).map((c) => c.args[0].input)).toEqual([
      { Name: scheduleName(fire), GroupName: 'swf-deadlines' },
    ]);
    expect(sqsMock.calls()).toHaveLength(0);
  });

  it('finds nothing to delete for a fire that went on SQS, and leaves one within its lead alone', async () => {
    schedulerMock
      .on(DeleteScheduleCommand)
      .rejects(new ResourceNotFoundException({ message: 'none', Message: 'none', $metadata: {} }));
    await expect(
      scheduler().disarm({ runId: 'r1', key: 'T:5', at: now + 600 }, notAgain),
    ).resolves.toBeUndefined();
    expect(schedulerMock.commandCalls(DeleteScheduleCommand)).toHaveLength(1);
    // A schedule fires a minute early: this close to its deadline it has fired already, and the run
    // is not even read.
    let reads = 0;
    await scheduler().disarm({ runId: 'r1', key: 'X', at: now + 59 }, async () => {
      reads++;
      return false;
    });
    expect(schedulerMock.commandCalls(DeleteScheduleCommand)).toHaveLength(1);
    expect(reads).toBe(0);
  });

  it('leaves a schedule the run has set again', async () => {
    schedulerMock.on(DeleteScheduleCommand).resolves({});
    await scheduler().disarm({ runId: 'r1', key: 'X', at: now + 3600 }, async () => true);
    expect(schedulerMock.commandCalls(DeleteScheduleCommand)).toHaveLength(0);
  });

  it('passes on a failure to delete other than a missing schedule', async () => {
    schedulerMock.on(DeleteScheduleCommand).rejects(new Error('AccessDenied'));
    await expect(
      scheduler().disarm({ runId: 'r1', key: 'X', at: now + 3600 }, notAgain),
    ).rejects.toThrow('AccessDenied');
  });

  it('names schedules within Scheduler limits, distinctly per deadline', () => {
    const a = scheduleName({ runId: 'r', key: 'T:1', at: 1 });
    const b = scheduleName({ runId: 'r', key: 'T:1', at: 2 });
    expect(a).toMatch(/^[0-9a-zA-Z_.-]{1,64}$/);
    expect(a).not.toBe(b);
    expect(atExpression(1_800_000_000.9)).toBe('2027-01-15T08:00:00');
  });
});
