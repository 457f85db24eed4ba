/** The environment the CDK stack gives the outbox functions, with test values. */
export const OUTBOX_ENV = {
  TABLE_NAME: 'swf-table',
  AWS_REGION: 'us-east-1',
  ACCOUNT_ID: '123456789012',
  TIMER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/swf-timers',
  TIMER_QUEUE_ARN: 'arn:aws:sqs:us-east-1:123456789012:swf-timers',
  SCHEDULE_GROUP: 'swf-deadlines',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/swf-scheduler',
  SCHEDULE_DEAD_LETTER_ARN: 'arn:aws:sqs:us-east-1:123456789012:swf-schedule-dead-letters',
  STREAM_MAX_ATTEMPTS: '3',
} as const;
