import {
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { localCredentials } from '../lib/local/dynamodb-local.js';
import { LOCAL_REGION } from '../lib/local/stack.js';
import { ensureTable } from '../lib/local/table.js';
import type { MeterTotals } from '../lib/metering/dynamo-meter.js';
import type { Progress } from './progress.js';
import { sleep } from './stats.js';

export interface StoreRate {
  readonly requestsPerSecond: number;
  readonly concurrency: number;
  readonly mix: Readonly<Record<string, number>>;
}

const ITEM_BYTES = 1_500;
const KEYS = 200;
const MIXED_OPS = ['GetItem', 'PutItem', 'DeleteItem', 'Query', 'TransactWriteItems', 'UpdateItem'];

/**
 * What DynamoDB Local serves at the bench's concurrency: a tight loop of the same request types in the
 * same proportions (and transactions of the same size) as the measured run, on items of ~1.5 KB.
 */
export async function measureStoreRate(
  endpoint: string,
  observed: MeterTotals,
  concurrency: number,
  durationMs: number,
  progress: Progress,
): Promise<StoreRate> {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
  const table = 'bench-rate';
  await ensureTable(client, table);
  const mix: Record<string, number> = {};
  for (const op of MIXED_OPS) {
    const n = observed.byOperation[op]?.requests ?? 0;
    if (n > 0) mix[op] = n;
  }
  if (Object.keys(mix).length === 0) mix.GetItem = 1;
  const tx = observed.byOperation.TransactWriteItems;
  const itemsPerTx = Math.max(
    1,
    Math.min(100, Math.round((tx?.itemWrites ?? 3) / Math.max(tx?.requests ?? 1, 1))),
  );
  const total = Object.values(mix).reduce((a, b) => a + b, 0);
  const filler = { S: 'x'.repeat(ITEM_BYTES) };
  const key = (i: number) => ({ pk: { S: `P#${i % KEYS}` }, sk: { S: `S#${i % 7}` } });
  for (let i = 0; i < KEYS; i++) {
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key(i), v: filler } }));
  }
  const request = (op: string, i: number) => {
    switch (op) {
      case 'GetItem':
        return client.send(
          new GetItemCommand({ TableName: table, Key: key(i), ConsistentRead: true }),
        );
      case 'PutItem':
        return client.send(
          new PutItemCommand({ TableName: table, Item: { ...key(i), v: filler } }),
        );
      case 'DeleteItem':
        return client.send(new DeleteItemCommand({ TableName: table, Key: key(i + 3) }));
      case 'UpdateItem':
        return client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: key(i),
            UpdateExpression: 'SET n = :n',
            ExpressionAttributeValues: { ':n': { N: String(i) } },
          }),
        );
      case 'Query':
        return client.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :p',
            ExpressionAttributeValues: { ':p': key(i).pk },
            Limit: 2,
            ConsistentRead: true,
          }),
        );
      default:
        // Distinct items per transaction: one item may appear only once in a transaction.
        return client.send(
          new TransactWriteItemsCommand({
            TransactItems: Array.from({ length: itemsPerTx }, (_, j) => ({
              Put: {
                TableName: table,
                Item: { pk: { S: `T#${i}` }, sk: { S: `S#${j}` }, v: filler },
              },
            })),
          }),
        );
    }
  };
  const pick = () => {
    let r = Math.random() * total;
    for (const [op, n] of Object.entries(mix)) {
      r -= n;
      if (r <= 0) return op;
    }
    return 'GetItem';
  };
  let done = 0;
  let stop = false;
  let counter = 0;
  const begin = performance.now();
  const loop = async () => {
    while (!stop) {
      await request(pick(), counter++);
      done += 1;
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  const ticker = (async () => {
    while (!stop) {
      await sleep(1_000);
      progress.update(
        Math.round(performance.now() - begin),
        durationMs,
        `ms of tight loop, ${done} requests`,
      );
    }
  })();
  await sleep(durationMs);
  stop = true;
  await Promise.all(loops);
  const elapsed = performance.now() - begin;
  await ticker;
  client.destroy();
  return { requestsPerSecond: (done / elapsed) * 1000, concurrency, mix };
}
