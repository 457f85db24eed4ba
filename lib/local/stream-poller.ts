import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AwsJsonError, type Json, JsonRpcClient } from '../aws-json/rpc-client.js';
import { SigV4Signer } from '../aws-json/sigv4.js';
import { sleep } from '../aws-json/sleep.js';
import type { StreamRecordLike } from '../operations/stream-records.js';
import { localCredentials } from './dynamodb-local.js';

/**
 * Records per read: the Streams API's most. A read of DynamoDB Local's stream costs its JVM about the
 * same whatever it returns, and slows as the stream grows: at 100 a read, a busy stack's outbox fell
 * behind by thousands of records. The handler decodes each record it keeps on its own turn of the
 * event loop, so a large batch holds no timer up.
 */
const RECORDS_PER_READ = 1_000;

export interface StreamPollerOptions {
  readonly endpoint: string;
  readonly region: string;
  readonly tableName: string;
  readonly dynamo: DynamoDBClient;
  /** Carries out a batch of records, in order (the same handler functions/stream.ts runs). */
  readonly handle: (records: readonly StreamRecordLike[]) => Promise<void>;
  /**
   * Wait between reads of the stream when nothing new came: it starts at `idleMs` (10) and doubles
   * up to `maxIdleMs` (250) while nothing comes; `wake()` ends it at once.
   */
  readonly idleMs?: number;
  readonly maxIdleMs?: number;
  /** Called after each read of a shard (how often it reads, for tests). */
  readonly onRead?: () => void;
}

export interface StreamPoller {
  /** Something was written to the table: read the stream now rather than after the idle wait. */
  wake(): void;
  /**
   * Resolves once every record written before the call has been handed over and handled: at the end
   * of the first full pass over the shards, begun after the call, that found nothing new.
   */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

interface ShardCursor {
  iterator: string | undefined;
  readonly shardId: string;
}

/**
 * Reads DynamoDB Local's stream of the table and hands each batch to the outbox handler: locally what
 * the DynamoDB Streams event source does for functions/stream.ts on AWS. Starts from the oldest record
 * still in the stream, so effects of changes made while the server was down are carried out on restart
 * (the handler is idempotent).
 */
export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const { Table } = await options.dynamo.send(
    new DescribeTableCommand({ TableName: options.tableName }),
  );
  const streamArn = Table?.LatestStreamArn;
  if (streamArn === undefined) throw new Error(`table ${options.tableName} has no stream`);
  // The Streams API's JSON as it comes (binary values in base64), the form Lambda delivers too.
  const client = new JsonRpcClient({
    endpoint: options.endpoint,
    signer: new SigV4Signer(options.region, 'dynamodb'),
    targetPrefix: 'DynamoDBStreams_20120810',
    credentials: () => Promise.resolve(localCredentials),
    connections: 2,
  });
  const call = async (operation: string, input: Json) =>
    (await client.call(operation, JSON.stringify(input))).body;
  const cursors = new Map<string, ShardCursor>();
  let stopped = false;
  const idleMs = options.idleMs ?? 10;
  const maxIdleMs = Math.max(idleMs, options.maxIdleMs ?? 250);
  // Every read of an idle stream costs DynamoDB Local CPU, and far more once its other streams are
  // long (a second table's reads at 100 a second kept its JVM at 60 % after a few thousand
  // executions in the first): an idle poller backs off, and the local stack wakes it on every commit.
  let idle = idleMs;
  let wakeUp: (() => void) | undefined;
  // Waiters for a pass that begins after they asked and finds nothing new.
  let waiting: (() => void)[] = [];
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  const discover = async () => {
    const { StreamDescription } = await call('DescribeStream', { StreamArn: streamArn });
    for (const shard of arrayOf(field(StreamDescription, 'Shards'))) {
      const shardId = field(shard, 'ShardId');
      if (typeof shardId !== 'string' || cursors.has(shardId)) continue;
      const { ShardIterator } = await call('GetShardIterator', {
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: 'TRIM_HORIZON',
      });
      cursors.set(shardId, { shardId, iterator: stringOf(ShardIterator) });
    }
  };

  const pollShard = async (cursor: ShardCursor): Promise<number> => {
    if (cursor.iterator === undefined) return 0;
    try {
      const result = await call('GetRecords', {
        ShardIterator: cursor.iterator,
        Limit: RECORDS_PER_READ,
      });
      // Records of this table's own items, as the Streams API describes them.
      const records = arrayOf(result.Records) as StreamRecordLike[];
      options.onRead?.();
      if (records.length > 0) await options.handle(records);
      cursor.iterator = stringOf(result.NextShardIterator);
      return records.length;
    } catch (error) {
      // An iterator past its time, or behind records the stream has trimmed (a busy table's shard
      // rolls over): start the shard again from its oldest record. The handler is idempotent.
      if (
        !(error instanceof AwsJsonError) ||
        !['ExpiredIteratorException', 'TrimmedDataAccessException'].includes(error.name)
      )
        throw error;
      cursors.delete(cursor.shardId); // rediscovered from the oldest record: the handler is idempotent
      return 0;
    }
  };

  await discover();
  const loop = (async () => {
    let lastDiscovery = Date.now();
    while (!stopped) {
      const passWaiters = waiting;
      waiting = [];
      let read = 0;
      let failed = false;
      try {
        for (const cursor of [...cursors.values()]) read += await pollShard(cursor);
        if (Date.now() - lastDiscovery > 1_000) {
          await discover();
          lastDiscovery = Date.now();
        }
      } catch (error) {
        failed = true;
        if (!stopped) console.error('stream poller: read failed, retrying', error);
        await sleep(500);
      }
      if (read > 0 || failed) {
        idle = idleMs;
        waiting.push(...passWaiters);
      } else if (!stopped) {
        for (const resolve of passWaiters) resolve();
        await nap(idle);
        idle = Math.min(maxIdleMs, idle * 2);
      }
    }
  })();

  return {
    wake: () => {
      idle = idleMs;
      wakeUp?.();
    },
    caughtUp: () =>
      new Promise<void>((resolve) => {
        if (stopped) return resolve();
        waiting.push(resolve);
        wakeUp?.();
      }),
    stop: async () => {
      stopped = true;
      wakeUp?.();
      await loop;
      for (const resolve of waiting) resolve();
      client.destroy();
    },
  };
}

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const stringOf = (value: unknown) => (typeof value === 'string' ? value : undefined);
