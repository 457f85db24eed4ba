import { describe, expect, it } from 'vitest';
import { ConfigError, loadOutboxConfig } from '../../../functions/shared/config.js';
import { OUTBOX_ENV } from './outbox-env.js';

describe('loadOutboxConfig', () => {
  it('reads the table, the queue, the schedule group, the role and the attempts', () => {
    expect(loadOutboxConfig(OUTBOX_ENV)).toEqual({
      tableName: 'swf-table',
      region: 'us-east-1',
      accountId: '123456789012',
      pollMaxWaitMs: undefined,
      queueUrl: OUTBOX_ENV.TIMER_QUEUE_URL,
      queueArn: OUTBOX_ENV.TIMER_QUEUE_ARN,
      scheduleGroup: 'swf-deadlines',
      schedulerRoleArn: OUTBOX_ENV.SCHEDULER_ROLE_ARN,
      streamMaxAttempts: 3,
    });
    expect(
      loadOutboxConfig({ ...OUTBOX_ENV, STREAM_MAX_ATTEMPTS: undefined }).streamMaxAttempts,
    ).toBeUndefined();
  });

  it.each([
    ['TIMER_QUEUE_URL', undefined, 'TIMER_QUEUE_URL is not set'],
    ['SCHEDULE_GROUP', ' ', 'SCHEDULE_GROUP is not set'],
    ['TIMER_QUEUE_ARN', 'swf-timers', 'TIMER_QUEUE_ARN must be an SQS queue ARN, not "swf-timers"'],
    [
      'SCHEDULER_ROLE_ARN',
      'arn:aws:iam::123456789012:user/me',
      'SCHEDULER_ROLE_ARN must be an IAM role ARN, not "arn:aws:iam::123456789012:user/me"',
    ],
    ['STREAM_MAX_ATTEMPTS', '0', 'STREAM_MAX_ATTEMPTS must be a positive integer, not "0"'],
    ['TABLE_NAME', undefined, 'TABLE_NAME is not set'],
  ])('fails the cold start on a bad %s', (name, value, message) => {
    const env = { ...OUTBOX_ENV, [name]: value };
    expect(() => loadOutboxConfig(env)).toThrow(new ConfigError(message));
  });
});
