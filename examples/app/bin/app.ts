import { App } from 'aws-cdk-lib';
import { AppStack } from '../lib/app-stack.js';

const app = new App();
new AppStack(app, 'SwfApp', {
  description: 'An SWF-compatible service with the onboarding workflow as Lambda functions',
});
app.synth();
