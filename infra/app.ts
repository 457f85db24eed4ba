import { App, Duration } from 'aws-cdk-lib';
import { SwfStack } from './swf-stack.js';

const app = new App();
// `npx cdk deploy -c frontDoor=function-url` puts the API function behind its own URL instead of the
// HTTP API (infra/constructs/swf-api.ts).
const frontDoor: unknown = app.node.tryGetContext('frontDoor') ?? 'http-api';
if (frontDoor !== 'http-api' && frontDoor !== 'function-url')
  throw new Error(`frontDoor must be http-api or function-url (got ${String(frontDoor)})`);
// `-c pollMaxWaitSeconds=60`: how long a long poll waits (20 s by default; at most 25 behind the
// HTTP API, whose integrations end at 30 s, and SWF's 60 behind a function URL).
const pollMaxWait: unknown = app.node.tryGetContext('pollMaxWaitSeconds');
const pollSeconds = pollMaxWait === undefined ? undefined : Number(pollMaxWait);
if (pollSeconds !== undefined && !Number.isInteger(pollSeconds))
  throw new Error(
    `pollMaxWaitSeconds must be a whole number of seconds (got ${String(pollMaxWait)})`,
  );
// `-c pollRecheckMs=250`: how often a waiting long poll looks at its queue again (1,000 by default):
// a task scheduled while pollers wait is handed out within that time, for two read units a look.
const pollRecheck: unknown = app.node.tryGetContext('pollRecheckMs');
const recheckMs = pollRecheck === undefined ? undefined : Number(pollRecheck);
if (recheckMs !== undefined && !Number.isInteger(recheckMs))
  throw new Error(
    `pollRecheckMs must be a whole number of milliseconds (got ${String(pollRecheck)})`,
  );
new SwfStack(app, 'SwfStack', {
  description: 'Amazon SWF-compatible workflow service on API Gateway, Lambda and DynamoDB',
  frontDoor,
  ...(pollSeconds === undefined ? {} : { pollMaxWait: Duration.seconds(pollSeconds) }),
  ...(recheckMs === undefined ? {} : { pollRecheck: Duration.millis(recheckMs) }),
});
app.synth();
