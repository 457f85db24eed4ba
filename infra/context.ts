import { readFileSync } from 'node:fs';
import { Duration } from 'aws-cdk-lib';
import { MIN_CALL_HEADROOM } from './constructs/swf-api.js';
import { managedInstancesContext } from './managed-instances-context.js';
import type { SwfStackProps } from './swf-stack.js';

/**
 * The `SwfStack` props that `npx cdk deploy -c name=value` sets (docs/deploying.md), read from
 * the app's context (`app.node.tryGetContext`). A value of the wrong form fails the synth.
 *
 * - `frontDoor`: `http-api` (default) or `function-url` (infra/constructs/swf-api.ts).
 * - `pollMaxWaitSeconds`: how long a long poll waits (20 s by default; at most 25 behind the HTTP
 *   API, whose integrations end at 30 s, and SWF's 60 behind a function URL).
 * - `pollRecheckMs`: how often a waiting long poll looks at its queue again (1,000 by default): a
 *   task scheduled while pollers wait is handed out within that time, for two read units a look.
 *   Only without the wake channel, or when it fails: `wakeChannel` `off` turns it off (on by default:
 *   polls wait on an SQS queue of their task list, woken by each task queued).
 * - `lambdaTaskRoleArns`: the roles ScheduleLambdaFunction tasks may run as, comma-separated (none
 *   by default: ScheduleLambdaFunction is not offered).
 * - `accessPolicies`: a JSON file of SWF's access policies by principal ARN (docs/access-control.md).
 * - `auditLog`: `off` silences the API functions' audit line per call.
 * - `alarmEmail`: an address the alarms' new SNS topic mails (the address confirms first), or
 *   `alarmTopicArn`: an existing topic. Every alarm notifies it on ALARM and on OK.
 * - `concurrencyAlarmThreshold`: the account's concurrent executions that raise the alarm (800).
 * - `metricsNamespace`: the CloudWatch namespace of SWF's metrics (`SwfOnDynamo`).
 * - `tracing`: `on` turns on X-Ray active tracing of every function.
 * - `tableKmsKeyArn`: a customer-managed KMS key for the table and its stream.
 * - `tableDeletionProtection`: `off` lets the table be deleted (on by default).
 * - `tableWarmReadUnits`, `tableWarmWriteUnits`: the table's warm throughput, per second.
 * - `managedInstanceSubnets`, `managedInstanceSecurityGroups` (and their sizes): the API function on
 *   Lambda Managed Instances (infra/managed-instances-context.ts).
 * - `apiReservedConcurrency`: the API function's reserved concurrency (400; at least 11), and
 *   `maxWaitingPolls`: the most long polls waiting at once under it (that less 100; the stack
 *   refuses a cap that leaves fewer than 10 for other calls). See docs/pollers.md.
 * - `apiMemorySize`: the API function's memory in MB (512; 128 to 10,240): what a waiting poller
 *   costs an hour (docs/dispatch-on-aws.md).
 */
export function contextProps(
  context: (name: string) => unknown,
): Pick<
  SwfStackProps,
  | 'frontDoor'
  | 'pollMaxWait'
  | 'pollRecheck'
  | 'lambdaTaskRoleArns'
  | 'accessPolicies'
  | 'auditLog'
  | 'wakeChannel'
  | 'apiManagedInstances'
  | keyof OperationsContext
> {
  const frontDoor: unknown = context('frontDoor') ?? 'http-api';
  if (frontDoor !== 'http-api' && frontDoor !== 'function-url')
    throw new Error(`frontDoor must be http-api or function-url (got ${String(frontDoor)})`);
  const pollSeconds = wholeNumber(context('pollMaxWaitSeconds'), 'pollMaxWaitSeconds', 'seconds');
  const recheckMs = wholeNumber(context('pollRecheckMs'), 'pollRecheckMs', 'milliseconds');
  const roles = context('lambdaTaskRoleArns');
  const policiesFile = context('accessPolicies');
  const audit = onOff(context, 'auditLog');
  const wakes = onOff(context, 'wakeChannel');
  return {
    frontDoor,
    ...(pollSeconds === undefined ? {} : { pollMaxWait: Duration.seconds(pollSeconds) }),
    ...(recheckMs === undefined ? {} : { pollRecheck: Duration.millis(recheckMs) }),
    ...(roles === undefined
      ? {}
      : {
          lambdaTaskRoleArns: String(roles)
            .split(',')
            .map((r) => r.trim())
            .filter((r) => r !== ''),
        }),
    ...(policiesFile === undefined ? {} : { accessPolicies: readPolicies(String(policiesFile)) }),
    ...(audit === undefined ? {} : { auditLog: audit }),
    ...(wakes === undefined ? {} : { wakeChannel: wakes }),
    ...operationsContext(context),
    ...tableContext(context),
    ...managedInstancesContext(context),
  };
}

type OperationsContext = Pick<
  SwfStackProps,
  | 'alarmEmail'
  | 'alarmTopicArn'
  | 'concurrencyAlarmThreshold'
  | 'metricsNamespace'
  | 'tracing'
  | 'tableKmsKeyArn'
  | 'tableDeletionProtection'
  | 'tableWarmThroughput'
  | 'apiReservedConcurrency'
  | 'maxWaitingPolls'
  | 'apiMemorySize'
>;

/** The context of alarms, metrics and tracing. */
function operationsContext(context: (name: string) => unknown): OperationsContext {
  const text = matching(context);
  const email = text('alarmEmail', /^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'an email address');
  const topic = text('alarmTopicArn', /^arn:[\w-]+:sns:[\w-]+:\d{12}:[\w-]+$/, 'an SNS topic ARN');
  if (email !== undefined && topic !== undefined)
    throw new Error(
      'alarmEmail and alarmTopicArn: give one of them (subscribe the address yourself)',
    );
  const namespace = text('metricsNamespace', /^[^:][\w.\-/#:]{0,254}$/, 'a CloudWatch namespace');
  const threshold = positiveNumber(
    context('concurrencyAlarmThreshold'),
    'concurrencyAlarmThreshold',
    'executions',
  );
  const tracing = onOff(context, 'tracing');
  return {
    ...(email === undefined ? {} : { alarmEmail: email }),
    ...(topic === undefined ? {} : { alarmTopicArn: topic }),
    ...(namespace === undefined ? {} : { metricsNamespace: namespace }),
    ...(threshold === undefined ? {} : { concurrencyAlarmThreshold: threshold }),
    ...(tracing === undefined ? {} : { tracing }),
    ...concurrencyContext(context),
  };
}

/**
 * The API function's reserved concurrency, the cap on waiting polls, and its memory. The stack
 * checks the cap against the reservation (with its default when `apiReservedConcurrency` is not
 * given).
 */
function concurrencyContext(context: (name: string) => unknown): OperationsContext {
  const reserved = wholeNumber(
    context('apiReservedConcurrency'),
    'apiReservedConcurrency',
    'containers',
  );
  const least = MIN_CALL_HEADROOM + 1;
  if (reserved !== undefined && reserved < least)
    throw new Error(
      `apiReservedConcurrency must be at least ${least}: ${MIN_CALL_HEADROOM} for calls other than waiting polls, and one poll (got ${reserved})`,
    );
  const polls = positiveNumber(context('maxWaitingPolls'), 'maxWaitingPolls', 'polls');
  // Its range is the stack's to check (SwfApi), as for a prop.
  const memory = wholeNumber(context('apiMemorySize'), 'apiMemorySize', 'MB');
  return {
    ...(reserved === undefined ? {} : { apiReservedConcurrency: reserved }),
    ...(polls === undefined ? {} : { maxWaitingPolls: polls }),
    ...(memory === undefined ? {} : { apiMemorySize: memory }),
  };
}

/** The context of the table's safety: its key, deletion protection and warm throughput. */
function tableContext(context: (name: string) => unknown): OperationsContext {
  const key = matching(context)(
    'tableKmsKeyArn',
    /^arn:[\w-]+:kms:[\w-]+:\d{12}:key\/[\w-]+$/,
    'a KMS key ARN',
  );
  const protection = onOff(context, 'tableDeletionProtection');
  const reads = positiveNumber(context('tableWarmReadUnits'), 'tableWarmReadUnits', 'read units');
  const writes = positiveNumber(
    context('tableWarmWriteUnits'),
    'tableWarmWriteUnits',
    'write units',
  );
  const warm = {
    ...(reads === undefined ? {} : { readUnitsPerSecond: reads }),
    ...(writes === undefined ? {} : { writeUnitsPerSecond: writes }),
  };
  return {
    ...(key === undefined ? {} : { tableKmsKeyArn: key }),
    ...(protection === undefined ? {} : { tableDeletionProtection: protection }),
    ...(Object.keys(warm).length === 0 ? {} : { tableWarmThroughput: warm }),
  };
}

/** A context value that must match a pattern, or undefined when it is not set. */
const matching =
  (context: (name: string) => unknown) =>
  (name: string, pattern: RegExp, what: string): string | undefined => {
    const value = context(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !pattern.test(value))
      throw new Error(`${name} must be ${what} (got ${String(value)})`);
    return value;
  };

/** `on` or `off` as a boolean, or undefined when it is not set. */
function onOff(context: (name: string) => unknown, name: string): boolean | undefined {
  const value = context(name);
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off')
    throw new Error(`${name} must be on or off (got ${String(value)})`);
  return value === 'on';
}

/** `-c accessPolicies=FILE`: the file's JSON object (the stack checks the policies themselves). */
function readPolicies(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`accessPolicies ${file}: ${error instanceof Error ? error.message : error}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`accessPolicies ${file} must hold a JSON object from principals to policies`);
  return parsed as Record<string, unknown>;
}

/** A context value as a whole number (`-c` gives strings), or undefined when it is not set. */
function wholeNumber(value: unknown, name: string, unit: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number))
    throw new Error(`${name} must be a whole number of ${unit} (got ${String(value)})`);
  return number;
}

/** A context value as a positive whole number, or undefined when it is not set. */
function positiveNumber(value: unknown, name: string, unit: string): number | undefined {
  const number = wholeNumber(value, name, unit);
  if (number !== undefined && number < 1)
    throw new Error(`${name} must be a positive whole number of ${unit} (got ${String(value)})`);
  return number;
}
