import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import {
  AwsDeadlineScheduler,
  type AwsSchedulerConfig,
} from '../../lib/adapters/aws/deadline-scheduler.js';
import type { DocClient } from '../../lib/adapters/dynamodb/doc-client.js';
import { translatingFailures } from '../../lib/adapters/transient-failures.js';
import { createOperationDeps } from '../../lib/composition/operation-deps.js';
import { tablePollerLeasing } from '../../lib/composition/poller-leasing.js';
import type { OutboxDeps } from '../../lib/operations/outbox.js';
import type { Clock } from '../../lib/ports/clock.js';
import type { DeadlineScheduler } from '../../lib/ports/deadline-scheduler.js';
import type { LambdaInvoker, LambdaTaskRunner } from '../../lib/ports/lambda-invoker.js';
import type { MetricsSink } from '../../lib/ports/metrics.js';
import type { SigningKeySource } from '../../lib/ports/secrets.js';
import type { TaskPush } from '../../lib/ports/task-push.js';
import type { TaskWakes } from '../../lib/ports/task-wakes.js';
import {
  accountIdFromArn,
  functionDocClient,
  functionMetrics,
  functionTaskWakes,
  type OutboxConfig,
} from './config.js';

export interface OutboxSettings {
  readonly doc: DocClient;
  readonly tableName: string;
  readonly region: string;
  /** When unset, read from the invoked function's ARN on the first invocation. */
  readonly accountId?: string | undefined;
  readonly sqs: SQSClient;
  readonly scheduler: SchedulerClient;
  readonly deadlines: AwsSchedulerConfig;
  /** Decides whether ScheduleLambdaFunction is offered; the Lambda-task function invokes. */
  readonly lambda: LambdaInvoker;
  /** Where the stream function hands started Lambda tasks (the Lambda-task function). */
  readonly lambdaTasks?: LambdaTaskRunner | undefined;
  /** Push task lists: the stream and timer functions invoke their functions for tasks their commits schedule. */
  readonly push?: TaskPush | undefined;
  readonly clock?: Clock;
  /** The token-signing keys (the stack's secret); by default a key kept in the table. */
  readonly signingKeys?: SigningKeySource | undefined;
  /** Where SWF's metrics of the commits these functions make go (EMF in Lambda). */
  readonly metrics?: MetricsSink | undefined;
  /** Wakes polls waiting in the API function's containers for the tasks these commits queue. */
  readonly wakes?: TaskWakes | undefined;
}

/**
 * What every function that arms deadlines (stream, timer, reconciler) builds from its configuration,
 * once per container: the table, SQS and Scheduler clients, where fires go, SWF's metrics.
 */
export function armingSettings(config: OutboxConfig) {
  const clients = { region: config.region };
  return {
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
      scheduleDeadLetterArn: config.scheduleDeadLetterArn,
    },
    metrics: functionMetrics(config),
    wakes: functionTaskWakes(config),
  };
}

/**
 * The outbox's dependencies on AWS: the same operations as the api function, with deadlines armed on
 * SQS and EventBridge Scheduler. Built on the first invocation (the account id may come from the
 * context) and reused by every warm invocation of the container.
 */
export function outboxDeps(settings: OutboxSettings): (context: Context) => OutboxDeps {
  let deps: OutboxDeps | undefined;
  return (context) => {
    if (deps !== undefined) return deps;
    const base = createOperationDeps({
      doc: settings.doc,
      tableName: settings.tableName,
      identity: {
        region: settings.region,
        accountId: settings.accountId ?? accountIdFromArn(context.invokedFunctionArn),
      },
      lambda: settings.lambda,
      ...(settings.lambdaTasks === undefined ? {} : { lambdaTasks: settings.lambdaTasks }),
      ...(settings.push === undefined ? {} : { push: settings.push }),
      ...(settings.clock === undefined ? {} : { clock: settings.clock }),
      ...(settings.signingKeys === undefined ? {} : { signingKeys: settings.signingKeys }),
      ...(settings.metrics === undefined ? {} : { metrics: settings.metrics }),
      ...(settings.wakes === undefined ? {} : { wakes: settings.wakes }),
      // The API function's polls keep their leases in the table: a commit here wakes only the lists
      // where one waits (these functions never poll, so take none).
      pollerLeasing: tablePollerLeasing(settings.doc, settings.tableName),
    });
    deps = {
      ...base,
      scheduler: awsDeadlineScheduler(
        settings.sqs,
        settings.scheduler,
        settings.deadlines,
        base.clock,
      ),
    };
    return deps;
  };
}

/**
 * Deadlines armed on SQS and EventBridge Scheduler, whose transient failures (throttling, a 5xx)
 * reach the outbox as TransientServiceErrors: the stream batch is retried, not dead-lettered.
 */
export const awsDeadlineScheduler = (
  ...args: ConstructorParameters<typeof AwsDeadlineScheduler>
): DeadlineScheduler => translatingFailures(new AwsDeadlineScheduler(...args));
