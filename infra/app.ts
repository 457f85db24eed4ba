import { App } from 'aws-cdk-lib';
import { contextProps } from './context.js';
import { SwfStack } from './swf-stack.js';

const app = new App();
// `npx cdk deploy -c frontDoor=function-url -c pollMaxWaitSeconds=60 -c pollRecheckMs=250`: the
// options infra/context.ts reads.
new SwfStack(app, 'SwfStack', {
  description: 'Amazon SWF-compatible workflow service on API Gateway, Lambda and DynamoDB',
  ...contextProps((name) => app.node.tryGetContext(name)),
});
app.synth();
