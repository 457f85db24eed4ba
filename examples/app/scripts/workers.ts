/**
 * `npm run workers`: the decider and the activities as pollers, for the local service
 * (`npm run local`), where no Lambda function serves the task lists. Ctrl-C stops them gracefully.
 */
import { ActivityWorker, createSwfClient, DeciderWorker } from 'swf-on-dynamo/sdk';
import {
  ACTIVITIES,
  activities,
  DECISIONS,
  DOMAIN,
  onboarding,
  register,
} from '../src/workflow.js';

const client = createSwfClient({ endpoint: 'local' }); // $SWF_ENDPOINT, else http://127.0.0.1:8080
await register(client);
new DeciderWorker({ client, domain: DOMAIN, taskList: DECISIONS, decider: onboarding }).start();
new ActivityWorker({ client, domain: DOMAIN, taskList: ACTIVITIES, activities }).start();
console.log(`Deciding on ${DECISIONS} and working on ${ACTIVITIES} in ${DOMAIN}. Ctrl-C stops.`);
