import {
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { keys } from '../adapters/dynamodb/keys.js';
import type { StreamRecordLike } from '../adapters/dynamodb/stream-records.js';
import { AwsJsonError, type Json, JsonRpcClient } from '../aws-json/rpc-client.js';
import { SigV4Signer } from '../aws-json/sigv4.js';
import { sleep } from '../aws-json/sleep.js';
import { localCredentials } from './dynamodb-local.js';

/**
 * Records per read: the Streams API's most. A read of DynamoDB Local's stream costs its JVM about the
 * same whatever it returns, and slows as the stream grows: at 100 a read, a busy local service's outbox fell
 * behind by thousands of records. The handler decodes each record it keeps on its own turn of the
 * event loop, so a large batch holds no timer up.
 */
const RECORDS_PER_READ = 1_000;

/**
 * How often, at most, a shard's checkpoint is saved while records come: a restart (or a crash) hands
 * over again at most what came since, as the Streams event source does after a failed batch.
 */
const CHECKPOINT_EVERY_MS = 1_000;

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
  /** Where it says that reads fail, and that they work again (stderr by default). */
  readonly log?: (line: string) => void;
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
  /** The sequence number of the last record handed over, and of the last one saved as checkpoint. */
  handled: string | undefined;
  saved: string | undefined;
}

/**
 * Reads DynamoDB Local's stream of the table and hands each batch to the outbox handler: locally what
 * the DynamoDB Streams event source does for functions/stream.ts on AWS. Each shard resumes after the
 * last record handled before a restart (a checkpoint item in the table, saved at most once a second and
 * at stop), so the effects of changes made while the server was down are carried out at once, not
 * after the whole retained stream (24 hours) has been read again; a shard without a checkpoint, or
 * whose checkpoint the stream has trimmed, starts from its oldest record. Records handed over twice
 * change nothing: the handler is idempotent.
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
  const log = options.log ?? ((line: string) => console.error(line));
  const cursors = new Map<string, ShardCursor>();
  // Shards whose checkpoint is behind what the stream still holds: read again from the oldest record.
  const fromOldest = new Set<string>();
  let stopped = false;
  const idleMs = options.idleMs ?? 10;
  const maxIdleMs = Math.max(idleMs, options.maxIdleMs ?? 250);
  // Every read of an idle stream costs DynamoDB Local CPU, and far more once its other streams are
  // long (a second table's reads at 100 a second kept its JVM at 60 % after a few thousand
  // executions in the first): an idle poller backs off, and the local service wakes it on every commit.
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

  const checkpointKey = (shardId: string) => {
    const { pk, sk } = keys.streamCheckpoint(shardId);
    return { pk: { S: pk }, sk: { S: sk } };
  };
  const loadCheckpoint = async (shardId: string): Promise<string | undefined> => {
    if (fromOldest.has(shardId)) return undefined;
    const { Item } = await options.dynamo.send(
      new GetItemCommand({
        TableName: options.tableName,
        Key: checkpointKey(shardId),
        ConsistentRead: true,
      }),
    );
    return Item?.sequenceNumber?.S;
  };
  const saveCheckpoints = async () => {
    for (const cursor of cursors.values()) {
      const { handled } = cursor;
      if (handled === undefined || handled === cursor.saved) continue;
      await options.dynamo.send(
        new PutItemCommand({
          TableName: options.tableName,
          Item: {
            ...checkpointKey(cursor.shardId),
            entity: { S: CHECKPOINT_ENTITY },
            sequenceNumber: { S: handled },
          },
        }),
      );
      cursor.saved = handled;
    }
  };
  /** An iterator after the shard's checkpoint, or at its oldest record. */
  const iteratorOf = async (shardId: string, after: string | undefined) => {
    if (after !== undefined) {
      try {
        const { ShardIterator } = await call('GetShardIterator', {
          StreamArn: streamArn,
          ShardId: shardId,
          ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
          SequenceNumber: after,
        });
        return stringOf(ShardIterator);
      } catch (error) {
        if (!isTrimmed(error)) throw error;
      }
    }
    const { ShardIterator } = await call('GetShardIterator', {
      StreamArn: streamArn,
      ShardId: shardId,
      ShardIteratorType: 'TRIM_HORIZON',
    });
    return stringOf(ShardIterator);
  };

  const discover = async () => {
    const { StreamDescription } = await call('DescribeStream', { StreamArn: streamArn });
    for (const shard of arrayOf(field(StreamDescription, 'Shards'))) {
      const shardId = field(shard, 'ShardId');
      if (typeof shardId !== 'string' || cursors.has(shardId)) continue;
      const saved = await loadCheckpoint(shardId);
      const iterator = await iteratorOf(shardId, saved);
      fromOldest.delete(shardId);
      cursors.set(shardId, { shardId, iterator, handled: saved, saved });
    }
  };

  const pollShard = async (cursor: ShardCursor): Promise<number> => {
    if (cursor.iterator === undefined) return 0;
    try {
      const result = await call('GetRecords', {
        ShardIterator: cursor.iterator,
        Limit: RECORDS_PER_READ,
      });
      // Records of this table's own items, as the Streams API describes them; the checkpoints this
      // poller writes are its own (handing them over would only make it write another).
      const read = arrayOf(result.Records) as StreamRecordLike[];
      const records = read.filter((r) => r.dynamodb?.NewImage?.entity?.S !== CHECKPOINT_ENTITY);
      options.onRead?.();
      if (records.length > 0) {
        await options.handle(records);
        cursor.handled = records.at(-1)?.dynamodb?.SequenceNumber ?? cursor.handled;
      }
      cursor.iterator = stringOf(result.NextShardIterator);
      return records.length;
    } catch (error) {
      // An iterator past its time (rediscovered after the checkpoint), or behind records the stream
      // has trimmed (a busy table's shard rolls over): read the shard again from its oldest record.
      const expired = error instanceof AwsJsonError && error.name === 'ExpiredIteratorException';
      if (!expired && !isTrimmed(error)) throw error;
      if (!expired) fromOldest.add(cursor.shardId);
      cursors.delete(cursor.shardId); // the handler is idempotent
      return 0;
    }
  };

  /**
   * After a failed read: iterators may have died with the connection (DynamoDB Local restarted under
   * the server): each shard is read again right after the last record handed over.
   */
  const recover = async () => {
    for (const cursor of cursors.values()) {
      cursor.iterator = await iteratorOf(cursor.shardId, cursor.handled);
    }
  };

  await discover();
  const loop = (async () => {
    let lastDiscovery = Date.now();
    let lastCheckpoint = Date.now();
    // One line when reads start failing and one when they work again, not one per retry.
    let failing = false;
    while (!stopped) {
      const passWaiters = waiting;
      waiting = [];
      let read = 0;
      let failed = false;
      try {
        if (failing) await recover();
        for (const cursor of [...cursors.values()]) read += await pollShard(cursor);
        if (Date.now() - lastDiscovery > 1_000) {
          await discover();
          lastDiscovery = Date.now();
        }
        if (Date.now() - lastCheckpoint > CHECKPOINT_EVERY_MS) {
          await saveCheckpoints();
          lastCheckpoint = Date.now();
        }
        if (failing) log('stream poller: the stream is read and handled again');
        failing = false;
      } catch (error) {
        failed = true;
        if (!failing && !stopped)
          log(
            `stream poller: reading or handling the stream failed (${describe(error)}); retrying until it works`,
          );
        failing = true;
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
      try {
        await saveCheckpoints();
      } catch (error) {
        console.error('stream poller: could not save where it stopped', error);
      } finally {
        client.destroy();
      }
    },
  };
}

/** An error in a line: its name and message (a stack trace per failed read says nothing more). */
const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);

/** The entity of the checkpoint items (never an outbox record). */
const CHECKPOINT_ENTITY = 'StreamCheckpoint';

/** The stream no longer holds the records asked for (older than its 24 hours, or its shard gone). */
const isTrimmed = (error: unknown) =>
  error instanceof AwsJsonError &&
  ['TrimmedDataAccessException', 'ResourceNotFoundException'].includes(error.name);

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const stringOf = (value: unknown) => (typeof value === 'string' ? value : undefined);
