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
  /** The best rate measured, and the concurrency it was measured at. */
  readonly requestsPerSecond: number;
  readonly concurrency: number;
  /** Requests per second at each concurrency tried. */
  readonly byConcurrency: Readonly<Record<string, number>>;
  /** Size of the loop's items: the average of what the run put and got. */
  readonly itemBytes: number;
  readonly mix: Readonly<Record<string, number>>;
}

/** Item size when the run read and wrote none (the state item's budget). */
const DEFAULT_ITEM_BYTES = 1_000;
const WARM_UP_MS = 2_000;
const KEYS = 200;
const MIXED_OPS = ['GetItem', 'PutItem', 'DeleteItem', 'Query', 'TransactWriteItems', 'UpdateItem'];

/**
 * What DynamoDB Local serves at the bench's concurrency and above: tight loops of the same request types in the
 * same proportions (and transactions of the same size) as the measured run, on items of the size it used.
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
  // Items of the size the run wrote and read (its puts and gets), not bigger: DynamoDB Local's cost
  // per request grows with the item.
  const sized = ['PutItem', 'GetItem'].map((op) => observed.byOperation[op]);
  const bytes = sized.reduce((n, t) => n + (t?.itemBytes ?? 0), 0);
  const items = sized.reduce((n, t) => n + (t?.sizedItems ?? 0), 0);
  const itemBytes = items === 0 ? DEFAULT_ITEM_BYTES : Math.max(100, Math.round(bytes / items));
  const filler = { S: 'x'.repeat(itemBytes) };
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
  let counter = 0;
  /** Requests per second of `loops` tight loops over `ms`. */
  const rateAt = async (loops: number, ms: number): Promise<number> => {
    let done = 0;
    let stop = false;
    const loop = async () => {
      while (!stop) {
        await request(pick(), counter++);
        done += 1;
      }
    };
    const running = Array.from({ length: loops }, loop);
    const begin = performance.now();
    await sleep(ms);
    stop = true;
    await Promise.all(running);
    return (done / (performance.now() - begin)) * 1000;
  };
  // A warm-up first: DynamoDB Local's JIT has not seen these requests' shapes yet.
  await rateAt(concurrency, WARM_UP_MS);
  // The run keeps more requests in flight than it has executions (pollers, responders, the outbox's
  // lanes), and DynamoDB Local serves more at higher concurrency: what it allows is the best rate at
  // the run's concurrency or above.
  const levels = [concurrency, 2 * concurrency, 4 * concurrency];
  const rates: Record<string, number> = {};
  let best = { rate: 0, concurrency };
  for (const [i, level] of levels.entries()) {
    const rate = await rateAt(level, durationMs / levels.length);
    rates[level] = Math.round(rate);
    if (rate > best.rate) best = { rate, concurrency: level };
    progress.update(
      i + 1,
      levels.length,
      `levels of concurrency: ${level} → ${Math.round(rate)} req/s`,
    );
  }
  client.destroy();
  return {
    requestsPerSecond: best.rate,
    concurrency: best.concurrency,
    byConcurrency: rates,
    itemBytes,
    mix,
  };
}
