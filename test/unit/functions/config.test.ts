import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  loadApiConfig,
  loadConfig,
  loadOutboxConfig,
} from '../../../functions/shared/config.js';
import { OUTBOX_ENV } from './outbox-env.js';

describe("SWF's metrics namespace", () => {
  it('is SWF_METRICS_NAMESPACE, a CloudWatch namespace, or SwfOnDynamo', () => {
    const env = { ...OUTBOX_ENV, SWF_METRICS_NAMESPACE: 'Team/Swf-Prod' };
    expect(loadConfig(env).metricsNamespace).toBe('Team/Swf-Prod');
    for (const bad of ['has space', ':colon-first', 'x'.repeat(256), 'é'])
      expect(() => loadConfig({ ...OUTBOX_ENV, SWF_METRICS_NAMESPACE: bad })).toThrow(
        new ConfigError(`SWF_METRICS_NAMESPACE is no CloudWatch namespace: "${bad}"`),
      );
  });
});

describe('loadOutboxConfig', () => {
  it('reads the table, the queue, the schedule group, the role and the attempts', () => {
    expect(loadOutboxConfig(OUTBOX_ENV)).toEqual({
      tableName: 'swf-table',
      region: 'us-east-1',
      accountId: '123456789012',
      pollMaxWaitMs: undefined,
      pollRecheckMs: undefined,
      queueUrl: OUTBOX_ENV.TIMER_QUEUE_URL,
      queueArn: OUTBOX_ENV.TIMER_QUEUE_ARN,
      scheduleGroup: 'swf-deadlines',
      schedulerRoleArn: OUTBOX_ENV.SCHEDULER_ROLE_ARN,
      scheduleDeadLetterArn: OUTBOX_ENV.SCHEDULE_DEAD_LETTER_ARN,
      streamMaxAttempts: 3,
      pushTaskLists: [],
      lambdaTaskRoles: [],
      metricsNamespace: 'SwfOnDynamo',
    });
    expect(
      loadOutboxConfig({ ...OUTBOX_ENV, STREAM_MAX_ATTEMPTS: undefined }).streamMaxAttempts,
    ).toBeUndefined();
    expect(
      loadOutboxConfig({ ...OUTBOX_ENV, SCHEDULE_DEAD_LETTER_ARN: undefined })
        .scheduleDeadLetterArn,
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
    [
      'SCHEDULE_DEAD_LETTER_ARN',
      'https://sqs.us-east-1.amazonaws.com/123456789012/dlq',
      'SCHEDULE_DEAD_LETTER_ARN must be an SQS queue ARN, not "https://sqs.us-east-1.amazonaws.com/123456789012/dlq"',
    ],
    ['STREAM_MAX_ATTEMPTS', '0', 'STREAM_MAX_ATTEMPTS must be a positive integer, not "0"'],
    ['POLL_RECHECK_MS', '0.5', 'POLL_RECHECK_MS must be a positive integer, not "0.5"'],
    ['TABLE_NAME', undefined, 'TABLE_NAME is not set'],
  ])('fails the cold start on a bad %s', (name, value, message) => {
    const env = { ...OUTBOX_ENV, [name]: value };
    expect(() => loadOutboxConfig(env)).toThrow(new ConfigError(message));
  });
});

describe('the long poll settings', () => {
  it('reads how long a poll waits (POLL_MAX_WAIT_MS) and how often it looks again (POLL_RECHECK_MS)', () => {
    const config = loadConfig({ ...OUTBOX_ENV, POLL_MAX_WAIT_MS: '20000', POLL_RECHECK_MS: '250' });
    expect(config).toMatchObject({ pollMaxWaitMs: 20_000, pollRecheckMs: 250 });
  });
});

describe('SWF_PUSH_TASK_LISTS', () => {
  const target = 'arn:aws:lambda:us-east-1:123456789012:function:deciders';
  const deciders = { kind: 'decision', domain: 'orders', taskList: 'deciders', target };
  const workers = { kind: 'activity', domain: 'orders', taskList: 'deciders', target: 'workers' };
  const withLists = (value: string | undefined) => ({ ...OUTBOX_ENV, SWF_PUSH_TASK_LISTS: value });

  it('reads the task lists served by functions; unset or blank is none', () => {
    const json = JSON.stringify([deciders, workers]);
    expect(loadConfig(withLists(json)).pushTaskLists).toEqual([deciders, workers]);
    expect(loadOutboxConfig(withLists(json)).pushTaskLists).toEqual([deciders, workers]);
    expect(loadConfig(withLists(undefined)).pushTaskLists).toEqual([]);
    expect(loadConfig(withLists(' ')).pushTaskLists).toEqual([]);
    expect(loadConfig(withLists('[]')).pushTaskLists).toEqual([]);
  });

  it("reads the API function's name that pushed tasks name for their workers (SWF_API_FUNCTION)", () => {
    expect(loadOutboxConfig({ ...OUTBOX_ENV, SWF_API_FUNCTION: 'swf-api' }).apiFunction).toBe(
      'swf-api',
    );
    expect(loadOutboxConfig(OUTBOX_ENV).apiFunction).toBeUndefined();
  });

  it.each([
    ['[{"kind":', /^SWF_PUSH_TASK_LISTS must be JSON: /],
    ['{}', 'SWF_PUSH_TASK_LISTS must be a JSON array of task lists'],
    [
      '["deciders"]',
      'SWF_PUSH_TASK_LISTS[0] must be an object with kind, domain, taskList and target',
    ],
    [
      [deciders, { ...workers, kind: 'lambda' }],
      'SWF_PUSH_TASK_LISTS[1].kind must be "activity" or "decision", not "lambda"',
    ],
    [
      [{ ...deciders, kind: undefined }],
      'SWF_PUSH_TASK_LISTS[0].kind must be "activity" or "decision", not undefined',
    ],
    [
      [{ ...deciders, domain: '' }],
      'SWF_PUSH_TASK_LISTS[0].domain must be a non-empty string, not ""',
    ],
    [
      [{ ...deciders, taskList: '  ' }],
      'SWF_PUSH_TASK_LISTS[0].taskList must be a non-empty string, not "  "',
    ],
    [
      [{ ...deciders, target: 7 }],
      'SWF_PUSH_TASK_LISTS[0].target must be a non-empty string, not 7',
    ],
    [[{ ...deciders, function: target }], 'SWF_PUSH_TASK_LISTS[0] has an unknown field "function"'],
    [
      [deciders, workers, { ...deciders, target: 'other' }],
      'SWF_PUSH_TASK_LISTS[2] repeats the decision task list "deciders" of domain "orders"',
    ],
  ])('fails the cold start on %j', (value, message) => {
    const env = withLists(typeof value === 'string' ? value : JSON.stringify(value));
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe("the API functions' access settings", () => {
  const env = { TABLE_NAME: 't', AWS_REGION: 'us-east-1' };
  const policiesFile = (content: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'swf-config-'));
    writeFileSync(join(dir, 'access-policies.json'), content);
    return { LAMBDA_TASK_ROOT: dir, SWF_ACCESS_POLICIES_FILE: 'access-policies.json' };
  };

  it('reads the callers, the audit switch, the access policies and the Lambda task roles', () => {
    const plain = loadApiConfig(env);
    expect(plain).toMatchObject({ callers: 'front-door', auditLog: true, lambdaTaskRoles: [] });
    expect(plain.access).toBeUndefined();
    const set = loadApiConfig({
      ...env,
      SWF_API_CALLERS: 'direct-invoke',
      SWF_AUDIT_LOG: 'off',
      SWF_LAMBDA_TASK_ROLES: '["arn:aws:iam::123456789012:role/tasks"]',
      SWF_SIGNING_KEY_SECRET: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:k',
      ...policiesFile(
        JSON.stringify({
          'arn:aws:iam::123456789012:role/r': {
            Statement: { Effect: 'Allow', Action: '*', Resource: '*' },
          },
        }),
      ),
    });
    expect(set).toMatchObject({
      callers: 'direct-invoke',
      auditLog: false,
      lambdaTaskRoles: ['arn:aws:iam::123456789012:role/tasks'],
      signingKeySecret: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:k',
    });
    expect(set.access?.lookup('arn:aws:sts::123456789012:assumed-role/r/s')).toBeDefined();
  });

  it.each([
    [
      { SWF_API_CALLERS: 'anyone' },
      'SWF_API_CALLERS must be front-door or direct-invoke, not "anyone"',
    ],
    [{ SWF_AUDIT_LOG: 'no' }, 'SWF_AUDIT_LOG must be on or off, not "no"'],
    [
      { SWF_LAMBDA_TASK_ROLES: 'arn:aws:iam::1:role/x' },
      'SWF_LAMBDA_TASK_ROLES must be a JSON array',
    ],
    [
      { SWF_LAMBDA_TASK_ROLES: '[""]' },
      'SWF_LAMBDA_TASK_ROLES must be a JSON array of non-empty strings',
    ],
    [policiesFile('{not json'), 'access-policies.json: '],
    [
      policiesFile(JSON.stringify({ r: { Statement: { Effect: 'Allow', Action: 'swf:*' } } })),
      'SWF_ACCESS_POLICIES_FILE: principal "r": statement 1: a statement has exactly one of Resource and NotResource',
    ],
  ])('fails the cold start on %j', (extra, message) => {
    expect(() => loadApiConfig({ ...env, ...extra })).toThrow(ConfigError);
    expect(() => loadApiConfig({ ...env, ...extra })).toThrow(message);
  });
});
