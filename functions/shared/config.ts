import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DEFAULT_METRICS_NAMESPACE, EmfMetrics } from '../../lib/adapters/aws/emf-metrics.js';
import { SecretsManagerSigningKeys } from '../../lib/adapters/aws/signing-keys.js';
import { SqsTaskWakes } from '../../lib/adapters/aws/sqs-task-wakes.js';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { ConfigError, pushTaskLists } from '../../lib/composition/push-task-lists.js';
import { PolicyError } from '../../lib/core/iam-policy.js';
import { type PolicySet, parseAccessPolicies } from '../../lib/core/principals.js';
import type { PushTaskList } from '../../lib/ports/task-push.js';

export { ConfigError };

/**
 * The Lambda functions' settings, read from the environment once per container (at cold start). A
 * missing or malformed value fails the cold start loudly, instead of every request failing later.
 */
export interface FunctionConfig {
  readonly tableName: string;
  readonly region: string;
  /** From `ACCOUNT_ID`; when unset, taken from the invoked function's ARN on the first invocation. */
  readonly accountId: string | undefined;
  /** From `POLL_MAX_WAIT_MS`: how long a long poll may wait, kept under API Gateway's 30 s limit. */
  readonly pollMaxWaitMs: number | undefined;
  /**
   * From `POLL_RECHECK_MS`: how often a waiting long poll looks at its queue again (nothing else wakes
   * it in a Lambda container: see docs/swf-differences.md, "Dispatch on AWS"). @default 1,000
   */
  readonly pollRecheckMs: number | undefined;
  /** From `SWF_PUSH_TASK_LISTS`: task lists served by functions instead of pollers. @default none */
  readonly pushTaskLists: readonly PushTaskList[];
  /**
   * From `SWF_API_FUNCTION` (the stream and timer functions'): the API function's name, which pushed
   * tasks' events name for their workers to call directly. The API function knows its own.
   */
  readonly apiFunction: string | undefined;
  /**
   * From `SWF_SIGNING_KEY_SECRET`: the Secrets Manager secret (ARN) whose AWSCURRENT value signs page
   * and task tokens (AWSPREVIOUS still verifies). Unset: a key kept in the table, as locally.
   */
  readonly signingKeySecret: string | undefined;
  /**
   * From `SWF_LAMBDA_TASK_ROLES` (a JSON array of role ARNs or patterns, the roles the Lambda-task
   * function may assume): ScheduleLambdaFunction is offered only when it names one.
   */
  readonly lambdaTaskRoles: readonly string[];
  /**
   * From `SWF_METRICS_NAMESPACE`: the CloudWatch namespace SWF's metrics are published in (embedded
   * metric format in the function's log). @default SwfOnDynamo
   */
  readonly metricsNamespace: string;
  /**
   * From `SWF_WAKE_QUEUE_PREFIX`: the name prefix of the SQS queues that wake waiting polls (one per
   * task list, made by the first poll that waits on it; see docs/dispatch-on-aws.md). Unset: waiting
   * polls re-read their queue every `pollRecheckMs`.
   */
  readonly wakeQueuePrefix: string | undefined;
}

/** The API function's own settings. */
export interface ApiConfig extends FunctionConfig {
  /**
   * From `SWF_API_CALLERS`: `front-door` (default), the function API Gateway or the function URL
   * invokes, which reads the caller from the event; or `direct-invoke`, the function push-task-list
   * workers invoke, which trusts no caller in its events and answers only what a task token authorizes.
   */
  readonly callers: 'front-door' | 'direct-invoke';
  /** From `SWF_AUDIT_LOG`: `off` silences the audit line each call logs. @default on */
  readonly auditLog: boolean;
  /**
   * From `SWF_MAX_WAITING_POLLS`: the most long polls that wait at once across the service's
   * containers, below the function's reserved concurrency. Unset: no cap but SWF's 1,000 a list.
   */
  readonly maxWaitingPolls: number | undefined;
  /**
   * From `SWF_ACCESS_POLICIES_FILE` (relative to the function's code): SWF's access policies by
   * principal ARN. Unset: none, every call is allowed. A malformed file fails the cold start.
   */
  readonly access: PolicySet | undefined;
}

/** What the outbox functions (stream, timer) need besides the table: where deadlines wait. */
export interface OutboxConfig extends FunctionConfig {
  /** From `TIMER_QUEUE_URL` and `TIMER_QUEUE_ARN`: the SQS queue functions/timer.ts reads fires from. */
  readonly queueUrl: string;
  readonly queueArn: string;
  /** From `SCHEDULE_GROUP`: the EventBridge Scheduler group one-time schedules are created in. */
  readonly scheduleGroup: string;
  /** From `SCHEDULER_ROLE_ARN`: the role Scheduler assumes to send a fire to the queue. */
  readonly schedulerRoleArn: string;
  /**
   * From `SCHEDULE_DEAD_LETTER_ARN`: the SQS queue Scheduler puts a fire in when it gave up
   * delivering it. Unset: such a fire is dropped (the stack always sets it).
   */
  readonly scheduleDeadLetterArn: string | undefined;
  /** From `STREAM_MAX_ATTEMPTS`: tries of one stream record before it is dead-lettered. @default 5 */
  readonly streamMaxAttempts: number | undefined;
  /**
   * From `LAMBDA_TASK_FUNCTION` (the stream function's): the function started Lambda tasks are handed
   * to (functions/lambda-task.ts). Unset, such a task fails as it starts.
   */
  readonly lambdaTaskFunction: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env): FunctionConfig {
  const accountId = optional(env, 'ACCOUNT_ID');
  if (accountId !== undefined && !isAccountId(accountId)) {
    throw new ConfigError(`ACCOUNT_ID must be a 12-digit AWS account id, not "${accountId}"`);
  }
  return {
    tableName: required(env, 'TABLE_NAME'),
    region: required(env, 'AWS_REGION'),
    accountId,
    pollMaxWaitMs: positiveInteger(env, 'POLL_MAX_WAIT_MS'),
    pollRecheckMs: positiveInteger(env, 'POLL_RECHECK_MS'),
    pushTaskLists: pushTaskLists(env, 'SWF_PUSH_TASK_LISTS'),
    apiFunction: optional(env, 'SWF_API_FUNCTION'),
    signingKeySecret: optional(env, 'SWF_SIGNING_KEY_SECRET'),
    lambdaTaskRoles: stringList(env, 'SWF_LAMBDA_TASK_ROLES'),
    metricsNamespace: metricsNamespace(env),
    wakeQueuePrefix: wakeQueuePrefix(env),
  };
}

/** SQS queue names are at most 80 characters of letters, digits, - and _; a wake queue adds 43. */
function wakeQueuePrefix(env: Env): string | undefined {
  const prefix = optional(env, 'SWF_WAKE_QUEUE_PREFIX');
  if (prefix !== undefined && !/^[A-Za-z0-9_-]{1,37}$/.test(prefix))
    throw new ConfigError(
      `SWF_WAKE_QUEUE_PREFIX must be 1 to 37 letters, digits, - or _, not "${prefix}"`,
    );
  return prefix;
}

export function loadApiConfig(env: Env): ApiConfig {
  const callers = optional(env, 'SWF_API_CALLERS') ?? 'front-door';
  if (callers !== 'front-door' && callers !== 'direct-invoke')
    throw new ConfigError(`SWF_API_CALLERS must be front-door or direct-invoke, not "${callers}"`);
  const audit = optional(env, 'SWF_AUDIT_LOG') ?? 'on';
  if (audit !== 'on' && audit !== 'off')
    throw new ConfigError(`SWF_AUDIT_LOG must be on or off, not "${audit}"`);
  return {
    ...loadConfig(env),
    callers,
    auditLog: audit === 'on',
    maxWaitingPolls: positiveInteger(env, 'SWF_MAX_WAITING_POLLS'),
    access: accessPolicies(env),
  };
}

function accessPolicies(env: Env): PolicySet | undefined {
  const file = optional(env, 'SWF_ACCESS_POLICIES_FILE');
  if (file === undefined) return undefined;
  const path = isAbsolute(file) ? file : join(env.LAMBDA_TASK_ROOT ?? process.cwd(), file);
  try {
    return parseAccessPolicies(JSON.parse(readFileSync(path, 'utf8')), 'SWF_ACCESS_POLICIES_FILE');
  } catch (error) {
    if (error instanceof PolicyError) throw new ConfigError(error.message);
    throw new ConfigError(`SWF_ACCESS_POLICIES_FILE ${path}: ${(error as Error).message}`);
  }
}

/** CloudWatch's rule for a namespace: 1 to 255 of these characters, not starting with a colon. */
function metricsNamespace(env: Env): string {
  const value = optional(env, 'SWF_METRICS_NAMESPACE') ?? DEFAULT_METRICS_NAMESPACE;
  if (!/^[0-9A-Za-z.\-_/#:]{1,255}$/.test(value) || value.startsWith(':'))
    throw new ConfigError(`SWF_METRICS_NAMESPACE is no CloudWatch namespace: "${value}"`);
  return value;
}

/** SWF's metrics of a function, in its configured namespace. */
export const functionMetrics = (config: FunctionConfig) => new EmfMetrics(config.metricsNamespace);

function stringList(env: Env, name: string): readonly string[] {
  const value = optional(env, name);
  if (value === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError(`${name} must be a JSON array of strings`);
  }
  if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string' && v !== ''))
    throw new ConfigError(`${name} must be a JSON array of non-empty strings`);
  return parsed;
}

export function loadOutboxConfig(env: Env): OutboxConfig {
  const queueArn = sqsQueueArn('TIMER_QUEUE_ARN', required(env, 'TIMER_QUEUE_ARN'));
  const deadLetters = optional(env, 'SCHEDULE_DEAD_LETTER_ARN');
  const schedulerRoleArn = required(env, 'SCHEDULER_ROLE_ARN');
  if (!/^arn:[\w-]+:iam::\d{12}:role\/.+$/.test(schedulerRoleArn)) {
    throw new ConfigError(`SCHEDULER_ROLE_ARN must be an IAM role ARN, not "${schedulerRoleArn}"`);
  }
  return {
    ...loadConfig(env),
    queueUrl: required(env, 'TIMER_QUEUE_URL'),
    queueArn,
    scheduleGroup: required(env, 'SCHEDULE_GROUP'),
    schedulerRoleArn,
    scheduleDeadLetterArn:
      deadLetters === undefined ? undefined : sqsQueueArn('SCHEDULE_DEAD_LETTER_ARN', deadLetters),
    streamMaxAttempts: positiveInteger(env, 'STREAM_MAX_ATTEMPTS'),
    lambdaTaskFunction: optional(env, 'LAMBDA_TASK_FUNCTION'),
  };
}

/** An SQS queue's ARN (a queue URL or name there fails the cold start, not the first fire). */
function sqsQueueArn(name: string, value: string): string {
  if (!/^arn:[\w-]+:sqs:[\w-]+:\d{12}:[\w-]+(\.fifo)?$/.test(value))
    throw new ConfigError(`${name} must be an SQS queue ARN, not "${value}"`);
  return value;
}

/** The account id in a Lambda ARN: `arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]`. */
export function accountIdFromArn(arn: string): string {
  const accountId = arn.split(':')[4];
  if (accountId === undefined || !isAccountId(accountId)) {
    throw new ConfigError(`Cannot read an account id from the function ARN "${arn}"`);
  }
  return accountId;
}

const isAccountId = (value: string) => /^\d{12}$/.test(value);

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = optional(env, name);
  if (value === undefined) throw new ConfigError(`${name} is not set`);
  return value;
}

function positiveInteger(env: Env, name: string): number | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) {
    throw new ConfigError(`${name} must be a positive integer, not "${value}"`);
  }
  return parsed;
}

/**
 * The DynamoDB client of a function: one attempt waits at most 5 s for its answer (DynamoDB answers in
 * milliseconds), then it is retried. The client's own default, 300 s, would let one stalled connection
 * outlast the API function (28 s) or hold a whole stream batch until the stream function timed out.
 */
export const functionDocClient = (region: string) =>
  createDocumentClient({ region, requestTimeoutMs: FUNCTION_DYNAMO_TIMEOUT_MS });

export const FUNCTION_DYNAMO_TIMEOUT_MS = 5_000;

/** The token-signing keys of a function: the stack's secret, or undefined (a key in the table). */
export const functionSigningKeys = (config: FunctionConfig) =>
  config.signingKeySecret === undefined
    ? undefined
    : new SecretsManagerSigningKeys(
        config.signingKeySecret,
        new SecretsManagerClient({ region: config.region }),
      );

/** The wake channel of polls waiting in the API function's containers, when the stack gives one. */
export function functionTaskWakes(config: FunctionConfig): SqsTaskWakes | undefined {
  if (config.wakeQueuePrefix === undefined) return undefined;
  return new SqsTaskWakes({
    queuePrefix: config.wakeQueuePrefix,
    client: { region: config.region },
  });
}
