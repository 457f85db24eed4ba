/** An outbox over a fresh table (its requests optionally intercepted), runs started through the operations, and stream records built from their state items. */
import { randomUUID } from 'node:crypto';
import { type AttributeValue, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import type { DynamoIntercept } from '../../lib/adapters/dynamodb/doc-client.js';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import type { StreamRecordLike } from '../../lib/adapters/dynamodb/stream-records.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION } from '../../lib/local/local-service.js';
import type { OutboxDeps } from '../../lib/operations/outbox.js';
import type { Clock } from '../../lib/ports/clock.js';
import type { DeadlineFire, DeadlineScheduler } from '../../lib/ports/deadline-scheduler.js';
import { lambdaStreamRecord } from './lambda-events.js';
import { dynamoEndpoint, freshTable } from './local.js';
import { type CallOperation, domainWithType, operationsOver } from './operations.js';

export interface OutboxFixture {
  table: Awaited<ReturnType<typeof freshTable>>;
  call: CallOperation;
  outbox: OutboxDeps;
  armed: DeadlineFire[];
  domain: string;
  close: () => void;
}

export async function outboxFixture(
  options: { intercept?: DynamoIntercept; clock?: Clock; domain?: string } = {},
): Promise<OutboxFixture> {
  const table = await freshTable('review');
  const doc =
    options.intercept === undefined
      ? table.doc
      : createDocumentClient({
          endpoint: dynamoEndpoint(),
          region: LOCAL_REGION,
          credentials: localCredentials,
          intercept: options.intercept,
        });
  const { deps, call } = operationsOver(
    { ...table, doc },
    options.clock === undefined ? {} : { clock: options.clock },
  );
  const armed: DeadlineFire[] = [];
  const scheduler: DeadlineScheduler = {
    arm: async (f) => void armed.push(f),
    disarm: async () => {},
  };
  const domain = options.domain ?? `d-${randomUUID().slice(0, 8)}`;
  await domainWithType(call, domain);
  return {
    table,
    call,
    outbox: { ...deps, scheduler },
    armed,
    domain,
    close: () => {
      if (doc !== table.doc) doc.destroy();
      table.doc.destroy();
      table.client.destroy();
    },
  };
}

export async function start(r: OutboxFixture, workflowId: string, taskList: string, extra = {}) {
  const out = await r.call('StartWorkflowExecution', {
    domain: r.domain,
    workflowId,
    workflowType: { name: 'w', version: '1' },
    taskList: { name: taskList },
    ...extra,
  });
  return String(out?.runId);
}

export async function decide(r: OutboxFixture, taskList: string, decisions: unknown[]) {
  const task = await r.call('PollForDecisionTask', {
    domain: r.domain,
    taskList: { name: taskList },
    identity: 'rev',
  });
  const token = task?.taskToken;
  if (typeof token !== 'string' || token === '') throw new Error(`no decision task on ${taskList}`);
  await r.call('RespondDecisionTaskCompleted', { taskToken: token, decisions });
}

export async function rawState(
  r: OutboxFixture,
  runId: string,
): Promise<Record<string, AttributeValue>> {
  const key = keys.runState(runId);
  const { Item } = await r.table.client.send(
    new GetItemCommand({
      TableName: r.table.tableName,
      Key: { pk: { S: key.pk }, sk: { S: key.sk } },
      ConsistentRead: true,
    }),
  );
  if (Item === undefined) throw new Error(`no state item for ${runId}`);
  return Item;
}

let seq = 1000;
/** The stream record (as Lambda delivers it) of a change of a run's state item between two images. */
export function recordOf(
  runId: string,
  oldImage: Record<string, AttributeValue> | undefined,
  newImage: Record<string, AttributeValue>,
): DynamoDBRecord {
  const key = keys.runState(runId);
  seq += 1;
  return lambdaStreamRecord({
    eventID: randomUUID(),
    eventName: oldImage === undefined ? 'INSERT' : 'MODIFY',
    dynamodb: {
      Keys: { pk: { S: key.pk }, sk: { S: key.sk } },
      ...(oldImage === undefined ? {} : { OldImage: oldImage }),
      NewImage: newImage,
      SequenceNumber: String(seq).padStart(21, '0'),
    },
  } as never);
}

export const asLike = (r: DynamoDBRecord) => r as unknown as StreamRecordLike;

export async function historyTypes(r: OutboxFixture, runId: string): Promise<string[]> {
  const { events } = await r.outbox.runs.readHistory(runId, { limit: 1000, reverse: false });
  return events.map((e) => e.eventType);
}

export async function historyOf(r: OutboxFixture, runId: string) {
  return (await r.outbox.runs.readHistory(runId, { limit: 1000, reverse: false })).events;
}
