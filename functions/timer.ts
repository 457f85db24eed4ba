import { AwsLambdaInvoker } from '../lib/adapters/aws/lambda-invoker.js';
import { AwsTaskPush } from '../lib/adapters/aws/task-push.js';
import { functionSigningKeys, loadOutboxConfig } from './shared/config.js';
import { armingSettings, outboxDeps } from './shared/outbox-deps.js';
import { timerBatchHandler } from './shared/timer-batch.js';

/** Deadline fires from the SQS queue (delayed messages and EventBridge Scheduler targets) → the runs. */
const config = loadOutboxConfig(process.env);

export const handler = timerBatchHandler(
  outboxDeps({
    ...armingSettings(config),
    // A fire never invokes a Lambda task; the invoker only completes the operations' dependencies.
    lambda: new AwsLambdaInvoker(),
    // A fire may schedule a task (a decision task after a timeout): push lists' tasks are not queued.
    push: new AwsTaskPush(config.pushTaskLists, config.apiFunction),
    // Pushed tasks carry task tokens, signed with the stack's key.
    signingKeys: functionSigningKeys(config),
  }),
);
