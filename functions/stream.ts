import { AwsLambdaInvoker } from '../lib/adapters/aws/lambda-invoker.js';
import { AwsLambdaTaskRunner } from '../lib/adapters/aws/lambda-tasks.js';
import { AwsTaskPush } from '../lib/adapters/aws/task-push.js';
import { functionSigningKeys, loadOutboxConfig } from './shared/config.js';
import { armingSettings, outboxDeps } from './shared/outbox-deps.js';
import { streamBatchHandler } from './shared/stream-batch.js';

/** DynamoDB stream of the table → the outbox: deadlines armed, tasks queued, cross-execution effects. */
const config = loadOutboxConfig(process.env);

export const handler = streamBatchHandler(
  outboxDeps({
    ...armingSettings(config),
    lambda: new AwsLambdaInvoker(),
    // ScheduleLambdaFunction tasks are started here and handed to the Lambda-task function, which
    // invokes them with the execution's lambdaRole assumed: the stream never waits on a function.
    lambdaTasks: new AwsLambdaTaskRunner(config.lambdaTaskFunction),
    // Tasks of push task lists are started here and handed to their functions (asynchronous Invoke).
    push: new AwsTaskPush(config.pushTaskLists, config.apiFunction),
    // Pushed tasks carry task tokens, signed with the stack's key.
    signingKeys: functionSigningKeys(config),
  }),
  config.streamMaxAttempts === undefined ? {} : { maxAttempts: config.streamMaxAttempts },
);
