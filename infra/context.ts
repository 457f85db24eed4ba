import { Duration } from 'aws-cdk-lib';
import type { SwfStackProps } from './swf-stack.js';

/**
 * The `SwfStack` props that `npx cdk deploy -c name=value` sets (README, "Deploy to AWS"), read from
 * the app's context (`app.node.tryGetContext`). A value of the wrong form fails the synth.
 *
 * - `frontDoor`: `http-api` (default) or `function-url` (infra/constructs/swf-api.ts).
 * - `pollMaxWaitSeconds`: how long a long poll waits (20 s by default; at most 25 behind the HTTP
 *   API, whose integrations end at 30 s, and SWF's 60 behind a function URL).
 * - `pollRecheckMs`: how often a waiting long poll looks at its queue again (1,000 by default): a
 *   task scheduled while pollers wait is handed out within that time, for two read units a look.
 */
export function contextProps(
  context: (name: string) => unknown,
): Pick<SwfStackProps, 'frontDoor' | 'pollMaxWait' | 'pollRecheck'> {
  const frontDoor: unknown = context('frontDoor') ?? 'http-api';
  if (frontDoor !== 'http-api' && frontDoor !== 'function-url')
    throw new Error(`frontDoor must be http-api or function-url (got ${String(frontDoor)})`);
  const pollSeconds = wholeNumber(context('pollMaxWaitSeconds'), 'pollMaxWaitSeconds', 'seconds');
  const recheckMs = wholeNumber(context('pollRecheckMs'), 'pollRecheckMs', 'milliseconds');
  return {
    frontDoor,
    ...(pollSeconds === undefined ? {} : { pollMaxWait: Duration.seconds(pollSeconds) }),
    ...(recheckMs === undefined ? {} : { pollRecheck: Duration.millis(recheckMs) }),
  };
}

/** A context value as a whole number (`-c` gives strings), or undefined when it is not set. */
function wholeNumber(value: unknown, name: string, unit: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number))
    throw new Error(`${name} must be a whole number of ${unit} (got ${String(value)})`);
  return number;
}
