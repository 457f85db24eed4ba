import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../lib/adapters/dynamodb/client.js';
import type { DynamoDocClient } from '../lib/adapters/dynamodb/doc-client.js';
import { localCredentials } from '../lib/local/dynamodb-local.js';
import { LOCAL_REGION } from '../lib/local/local-service.js';
import { ensureTable } from '../lib/local/table.js';
import type { MeterTotals } from './metering/dynamo-meter.js';
import type { Progress } from './progress.js';
import { sleep } from './stats.js';

export interface LevelRates {
  /** The best rate, and the concurrency it was measured at. */
  readonly requestsPerSecond: number;
  readonly concurrency: number;
  /** Requests per second at each concurrency tried. */
  readonly byConcurrency: Readonly<Record<string, number>>;
}

export interface StoreRate {
  /** What the store allows: the better of its best rates before and after the timed runs. */
  readonly requestsPerSecond: number;
  /** Size of the loop's items: the average of what the run put and got. */
  readonly itemBytes: number;
  readonly mix: Readonly<Record<string, number>>;
  /** Requests per second of each warm-up window. */
  readonly warmUp: readonly number[];
  /** The store's rate right before the timed runs and right after them; requestsPerSecond is the better. */
  readonly before: LevelRates;
  readonly after: LevelRates;
}

/** Item size when the run read and wrote none (the state item's budget). */
const DEFAULT_ITEM_BYTES = 1_000;
const WARM_UP_WINDOW_MS = 3_000;
const KEYS = 200;
const MIXED_OPS = [
  'GetItem',
  'PutItem',
  'DeleteItem',
  'Query',
  'TransactWriteItems',
  'UpdateItem',
  'BatchWriteItem',
];

/**
 * Tight loops of the same request types in the same proportions (and transactions of the same size) as
 * a measured run, on items of the size it used: what DynamoDB Local serves of that mix when nothing
 * else runs.
 */
export class StoreLoop {
  private counter = 0;

  private constructor(
    private readonly doc: DynamoDocClient,
    private readonly request: (op: string, i: number) => Promise<unknown>,
    private readonly mix: Readonly<Record<string, number>>,
    readonly itemBytes: number,
  ) {}

  static async open(endpoint: string, observed: MeterTotals): Promise<StoreLoop> {
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
    // Transactions and batches of as many items as the run's.
    const itemsPer = (op: string, fallback: number, most: number) => {
      const t = observed.byOperation[op];
      return Math.max(
        1,
        Math.min(most, Math.round((t?.itemWrites ?? fallback) / Math.max(t?.requests ?? 1, 1))),
      );
    };
    const itemsPerTx = itemsPer('TransactWriteItems', 3, 100);
    const itemsPerBatch = itemsPer('BatchWriteItem', 6, 25);
    // Items of the size the run wrote and read (its puts and gets), not bigger: DynamoDB Local's cost
    // per request grows with the item.
    const sized = ['PutItem', 'GetItem'].map((op) => observed.byOperation[op]);
    const bytes = sized.reduce((n, t) => n + (t?.itemBytes ?? 0), 0);
    const items = sized.reduce((n, t) => n + (t?.sizedItems ?? 0), 0);
    const itemBytes = items === 0 ? DEFAULT_ITEM_BYTES : Math.max(100, Math.round(bytes / items));
    const batch = observed.byOperation.BatchWriteItem;
    const batchItemBytes =
      batch === undefined || batch.sizedItems === 0
        ? itemBytes
        : Math.max(100, Math.round(batch.itemBytes / batch.sizedItems));
    const batchFiller = 'x'.repeat(batchItemBytes);
    // The service's own DynamoDB client, so the loop costs this process what the service's requests do.
    const doc = createDocumentClient({
      endpoint,
      region: LOCAL_REGION,
      credentials: localCredentials,
    });
    const filler = 'x'.repeat(itemBytes);
    const key = (i: number) => ({ pk: `P#${i % KEYS}`, sk: `S#${i % 7}` });
    for (let i = 0; i < KEYS; i++)
      await doc.put({ TableName: table, Item: { ...key(i), v: filler } });
    const request = (op: string, i: number): Promise<unknown> => {
      switch (op) {
        case 'GetItem':
          return doc.get({ TableName: table, Key: key(i), ConsistentRead: true });
        case 'PutItem':
          return doc.put({ TableName: table, Item: { ...key(i), v: filler } });
        case 'DeleteItem':
          return doc.delete({ TableName: table, Key: key(i + 3) });
        case 'UpdateItem':
          return doc.update({
            TableName: table,
            Key: key(i),
            UpdateExpression: 'SET n = :n',
            ExpressionAttributeValues: { ':n': i },
          });
        case 'Query':
          return doc.query({
            TableName: table,
            KeyConditionExpression: 'pk = :p',
            ExpressionAttributeValues: { ':p': key(i).pk },
            Limit: 2,
            ConsistentRead: true,
          });
        case 'BatchWriteItem':
          // Distinct items per batch, as a batch may name an item only once.
          return doc.batchWrite({
            RequestItems: {
              [table]: Array.from({ length: itemsPerBatch }, (_, j) => ({
                PutRequest: { Item: { pk: `B#${i}`, sk: `S#${j}`, v: batchFiller } },
              })),
            },
          });
        default:
          // Distinct items per transaction: one item may appear only once in a transaction.
          return doc.transactWrite({
            TransactItems: Array.from({ length: itemsPerTx }, (_, j) => ({
              Put: { TableName: table, Item: { pk: `T#${i}`, sk: `S#${j}`, v: filler } },
            })),
          });
      }
    };
    client.destroy();
    return new StoreLoop(doc, request, mix, itemBytes);
  }

  get requestMix(): Readonly<Record<string, number>> {
    return this.mix;
  }

  /** Requests per second of `loops` tight loops over `ms`. */
  async rateAt(loops: number, ms: number): Promise<number> {
    const total = Object.values(this.mix).reduce((a, b) => a + b, 0);
    const pick = () => {
      let r = Math.random() * total;
      for (const [op, n] of Object.entries(this.mix)) {
        r -= n;
        if (r <= 0) return op;
      }
      return 'GetItem';
    };
    let done = 0;
    let stop = false;
    const loop = async () => {
      while (!stop) {
        await this.request(pick(), this.counter++);
        done += 1;
      }
    };
    const running = Array.from({ length: loops }, loop);
    const begin = performance.now();
    await sleep(ms);
    stop = true;
    await Promise.all(running);
    return (done / (performance.now() - begin)) * 1000;
  }

  /**
   * Loads DynamoDB Local for `ms`, in windows: its JVM compiles its hot paths over the first minute or
   * so of load (the same loop served 250 requests/s in its first ten seconds and about 900 after a
   * minute), and a reference taken on a cold store flatters every figure compared with it.
   */
  async warmUp(loops: number, ms: number, progress: Progress): Promise<number[]> {
    const rates: number[] = [];
    const windows = Math.max(1, Math.round(ms / WARM_UP_WINDOW_MS));
    for (let i = 0; i < windows; i++) {
      const rate = await this.rateAt(loops, WARM_UP_WINDOW_MS);
      rates.push(Math.round(rate));
      progress.update(i + 1, windows, `warming DynamoDB Local up: ${Math.round(rate)} req/s`);
    }
    return rates;
  }

  /**
   * The best rate at the run's concurrency and above: the run keeps more requests in flight than it
   * has executions (pollers, responders, the outbox's lanes), and DynamoDB Local serves more at higher
   * concurrency.
   */
  async levels(concurrency: number, ms: number, progress: Progress): Promise<LevelRates> {
    const levels = [concurrency, 2 * concurrency, 4 * concurrency];
    const rates: Record<string, number> = {};
    let best = { rate: 0, concurrency };
    for (const [i, level] of levels.entries()) {
      const rate = await this.rateAt(level, ms / levels.length);
      rates[level] = Math.round(rate);
      if (rate > best.rate) best = { rate, concurrency: level };
      progress.update(
        i + 1,
        levels.length,
        `levels of concurrency: ${level} → ${Math.round(rate)} req/s`,
      );
    }
    return { requestsPerSecond: best.rate, concurrency: best.concurrency, byConcurrency: rates };
  }

  close(): void {
    this.doc.destroy();
  }
}
