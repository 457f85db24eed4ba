import { App } from 'aws-cdk-lib';
import { SwfStack } from './swf-stack.js';

const app = new App();
new SwfStack(app, 'SwfStack', {
  description: 'Amazon SWF-compatible workflow service on API Gateway, Lambda and DynamoDB',
});
app.synth();
