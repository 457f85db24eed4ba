import { AwsLambdaInvoker } from '../lib/adapters/aws/lambda-invoker.js';
import { AwsTaskPush } from '../lib/adapters/aws/task-push.js';
import { createApiHandler } from './shared/api-handler.js';
import { functionDocClient, loadConfig } from './shared/config.js';

/** API Gateway (HTTP API, payload v2) → the awsJson1_0 dispatcher → the SWF operations. */
const config = loadConfig(process.env);

// Module scope: one set of clients per container, reused by every warm invocation.
const doc = functionDocClient(config.region);

export const handler = createApiHandler({
  doc,
  tableName: config.tableName,
  region: config.region,
  accountId: config.accountId,
  polling: {
    ...(config.pollMaxWaitMs === undefined ? {} : { maxWaitMs: config.pollMaxWaitMs }),
    ...(config.pollRecheckMs === undefined ? {} : { recheckMs: config.pollRecheckMs }),
  },
  // The api function only decides whether ScheduleLambdaFunction is offered; the stream consumer invokes.
  lambda: new AwsLambdaInvoker(),
  // Tasks of push task lists are never queued: a commit that schedules one starts it, and this
  // function invokes the list's function with it, naming itself for the worker to call back.
  push: new AwsTaskPush(config.pushTaskLists, process.env.AWS_LAMBDA_FUNCTION_NAME),
});
