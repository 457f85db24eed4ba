/**
 * `npm run start-execution -- ada@example.com`: registers the domain and types if need be, starts
 * one onboarding and prints how it ended.
 *
 * Locally (`npm run local` in another terminal) it needs nothing more. Against the deployed stack,
 * give it the stack's outputs and your AWS credentials:
 *   SWF_ENDPOINT=<SwfEndpoint> SWF_SIGNING_NAME=<SwfSigningName> AWS_REGION=<region> npm run start-execution -- ada@example.com
 */
import { createSwfClient } from 'swf-on-dynamo/sdk';
import { startOnboarding, waitForClose } from '../src/executions.js';
import { register } from '../src/workflow.js';

const email = process.argv[2];
if (email === undefined) {
  console.error('Usage: npm run start-execution -- <email>');
  process.exit(2);
}
const endpoint = process.env.SWF_ENDPOINT;
const signingName = process.env.SWF_SIGNING_NAME;
const client = createSwfClient({
  endpoint: endpoint ?? 'local',
  ...(signingName === undefined ? {} : { signingName }),
});
try {
  await register(client);
  const execution = await startOnboarding(client, email);
  console.log(`started ${execution.workflowId} (run ${execution.runId})`);
  const { closeStatus, result } = await waitForClose(client, execution);
  console.log(`${closeStatus}: ${result}`);
  process.exitCode = closeStatus === 'COMPLETED' ? 0 : 1;
} finally {
  client.destroy();
}
