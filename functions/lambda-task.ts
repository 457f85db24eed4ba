import type { Context } from 'aws-lambda';
import { AwsLambdaInvoker } from '../lib/adapters/aws/lambda-invoker.js';
import type { LambdaTaskEvent } from '../lib/adapters/aws/lambda-tasks.js';
import { AwsTaskPush } from '../lib/adapters/aws/task-push.js';
import { createOperationDeps } from '../lib/composition/operation-deps.js';
import type { OperationDeps } from '../lib/operations/context.js';
import { runLambdaTask } from '../lib/operations/outbox.js';
import {
  accountIdFromArn,
  functionDocClient,
  functionMetrics,
  functionSigningKeys,
  loadConfig,
} from './shared/config.js';

/**
 * ScheduleLambdaFunction tasks, handed over by the stream function (asynchronous Invoke, no retries):
 * invokes the task's function with the execution's lambdaRole assumed, waiting up to its
 * start-to-close timeout, and records how it ended. Should this function itself fail, the task's
 * timeout closes it; a function is never invoked twice for one task.
 */
const config = loadConfig(process.env);
const doc = functionDocClient(config.region);
const lambda = new AwsLambdaInvoker();
// The outcome may schedule a decision task on a push task list: this function hands it over then.
const push = new AwsTaskPush(config.pushTaskLists, config.apiFunction);
const signingKeys = functionSigningKeys(config);
const metrics = functionMetrics(config);

let deps: OperationDeps | undefined;

export async function handler(event: LambdaTaskEvent, context: Context): Promise<void> {
  deps ??= createOperationDeps({
    doc,
    tableName: config.tableName,
    identity: {
      region: config.region,
      accountId: config.accountId ?? accountIdFromArn(context.invokedFunctionArn),
    },
    lambda,
    push,
    ...(signingKeys === undefined ? {} : { signingKeys }),
    metrics,
  });
  await runLambdaTask(deps, event.swfLambdaTask);
}
