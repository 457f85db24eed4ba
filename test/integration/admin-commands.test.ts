/**
 * The admin CLI's commands over DynamoDB Local, called as the CLI calls them (execute): dead letters
 * listed, shown, replayed through the outbox and discarded; the stream's on-failure pointers redriven
 * from the stream; a run shown and its alarm armed again. Each with --dry-run, which changes nothing.
 */

import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStreamShards } from '../../lib/adapters/dynamodb/stream-shards.js';
import type { AdminCommand } from '../../lib/admin/args.js';
import { execute } from '../../lib/admin/cli.js';
import { type AdminConnection, connect } from '../../lib/admin/connect.js';
import type { PointerMessage, PointerQueue } from '../../lib/admin/stream-redrive.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION } from '../../lib/local/local-service.js';
import { rearmRun } from '../../lib/operations/reconcile.js';
import { TransientServiceError } from '../../lib/ports/transient-failure.js';
import {
  dynamoClient,
  dynamoEndpoint,
  registerDomain,
  registerWorkflowType,
  startTestServer,
  tableItems,
} from '../support/local.js';

const DOMAIN = 'admin';
let server: Awaited<ReturnType<typeof startTestServer>>;
let runId: string;
/** The stream record of the run's start, in the Streams API's JSON (as a dead letter keeps it). */
let startRecord: { sequenceNumber: string; shardId: string; streamArn: string; json: string };

beforeAll(async () => {
  server = await startTestServer();
  await registerDomain(server.swf, DOMAIN);
  await registerWorkflowType(server.swf, DOMAIN, { name: 'Order', version: '1' });
  const started = await server.swf.send(
    new StartWorkflowExecutionCommand({
      domain: DOMAIN,
      workflowId: 'order-1',
      workflowType: { name: 'Order', version: '1' },
    }),
  );
  runId = started.runId ?? '';
  await server.service.streamCaughtUp();
  startRecord = await firstRecordOf(`RUN|${runId}`);
});
afterAll(() => server.close());

const noDeployedOutbox = () => Promise.reject(new Error('not deployed'));

/** A connection to the test server's table, as `--endpoint URL --table NAME` makes it. */
function localConnection(): AdminConnection {
  return connect(
    { endpoint: dynamoEndpoint(), tableName: server.service.tableName, region: LOCAL_REGION },
    noDeployedOutbox,
  );
}

async function run(command: AdminCommand, dryRun = false, connection = localConnection()) {
  try {
    return { report: await execute({ command, dryRun }, connection, rearmRun), connection };
  } finally {
    connection.close();
  }
}

const snapshot = async () => {
  const client = dynamoClient();
  try {
    return await tableItems(client, server.service.tableName);
  } finally {
    client.destroy();
  }
};

/** The first record of the table's stream whose key is `pk`. */
async function firstRecordOf(pk: string) {
  const streams = new DynamoDBStreamsClient({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
  const client = dynamoClient();
  try {
    const { Table } = await client.send(
      new DescribeTableCommand({ TableName: server.service.tableName }),
    );
    const streamArn = Table?.LatestStreamArn ?? '';
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn }),
    );
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId ?? '';
      let { ShardIterator: iterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      for (let pages = 0; iterator !== undefined && pages < 20; pages++) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        const found = page.Records?.find((r) => r.dynamodb?.Keys?.pk?.S === pk);
        const sequenceNumber = found?.dynamodb?.SequenceNumber;
        if (sequenceNumber !== undefined) {
          const json = await recordJson({ streamArn, shardId, sequenceNumber });
          return { streamArn, shardId, sequenceNumber, json };
        }
        if ((page.Records ?? []).length === 0) break;
        iterator = page.NextShardIterator;
      }
    }
    throw new Error(`no stream record of ${pk}`);
  } finally {
    streams.destroy();
    client.destroy();
  }
}

/** One record as the Streams API's JSON gives it (binary values in base64, as Lambda's). */
async function recordJson(at: { streamArn: string; shardId: string; sequenceNumber: string }) {
  const shards = new DynamoStreamShards({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: () => Promise.resolve(localCredentials),
  });
  try {
    const range = await shards.read({
      ...at,
      startSequenceNumber: at.sequenceNumber,
      endSequenceNumber: at.sequenceNumber,
    });
    if (range.status !== 'read' || range.records.length !== 1) throw new Error('not read');
    return JSON.stringify(range.records[0]);
  } finally {
    shards.destroy();
  }
}

const putLetter = (id: string, record: string, error = 'Error: effect failed') =>
  server.service.outbox.deadLetters.putDeadLetter(id, record, error);

const lettersNamed = async (id: string) =>
  (await server.service.outbox.deadLetters.listDeadLetters()).filter((l) => l.id === id);

describe('dead-letters', () => {
  it('lists and shows the letters, and a missing one is not found (exit 1)', async () => {
    await putLetter('letter-show', startRecord.json);
    const listed = await run({ kind: 'dead-letters list' });
    expect(listed.report.exitCode).toBe(0);
    expect(listed.report.json).toContainEqual(
      expect.objectContaining({ id: 'letter-show', error: 'Error: effect failed' }),
    );
    expect(listed.report.text.join('\n')).toContain('letter-show  Error: effect failed');
    const shown = await run({ kind: 'dead-letters show', id: 'letter-show' });
    expect(shown.report.exitCode).toBe(0);
    const [letter] = shown.report.json as { record: { dynamodb: { Keys: unknown } } }[];
    expect(letter?.record.dynamodb.Keys).toEqual({ pk: { S: `RUN|${runId}` }, sk: { S: 'STATE' } });
    const missing = await run({ kind: 'dead-letters show', id: 'no-such-letter' });
    expect(missing.report.exitCode).toBe(1);
    expect(missing.report.problems).toEqual(['no dead letter no-such-letter']);
  });

  it('replays a letter through the outbox, then removes it; again, it is not found', async () => {
    await putLetter('letter-replay', startRecord.json);
    await putLetter('letter-replay', startRecord.json); // the same record, given up on twice
    const before = await snapshot();
    const dry = await run({ kind: 'dead-letters replay', id: 'letter-replay' }, true);
    expect(dry.report.json).toEqual({ outcome: 'would-replay', id: 'letter-replay', runId });
    expect(dry.connection.handedToLocalService).toEqual([]);
    expect(await snapshot()).toEqual(before);

    const replayed = await run({ kind: 'dead-letters replay', id: 'letter-replay' });
    expect(replayed.report.exitCode).toBe(0);
    expect(replayed.report.json).toMatchObject({ outcome: 'replayed', runId, letters: 2 });
    // The start's effect: its deadline (the decision task's schedule-to-start or the run's own)
    // armed, handed to npm start's scheduler.
    const { state } = (await server.service.outbox.runs.loadRun(runId)) ?? {};
    expect(replayed.connection.handedToLocalService).toContainEqual(
      expect.objectContaining({ runId, key: state?.alarm?.key }),
    );
    expect(await lettersNamed('letter-replay')).toEqual([]);
    const again = await run({ kind: 'dead-letters replay', id: 'letter-replay' });
    expect(again.report.exitCode).toBe(1);
  });

  it('keeps a letter whose effects fail again, with the error, and writes no new one', async () => {
    await putLetter('letter-fails', startRecord.json);
    const failing = localConnection();
    const outbox = await failing.outbox();
    const broken = {
      ...failing,
      outbox: async () => ({
        ...outbox,
        scheduler: {
          arm: () => Promise.reject(new Error('scheduler refused')),
          disarm: async () => {},
        },
      }),
    };
    const result = await run({ kind: 'dead-letters replay', id: 'letter-fails' }, false, {
      ...broken,
      deadLetters: { ...broken.deadLetters, outbox: broken.outbox },
    });
    expect(result.report.exitCode).toBe(1);
    expect(result.report.problems.join()).toContain('scheduler refused');
    expect(await lettersNamed('letter-fails')).toHaveLength(1);
  });

  it('does not replay a letter that keeps only the start of its record', async () => {
    const cut = `${startRecord.json.slice(0, 100)}... (250000 characters)`;
    await putLetter('letter-cut', cut);
    const result = await run({ kind: 'dead-letters replay', id: 'letter-cut' });
    expect(result.report.exitCode).toBe(1);
    expect(result.report.problems.join()).toContain('keeps only the start of its record');
    expect(await lettersNamed('letter-cut')).toHaveLength(1);
  });

  it('discards a letter; a dry run and a second discard change nothing', async () => {
    await putLetter('letter-discard', startRecord.json);
    const before = await snapshot();
    const dry = await run({ kind: 'dead-letters discard', id: 'letter-discard' }, true);
    expect(dry.report.json).toEqual({ outcome: 'would-discard', id: 'letter-discard', letters: 1 });
    expect(await snapshot()).toEqual(before);
    const discarded = await run({ kind: 'dead-letters discard', id: 'letter-discard' });
    expect(discarded.report.json).toEqual({
      outcome: 'discarded',
      id: 'letter-discard',
      letters: 1,
    });
    expect(await lettersNamed('letter-discard')).toEqual([]);
    const after = await snapshot();
    const again = await run({ kind: 'dead-letters discard', id: 'letter-discard' });
    expect(again.report.exitCode).toBe(1);
    expect(await snapshot()).toEqual(after);
  });
});

describe('run', () => {
  it('shows a run by its id and by its workflowId', async () => {
    const byId = await run({ kind: 'run show', run: { runId } });
    expect(byId.report.exitCode).toBe(0);
    const shown = byId.report.json as { state: { execution: unknown }; version: number };
    expect(shown.state.execution).toEqual({ workflowId: 'order-1', runId });
    expect(shown.version).toBeGreaterThan(0);
    const byWorkflow = await run({
      kind: 'run show',
      run: { domain: DOMAIN, workflowId: 'order-1' },
    });
    expect(byWorkflow.report.json).toEqual(byId.report.json);
    const none = await run({ kind: 'run show', run: { domain: DOMAIN, workflowId: 'nope' } });
    expect(none.report.exitCode).toBe(1);
  });

  it("re-arms a run's alarm; a dry run arms nothing; an unknown run is not found", async () => {
    const { state } = (await server.service.outbox.runs.loadRun(runId)) ?? {};
    const fire = { runId, key: state?.alarm?.key, at: state?.alarm?.at };
    const dry = await run({ kind: 'run rearm', runId }, true);
    expect(dry.report.json).toEqual({ outcome: 'would-arm', runId, fire });
    expect(dry.connection.handedToLocalService).toEqual([]);
    const armed = await run({ kind: 'run rearm', runId });
    expect(armed.report.json).toMatchObject({ outcome: 'armed', runId, fire });
    expect(armed.connection.handedToLocalService).toEqual([fire]);
    const unknown = await run({ kind: 'run rearm', runId: 'no-such-run' });
    expect(unknown.report.exitCode).toBe(1);
  });
});

/** The on-failure queue, in memory: what was received, deleted and made visible again. */
class FakePointerQueue implements PointerQueue {
  readonly removed: string[] = [];
  readonly released: string[] = [];
  constructor(readonly messages: PointerMessage[]) {}
  async receive() {
    return this.messages.filter((m) => !this.removed.includes(m.messageId)).slice(0, 10);
  }
  async remove(message: PointerMessage) {
    this.removed.push(message.messageId);
  }
  async release(message: PointerMessage) {
    this.released.push(message.messageId);
  }
}

const pointerMessage = (messageId: string, batch: Record<string, unknown>): PointerMessage => ({
  messageId,
  receiptHandle: `receipt-${messageId}`,
  body: JSON.stringify({
    requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 10 },
    version: '1.0',
    DDBStreamBatchInfo: { batchSize: 1, ...batch },
  }),
});

describe('stream redrive', () => {
  const redriveWith = (queue: PointerQueue, outboxOverride?: AdminConnection['outbox']) => {
    const connection = localConnection();
    const shards = new DynamoStreamShards({
      endpoint: dynamoEndpoint(),
      region: LOCAL_REGION,
      credentials: () => Promise.resolve(localCredentials),
    });
    const outbox = outboxOverride ?? connection.outbox;
    return {
      ...connection,
      outbox,
      redrive: () => ({ queue, shards, outbox }),
      close: () => {
        shards.destroy();
        connection.close();
      },
    };
  };
  const batch = () => ({
    streamArn: startRecord.streamArn,
    shardId: startRecord.shardId,
    startSequenceNumber: startRecord.sequenceNumber,
    endSequenceNumber: startRecord.sequenceNumber,
  });
  const redrive: AdminCommand = { kind: 'stream redrive', queueUrl: 'https://sqs.example/q' };

  it('re-runs a batch still in the stream and deletes its pointer; a dry run only reads', async () => {
    const queue = new FakePointerQueue([pointerMessage('m-1', batch())]);
    const before = await snapshot();
    const dry = await run(redrive, true, redriveWith(queue));
    expect(dry.report.json).toEqual([
      expect.objectContaining({ outcome: 'would-redrive', records: 1 }),
    ]);
    expect(dry.connection.handedToLocalService).toEqual([]);
    expect(queue.removed).toEqual([]);
    expect(queue.released).toEqual(['m-1']);
    expect(await snapshot()).toEqual(before);

    const done = await run(redrive, false, redriveWith(queue));
    expect(done.report.exitCode).toBe(0);
    expect(done.report.json).toEqual([
      expect.objectContaining({ outcome: 'redriven', records: 1 }),
    ]);
    expect(done.connection.handedToLocalService).toContainEqual(expect.objectContaining({ runId }));
    expect(queue.removed).toEqual(['m-1']);
    expect(queue.released).toEqual(['m-1']); // by the dry run only
  });

  it('reports a pointer whose records aged out, or that cannot be read, and keeps it', async () => {
    const queue = new FakePointerQueue([
      pointerMessage('m-old', { ...batch(), shardId: 'shardId-00000000000000000000-gone' }),
      { messageId: 'm-junk', receiptHandle: 'r', body: 'not json' },
    ]);
    const result = await run(redrive, false, redriveWith(queue));
    expect(result.report.exitCode).toBe(1);
    expect(result.report.json).toEqual([
      expect.objectContaining({ messageId: 'm-old', outcome: 'aged-out' }),
      expect.objectContaining({ messageId: 'm-junk', outcome: 'unreadable' }),
    ]);
    expect(queue.removed).toEqual([]);
    expect(queue.released).toEqual(['m-old', 'm-junk']);
  });

  it('keeps a pointer whose batch fails transiently again', async () => {
    const queue = new FakePointerQueue([pointerMessage('m-busy', batch())]);
    const outbox = await localConnection().outbox();
    const throttled = async () => ({
      ...outbox,
      scheduler: {
        arm: () => Promise.reject(new TransientServiceError(true, new Error('slow down'))),
        disarm: async () => {},
      },
    });
    const result = await run(redrive, false, redriveWith(queue, throttled));
    expect(result.report.json).toEqual([expect.objectContaining({ outcome: 'failed' })]);
    expect(queue.removed).toEqual([]);
  });
});
