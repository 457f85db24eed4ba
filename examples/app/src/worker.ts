/** The activity worker as a Lambda function: the service invokes it with each activity task. */
import { activityTaskHandler } from 'swf-on-dynamo/sdk';
import { activities } from './workflow.js';

export const handler = activityTaskHandler({ activities });
