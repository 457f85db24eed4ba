import { SQSClient } from '@aws-sdk/client-sqs';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SqsPointerQueue } from '../adapters/aws/stream-failure-queue.js';
import { DynamoAdminItems } from '../adapters/dynamodb/admin-items.js';
import { createDocumentClient } from '../adapters/dynamodb/client.js';
import { DynamoStreamShards } from '../adapters/dynamodb/stream-shards.js';
import type { Credentials } from '../aws-json/sigv4.js';
import { createOperationDeps } from '../composition/operation-deps.js';
import type { OperationDeps } from '../operations/context.js';
import type { OutboxDeps } from '../operations/outbox.js';
import type { DeadlineFire, DeadlineScheduler } from '../ports/deadline-scheduler.js';
import type { LambdaTaskRunner } from '../ports/lambda-invoker.js';
import type { AdminTarget } from './args.js';
import type { DeadLetterAdminDeps } from './dead-letters.js';
import type { RunAdminDeps } from './runs.js';
import type { RedriveDeps } from './stream-redrive.js';

/** The outbox of a deployed stack, as its stream function carries effects out. */
export type DeployedOutbox = (
  target: AdminTarget & { streamFunction: string },
) => Promise<OutboxDeps>;

/** What the commands work with, over one table. */
export interface AdminConnection {
  readonly deadLetters: DeadLetterAdminDeps;
  readonly runs: RunAdminDeps;
  readonly outbox: () => Promise<OutboxDeps>;
  readonly redrive: (queueUrl: string) => RedriveDeps;
  /**
   * Fires armed locally: deadlines wait in npm start's memory, which a separate process cannot
   * reach. npm start arms every open run's alarm again from the table when it starts.
   */
  readonly handedToLocalService: readonly DeadlineFire[] | undefined;
  close(): void;
}

/** DynamoDB Local takes any credentials; npm start's are these. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export function connect(target: AdminTarget, deployedOutbox: DeployedOutbox): AdminConnection {
  const local = target.endpoint !== undefined;
  const credentials: () => Promise<Credentials> = local
    ? () => Promise.resolve(LOCAL_CREDENTIALS)
    : defaultProvider();
  const doc = createDocumentClient({
    region: target.region,
    credentials,
    ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
  });
  const base = createOperationDeps({
    doc,
    tableName: target.tableName,
    identity: { region: target.region, accountId: '000000000000' },
    ...(local ? { lambdaTasks: notHere } : {}),
  });
  const items = new DynamoAdminItems(doc, target.tableName);
  const handed: DeadlineFire[] = [];
  let outbox: Promise<OutboxDeps> | undefined;
  const outboxOf = () => {
    outbox ??= local
      ? Promise.resolve(localOutbox(base, handed))
      : deployed(target, deployedOutbox);
    return outbox;
  };
  const closers: (() => void)[] = [() => doc.destroy()];
  return {
    deadLetters: {
      letters: base.deadLetters,
      removeLetter: (at, id) => items.removeDeadLetter(at, id),
      outbox: outboxOf,
    },
    runs: { runs: base.runs, runItem: (runId) => items.runItem(runId) },
    outbox: outboxOf,
    redrive: (queueUrl) => {
      // Redrive is for a deployed stack only (refused with --endpoint).
      const sqs = new SQSClient({ region: target.region });
      const shards = new DynamoStreamShards({
        endpoint: target.endpoint ?? `https://streams.dynamodb.${target.region}.amazonaws.com`,
        region: target.region,
        credentials,
      });
      closers.push(
        () => sqs.destroy(),
        () => shards.destroy(),
      );
      return { queue: new SqsPointerQueue(sqs, queueUrl), shards, outbox: outboxOf };
    },
    handedToLocalService: local ? handed : undefined,
    close: () => {
      for (const close of closers) close();
    },
  };
}

function deployed(target: AdminTarget, deployedOutbox: DeployedOutbox): Promise<OutboxDeps> {
  const { streamFunction } = target;
  if (streamFunction === undefined)
    return Promise.reject(
      new Error('a deployed table needs --stream-function NAME to carry out effects'),
    );
  return deployedOutbox({ ...target, streamFunction });
}

/** The outbox over npm start's table, from another process: see handedToLocalService. */
function localOutbox(base: OperationDeps, handed: DeadlineFire[]): OutboxDeps {
  const scheduler: DeadlineScheduler = {
    arm: async (fire) => {
      handed.push(fire);
    },
    // A fire not disarmed comes and does nothing.
    disarm: async () => {},
  };
  return { ...base, scheduler };
}

/** Locally, Lambda tasks run in npm start's process, with the functions it was given. */
const notHere: LambdaTaskRunner = {
  dispatch: () =>
    Promise.reject(
      new Error("locally, Lambda tasks run in npm start's process: restart it to run this one"),
    ),
};
