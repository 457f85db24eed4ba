/** The decider as a Lambda function: the service invokes it with each decision task of its list. */
import { decisionTaskHandler } from 'swf-on-dynamo/sdk';
import { onboarding } from './workflow.js';

export const handler = decisionTaskHandler({ decider: onboarding });
