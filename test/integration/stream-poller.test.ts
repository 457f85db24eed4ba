/**
 * The local stream poller against DynamoDB Local: it hands over every record of the table in order,
 * in the Streams API's JSON; idle, it reads less and less often (every read of an idle stream costs
 * DynamoDB Local CPU), and a wake reads at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamRecordLike } from '../../lib/adapters/dynamodb/stream-records.js';
import { LOCAL_REGION } from '../../lib/local/local-service.js';
import { type StreamPoller, startStreamPoller } from '../../lib/local/stream-poller.js';
import { dynamoEndpoint, freshTable } from '../support/local.js';

let table: Awaited<ReturnType<typeof freshTable>>;
let poller: StreamPoller;
const seen: { record: StreamRecordLike; at: number }[] = [];
let reads = 0;

beforeAll(async () => {
  table = await freshTable('poller');
  poller = await startStreamPoller({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    tableName: table.tableName,
    dynamo: table.client,
    handle: async (records) => {
      for (const record of records) seen.push({ record, at: Date.now() });
    },
    idleMs: 10,
    maxIdleMs: 1_500,
    onRead: () => {
      reads += 1;
    },
  });
});
afterAll(async () => {
  await poller.stop();
  table.doc.destroy();
  table.client.destroy();
});

const put = (pk: string, payload: Uint8Array | string) =>
  table.doc.put({ TableName: table.tableName, Item: { pk, sk: 'X', payload } });

const arrivalOf = async (pk: string, timeoutMs = 5_000) => {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const found = seen.find((s) => s.record.dynamodb?.Keys?.pk?.S === pk);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no record of ${pk}`);
};

describe('the local stream poller', () => {
  it('hands over every record in order, binary values as the Streams API gives them (base64)', async () => {
    await put('p-1', Buffer.from('hi'));
    await put('p-2', 'text');
    const first = await arrivalOf('p-1');
    await arrivalOf('p-2');
    const order = seen.map((s) => s.record.dynamodb?.Keys?.pk?.S);
    expect(order.indexOf('p-1')).toBeLessThan(order.indexOf('p-2'));
    expect(first.record.eventName).toBe('INSERT');
    expect(first.record.dynamodb?.NewImage?.payload).toEqual({ B: 'aGk=' });
  });

  it('says when every record written before has been handled', async () => {
    const pks = Array.from({ length: 30 }, (_, i) => `c-${i}`);
    await Promise.all(pks.map((pk) => put(pk, 'x')));
    await poller.caughtUp();
    const handled = new Set(seen.map((s) => s.record.dynamodb?.Keys?.pk?.S));
    expect(pks.filter((pk) => !handled.has(pk))).toEqual([]);
  });

  it('reads an idle stream less and less often, and at once when woken', async () => {
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // idle: the wait has grown to its cap
    const idleReads = reads;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // At most one read per 1.5 s once idle (a 10 ms wait would have read ~300 times).
    expect(reads - idleReads).toBeLessThanOrEqual(3);

    const written = Date.now();
    await put('p-woken', 'now');
    poller.wake();
    const woken = await arrivalOf('p-woken');
    expect(woken.at - written).toBeLessThan(500);
  });
});

describe('the local stream poller across restarts', () => {
  /** A poller of `tableName` noting the pks it is handed. */
  async function pollerOf(t: Awaited<ReturnType<typeof freshTable>>, pks: string[]) {
    return startStreamPoller({
      endpoint: dynamoEndpoint(),
      region: LOCAL_REGION,
      tableName: t.tableName,
      dynamo: t.client,
      handle: async (records) => {
        for (const r of records) pks.push(r.dynamodb?.Keys?.pk?.S ?? '?');
      },
    });
  }

  it('resumes after the last record handled before it stopped, and starts a new table from its oldest', async () => {
    const t = await freshTable('poller-restart');
    try {
      const write = (pk: string) =>
        t.doc.put({ TableName: t.tableName, Item: { pk, sk: 'X', payload: 'x' } });
      await write('before-first-start');
      const first: string[] = [];
      const one = await pollerOf(t, first);
      await write('while-first-runs');
      await one.caughtUp();
      await one.stop();
      expect(first).toEqual(['before-first-start', 'while-first-runs']);

      await write('while-stopped');
      const second: string[] = [];
      const two = await pollerOf(t, second);
      await write('after-restart');
      await two.caughtUp();
      await two.stop();
      // Neither the records handled before the stop, nor the poller's own checkpoints.
      expect(second).toEqual(['while-stopped', 'after-restart']);
    } finally {
      t.doc.destroy();
      t.client.destroy();
    }
  });
});
