import { AwsLambdaInvoker } from '../lib/adapters/aws/lambda-invoker.js';
import { AwsTaskPush } from '../lib/adapters/aws/task-push.js';
import { auditLine } from '../lib/http/dispatch.js';
import { createApiHandler } from './shared/api-handler.js';
import {
  functionDocClient,
  functionMetrics,
  functionSigningKeys,
  functionTaskWakes,
  loadApiConfig,
} from './shared/config.js';

/**
 * API Gateway (HTTP API, payload v2) or the function URL → the awsJson1_0 dispatcher → the SWF
 * operations. The same code runs as the function push-task-list workers invoke directly
 * (SWF_API_CALLERS=direct-invoke), which trusts no caller its events name.
 */
const config = loadApiConfig(process.env);

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
  // ScheduleLambdaFunction is offered only when the Lambda-task function may assume some role: the
  // api function only decides that; the stream and Lambda-task functions invoke.
  ...(config.lambdaTaskRoles.length > 0 ? { lambda: new AwsLambdaInvoker() } : {}),
  // Tasks of push task lists are never queued: a commit that schedules one starts it, and this
  // function invokes the list's function with it, naming the function workers call back.
  push: new AwsTaskPush(
    config.pushTaskLists,
    config.apiFunction ?? process.env.AWS_LAMBDA_FUNCTION_NAME,
  ),
  callers: config.callers,
  access: config.access,
  // One line per call, the service's CloudTrail: who, what, where, how it ended.
  audit: config.auditLog ? (entry) => console.log(auditLine(entry)) : undefined,
  signingKeys: functionSigningKeys(config),
  metrics: functionMetrics(config),
  maxWaitingPolls: config.maxWaitingPolls,
  // Commits wake polls waiting in other containers; polls here wait on it (see long-poll.ts).
  wakes: functionTaskWakes(config),
});
