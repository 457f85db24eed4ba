import { AwsJsonError, type Json, JsonRpcClient } from '../../aws-json/rpc-client.js';
import type { Credentials } from '../../aws-json/sigv4.js';
import { SigV4Signer } from '../../aws-json/sigv4.js';
import type { StreamRecordLike } from './stream-records.js';

/** A range of a stream shard, from one sequence number to another, both included. */
export interface ShardRangeRef {
  readonly streamArn: string;
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
}

export type ShardRangeRead =
  | { readonly status: 'read'; readonly records: readonly StreamRecordLike[] }
  | { readonly status: 'aged-out'; readonly reason: string };

/** Reads of a range that found nothing new before it ends: the shard has no more for now. */
const EMPTY_READS_AT_MOST = 5;

/**
 * Reads ranges of a table's stream with the DynamoDB Streams API (GetShardIterator at the range's
 * first sequence number, then GetRecords), in its own JSON: binary values in base64, as Lambda
 * delivers them to the stream function.
 */
export class DynamoStreamShards {
  readonly #client: JsonRpcClient;

  constructor(options: {
    readonly endpoint: string;
    readonly region: string;
    readonly credentials: () => Promise<Credentials>;
  }) {
    this.#client = new JsonRpcClient({
      endpoint: options.endpoint,
      signer: new SigV4Signer(options.region, 'dynamodb'),
      targetPrefix: 'DynamoDBStreams_20120810',
      credentials: options.credentials,
      connections: 1,
    });
  }

  /** The range's records, or 'aged-out' when the stream no longer holds all of them. */
  async read(range: ShardRangeRef): Promise<ShardRangeRead> {
    const end = BigInt(range.endSequenceNumber);
    const records: StreamRecordLike[] = [];
    try {
      let iterator = await this.#iterator(range);
      for (let empty = 0; iterator !== undefined && empty < EMPTY_READS_AT_MOST; ) {
        const page = await this.#call('GetRecords', { ShardIterator: iterator, Limit: 1000 });
        const read = Array.isArray(page.Records) ? (page.Records as StreamRecordLike[]) : [];
        for (const record of read) {
          if (BigInt(record.dynamodb?.SequenceNumber ?? '0') > end)
            return { status: 'read', records };
          records.push(record);
        }
        if (records.at(-1)?.dynamodb?.SequenceNumber === range.endSequenceNumber)
          return { status: 'read', records };
        empty = read.length === 0 ? empty + 1 : 0;
        iterator = typeof page.NextShardIterator === 'string' ? page.NextShardIterator : undefined;
      }
    } catch (error) {
      if (isGone(error)) return { status: 'aged-out', reason: (error as Error).message };
      throw error;
    }
    return {
      status: 'aged-out',
      reason: `the shard ends before sequence number ${range.endSequenceNumber}`,
    };
  }

  destroy(): void {
    this.#client.destroy();
  }

  async #iterator(range: ShardRangeRef): Promise<string | undefined> {
    const answer = await this.#call('GetShardIterator', {
      StreamArn: range.streamArn,
      ShardId: range.shardId,
      ShardIteratorType: 'AT_SEQUENCE_NUMBER',
      SequenceNumber: range.startSequenceNumber,
    });
    return typeof answer.ShardIterator === 'string' ? answer.ShardIterator : undefined;
  }

  async #call(operation: string, input: Json): Promise<Json> {
    return (await this.#client.call(operation, JSON.stringify(input))).body;
  }
}

/** The stream no longer holds the records (older than 24 hours, or the shard or stream gone). */
const isGone = (error: unknown) =>
  error instanceof AwsJsonError &&
  ['TrimmedDataAccessException', 'ResourceNotFoundException'].includes(error.name);
