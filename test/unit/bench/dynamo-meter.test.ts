import { describe, expect, it } from 'vitest';
import { DynamoMeter } from '../../../bench/metering/dynamo-meter.js';

const keys = {
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [{ indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
};
const T = 'table';
/** An item of exactly `bytes`: pk 'p' + sk 's' (6 bytes) plus a filler attribute `v`. */
const item = (bytes: number, extra: Record<string, unknown> = {}, sk = 's') => ({
  pk: { S: 'p' },
  sk: { S: sk },
  ...extra,
  v: { S: 'x'.repeat(bytes - 6 - 1 - sizeOf(extra)) },
});
const sizeOf = (extra: Record<string, unknown>) =>
  Object.entries(extra).reduce(
    (n, [k, v]) => n + k.length + String((v as { S: string }).S).length,
    0,
  );

describe('DynamoMeter', () => {
  it('charges a 1.5 KB transactional put 4 WRU', () => {
    const meter = new DynamoMeter(keys);
    const charge = meter.record(
      'TransactWriteItems',
      { TransactItems: [{ Put: { TableName: T, Item: item(1536) } }] },
      {},
    );
    expect(charge.writeUnits).toBe(4);
  });

  it('sums the sizes of the items puts wrote and gets found, not of failed puts or misses', () => {
    const meter = new DynamoMeter(keys);
    meter.record('PutItem', { TableName: T, Item: item(300) }, {});
    meter.record('PutItem', { TableName: T, Item: item(900, {}, 'other') }, undefined);
    meter.record('GetItem', { TableName: T, Key: {} }, { Item: item(700) });
    meter.record('GetItem', { TableName: T, Key: {} }, {});
    const { byOperation } = meter.snapshot();
    expect(byOperation.PutItem).toMatchObject({ itemBytes: 300, sizedItems: 1 });
    expect(byOperation.GetItem).toMatchObject({ itemBytes: 700, sizedItems: 1 });
  });

  it('sums the sizes of the items a batch put, not of the keys it deleted', () => {
    const meter = new DynamoMeter(keys);
    meter.record(
      'BatchWriteItem',
      {
        RequestItems: {
          [T]: [
            { PutRequest: { Item: item(200, {}, 'a') } },
            { PutRequest: { Item: item(400, {}, 'b') } },
            { DeleteRequest: { Key: item(100, {}, 'c') } },
          ],
        },
      },
      {},
    );
    expect(meter.snapshot().byOperation.BatchWriteItem).toMatchObject({
      itemBytes: 600,
      sizedItems: 2,
    });
  });

  it('counts a request without charging it when asked only to count', () => {
    const meter = new DynamoMeter(keys);
    meter.record('PutItem', { TableName: T, Item: item(300) }, {});
    meter.count('PutItem');
    meter.count('Query');
    const { byOperation, requests, writeUnits } = meter.snapshot();
    expect(byOperation.PutItem).toMatchObject({ requests: 2, writeUnits: 1, sizedItems: 1 });
    expect(byOperation.Query).toMatchObject({ requests: 1, readUnits: 0 });
    expect({ requests, writeUnits }).toEqual({ requests: 3, writeUnits: 1 });
  });

  it('charges a 5 KB eventually consistent GetItem 1 RRU and a strongly consistent one 2', () => {
    const meter = new DynamoMeter(keys);
    const got = { Item: item(5 * 1024) };
    expect(meter.record('GetItem', { TableName: T, Key: {} }, got).readUnits).toBe(1);
    expect(
      meter.record('GetItem', { TableName: T, Key: {}, ConsistentRead: true }, got).readUnits,
    ).toBe(2);
  });

  it('charges a strongly consistent Query of 3 items of 1.5 KB 2 RRU', () => {
    const meter = new DynamoMeter(keys);
    const Items = ['a', 'b', 'c'].map((sk) => item(1536, {}, sk));
    const charge = meter.record('Query', { TableName: T, ConsistentRead: true }, { Items });
    expect(charge.readUnits).toBe(2);
  });

  it('charges a put on the larger of the old and the new item', () => {
    const meter = new DynamoMeter(keys);
    meter.record('PutItem', { TableName: T, Item: item(3000) }, {});
    expect(meter.record('PutItem', { TableName: T, Item: item(100) }, {}).writeUnits).toBe(3);
    expect(meter.record('PutItem', { TableName: T, Item: item(100) }, {}).writeUnits).toBe(1);
  });

  it('charges a delete on the size of the item it removes', () => {
    const meter = new DynamoMeter(keys);
    meter.record('PutItem', { TableName: T, Item: item(2500) }, {});
    expect(
      meter.record('DeleteItem', { TableName: T, Key: { pk: { S: 'p' }, sk: { S: 's' } } }, {})
        .writeUnits,
    ).toBe(3);
    expect(
      meter.record('DeleteItem', { TableName: T, Key: { pk: { S: 'p' }, sk: { S: 's' } } }, {})
        .writeUnits,
    ).toBe(1);
  });

  it('adds a write for each index entry put, and two when an entry moves', () => {
    const meter = new DynamoMeter(keys);
    const inIndex = (g: string) => item(1500, { gsi1pk: { S: g }, gsi1sk: { S: 'k' } });
    expect(meter.record('PutItem', { TableName: T, Item: inIndex('a') }, {}).writeUnits).toBe(4);
    expect(meter.record('PutItem', { TableName: T, Item: inIndex('a') }, {}).writeUnits).toBe(4);
    expect(meter.record('PutItem', { TableName: T, Item: inIndex('b') }, {}).writeUnits).toBe(6);
    expect(meter.record('PutItem', { TableName: T, Item: item(1500) }, {}).writeUnits).toBe(4);
  });

  it('charges a read its full stored size even when a projection returned less', () => {
    const meter = new DynamoMeter(keys);
    meter.record('PutItem', { TableName: T, Item: item(9000) }, {});
    const projected = { Items: [{ pk: { S: 'p' }, sk: { S: 's' } }] };
    expect(meter.record('Query', { TableName: T, ConsistentRead: true }, projected).readUnits).toBe(
      3,
    );
  });

  it('charges a failed conditional write but remembers only what landed', () => {
    const meter = new DynamoMeter(keys);
    const failed = meter.record('PutItem', { TableName: T, Item: item(2048) }, undefined);
    expect(failed.writeUnits).toBe(2);
    expect(meter.record('PutItem', { TableName: T, Item: item(10) }, {}).writeUnits).toBe(1);
    const totals = meter.snapshot().byOperation.PutItem;
    expect(totals).toMatchObject({ requests: 2, writeUnits: 3, failed: 1, itemWrites: 1 });
  });

  it('sums requests and units per operation and compares them with what the store reported', () => {
    const meter = new DynamoMeter(keys);
    meter.record(
      'GetItem',
      { TableName: T, Key: {}, ConsistentRead: true },
      { Item: item(100), ConsumedCapacity: { CapacityUnits: 1 } },
    );
    meter.record(
      'TransactWriteItems',
      {
        TransactItems: [
          { Put: { TableName: T, Item: item(100, {}, 'q') } },
          { Delete: { TableName: T, Key: { pk: { S: 'p' }, sk: { S: 'z' } } } },
        ],
      },
      { ConsumedCapacity: [{ CapacityUnits: 4 }] },
    );
    meter.record('DescribeTable', { TableName: T }, {});
    const totals = meter.snapshot();
    expect(totals).toMatchObject({ requests: 3, readUnits: 1, writeUnits: 4, itemWrites: 2 });
    expect(totals.byOperation.TransactWriteItems).toMatchObject({
      reportedUnits: 4,
      meteredUnitsOfReported: 4,
    });
    meter.reset();
    expect(meter.snapshot().requests).toBe(0);
  });
});
