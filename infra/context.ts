import { readFileSync } from 'node:fs';
import { Duration } from 'aws-cdk-lib';
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
 * - `lambdaTaskRoleArns`: the roles ScheduleLambdaFunction tasks may run as, comma-separated (none
 *   by default: ScheduleLambdaFunction is not offered).
 * - `accessPolicies`: a JSON file of SWF's access policies by principal ARN (docs/access-control.md).
 * - `auditLog`: `off` silences the API functions' audit line per call.
 */
export function contextProps(
  context: (name: string) => unknown,
): Pick<
  SwfStackProps,
  'frontDoor' | 'pollMaxWait' | 'pollRecheck' | 'lambdaTaskRoleArns' | 'accessPolicies' | 'auditLog'
> {
  const frontDoor: unknown = context('frontDoor') ?? 'http-api';
  if (frontDoor !== 'http-api' && frontDoor !== 'function-url')
    throw new Error(`frontDoor must be http-api or function-url (got ${String(frontDoor)})`);
  const pollSeconds = wholeNumber(context('pollMaxWaitSeconds'), 'pollMaxWaitSeconds', 'seconds');
  const recheckMs = wholeNumber(context('pollRecheckMs'), 'pollRecheckMs', 'milliseconds');
  const roles = context('lambdaTaskRoleArns');
  const policiesFile = context('accessPolicies');
  const audit = context('auditLog');
  if (audit !== undefined && audit !== 'on' && audit !== 'off')
    throw new Error(`auditLog must be on or off (got ${String(audit)})`);
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
    ...(audit === undefined ? {} : { auditLog: audit === 'on' }),
  };
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
