import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { localCredentials } from './dynamodb-local.js';

/**
 * Records per read. Small batches keep each burst of decoding short, so the server's timers and
 * requests sharing this process are not held up behind a thousand records at once.
 */
const RECORDS_PER_READ = 100;

export interface StreamPollerOptions {
  readonly endpoint: string;
  readonly region: string;
  readonly tableName: string;
  readonly dynamo: DynamoDBClient;
  /** Carries out a batch of records, in order (the same handler functions/stream.ts runs). */
  readonly handle: (records: readonly _Record[]) => Promise<void>;
  /** Wait between reads of a shard with nothing new. */
  readonly idleMs?: number;
}

export interface StreamPoller {
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
  const client = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: options.region,
    credentials: localCredentials,
  });
  const cursors = new Map<string, ShardCursor>();
  let stopped = false;
  const idleMs = options.idleMs ?? 10;

  const discover = async () => {
    const { StreamDescription } = await client.send(
      new DescribeStreamCommand({ StreamArn: streamArn }),
    );
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId;
      if (shardId === undefined || cursors.has(shardId)) continue;
      const { ShardIterator } = await client.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      cursors.set(shardId, { shardId, iterator: ShardIterator });
    }
  };

  const pollShard = async (cursor: ShardCursor): Promise<number> => {
    if (cursor.iterator === undefined) return 0;
    try {
      const result = await client.send(
        new GetRecordsCommand({ ShardIterator: cursor.iterator, Limit: RECORDS_PER_READ }),
      );
      const records = result.Records ?? [];
      if (records.length > 0) await options.handle(records);
      cursor.iterator = result.NextShardIterator;
      return records.length;
    } catch (error) {
      // An iterator past its time, or behind records the stream has trimmed (a busy table's shard
      // rolls over): start the shard again from its oldest record. The handler is idempotent.
      if (
        !(error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException)
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
      let read = 0;
      try {
        for (const cursor of [...cursors.values()]) read += await pollShard(cursor);
        if (Date.now() - lastDiscovery > 1_000) {
          await discover();
          lastDiscovery = Date.now();
        }
      } catch (error) {
        if (!stopped) console.error('stream poller: read failed, retrying', error);
        await sleep(500);
      }
      if (read === 0 && !stopped) await sleep(idleMs);
    }
  })();

  return {
    stop: async () => {
      stopped = true;
      await loop;
      client.destroy();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
