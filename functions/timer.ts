import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { AwsLambdaInvoker } from '../lib/adapters/aws/lambda-invoker.js';
import { AwsTaskPush } from '../lib/adapters/aws/task-push.js';
import {
  functionDocClient,
  functionMetrics,
  functionSigningKeys,
  loadOutboxConfig,
} from './shared/config.js';
import { outboxDeps } from './shared/outbox-deps.js';
import { timerBatchHandler } from './shared/timer-batch.js';

/** Deadline fires from the SQS queue (delayed messages and EventBridge Scheduler targets) → the runs. */
const config = loadOutboxConfig(process.env);

const clients = { region: config.region };

export const handler = timerBatchHandler(
  outboxDeps({
    doc: functionDocClient(config.region),
    tableName: config.tableName,
    region: config.region,
    accountId: config.accountId,
    sqs: new SQSClient(clients),
    scheduler: new SchedulerClient(clients),
    deadlines: {
      queueUrl: config.queueUrl,
      queueArn: config.queueArn,
      scheduleGroup: config.scheduleGroup,
      schedulerRoleArn: config.schedulerRoleArn,
    },
    // A fire never invokes a Lambda task; the invoker only completes the operations' dependencies.
    lambda: new AwsLambdaInvoker(),
    // A fire may schedule a task (a decision task after a timeout): push lists' tasks are not queued.
    push: new AwsTaskPush(config.pushTaskLists, config.apiFunction),
    // Pushed tasks carry task tokens, signed with the stack's key.
    signingKeys: functionSigningKeys(config),
    metrics: functionMetrics(config),
  }),
);
