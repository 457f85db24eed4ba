import { App } from 'aws-cdk-lib';
import { SwfStack } from './swf-stack.js';

const app = new App();
// `npx cdk deploy -c frontDoor=function-url` puts the API function behind its own URL instead of the
// HTTP API (infra/constructs/swf-api.ts).
const frontDoor: unknown = app.node.tryGetContext('frontDoor') ?? 'http-api';
if (frontDoor !== 'http-api' && frontDoor !== 'function-url')
  throw new Error(`frontDoor must be http-api or function-url (got ${String(frontDoor)})`);
new SwfStack(app, 'SwfStack', {
  description: 'Amazon SWF-compatible workflow service on API Gateway, Lambda and DynamoDB',
  frontDoor,
});
app.synth();
