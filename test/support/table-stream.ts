/**
 * A table's DynamoDB stream read whole from DynamoDB Local, every shard from its start, parents first.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { sleep } from './decider.js';

/** Where a table's stream is read: the table's client and name, and a streams client. */
export interface TableStream {
  readonly dynamo: DynamoDBClient;
  readonly streams: DynamoDBStreamsClient;
  readonly tableName: string;
}

/** The table's whole stream, once the local poller has carried out everything and nothing moves. */
export async function settledStream(table: TableStream): Promise<_Record[]> {
  let last = -1;
  for (let round = 0; round < 40; round++) {
    const records = await readStream(table);
    if (records.length === last) return records;
    last = records.length;
    await sleep(750);
  }
  throw new Error('the stream kept growing');
}

/** Every record of the table's stream, as it stands. */
export async function readStream(table: TableStream): Promise<_Record[]> {
  const { dynamo, streams, tableName } = table;
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (streamArn === undefined) throw new Error('the table has no stream');
  const shards: Shard[] = [];
  let exclusiveStartShardId: string | undefined;
  do {
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({
        StreamArn: streamArn,
        ...(exclusiveStartShardId === undefined
          ? {}
          : { ExclusiveStartShardId: exclusiveStartShardId }),
      }),
    );
    shards.push(...(StreamDescription?.Shards ?? []));
    exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
  } while (exclusiveStartShardId !== undefined);

  const records: _Record[] = [];
  for (const shard of parentsFirst(shards)) {
    let { ShardIterator: iterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shard.ShardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    while (iterator !== undefined) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      const got = page.Records ?? [];
      records.push(...got);
      if (got.length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return records;
}

/** A shard's records come before its children's. */
function parentsFirst(shards: readonly Shard[]): Shard[] {
  const ids = new Set(shards.map((s) => s.ShardId));
  const ordered: Shard[] = [];
  const placed = new Set<string | undefined>();
  let rest = [...shards];
  while (rest.length > 0) {
    const ready = rest.filter(
      (s) =>
        s.ParentShardId === undefined || !ids.has(s.ParentShardId) || placed.has(s.ParentShardId),
    );
    if (ready.length === 0) throw new Error('shard parents form a cycle');
    for (const s of ready) {
      ordered.push(s);
      placed.add(s.ShardId);
    }
    rest = rest.filter((s) => !ready.includes(s));
  }
  return ordered;
}
