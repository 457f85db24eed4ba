import { describe, expect, it } from 'vitest';
import { keys } from '../../../lib/adapters/dynamodb/keys.js';
import { createTableInput, tableSchema } from '../../../lib/adapters/dynamodb/table-schema.js';

describe('keys', () => {
  it('sorts type keys by name, then version', () => {
    const sorted = [
      keys.typeSortValue('ab', '1'),
      keys.typeSortValue('a b', '1'),
      keys.typeSortValue('a', '2'),
      keys.typeSortValue('a', '10'),
    ].sort();
    expect(sorted).toEqual([
      keys.typeSortValue('a', '10'),
      keys.typeSortValue('a', '2'),
      keys.typeSortValue('a b', '1'),
      keys.typeSortValue('ab', '1'),
    ]);
  });

  it('keeps workflow and activity types apart in a domain partition', () => {
    const w = keys.type('workflow', 'd', 'n', '1');
    const a = keys.type('activity', 'd', 'n', '1');
    expect(w.pk).toBe(a.pk);
    expect(w.sk).not.toBe(a.sk);
    expect(w.sk.startsWith(keys.typePrefix('workflow'))).toBe(true);
  });

  it('fits the longest names inside DynamoDB key limits', () => {
    const name = '\u{10FFFF}'.repeat(128); // 256 UTF-16 units, 4 bytes per pair
    const version = '\uFFFF'.repeat(64);
    const key = keys.type('workflow', name, name, version);
    expect(Buffer.byteLength(key.pk)).toBeLessThanOrEqual(2048);
    expect(Buffer.byteLength(key.sk)).toBeLessThanOrEqual(1024);
  });
});

describe('table schema', () => {
  it('builds a table with the shared keys, indexes and stream', () => {
    const input = createTableInput('t');
    expect(input.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(input.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(
      tableSchema.globalIndexes.map((i) => i.indexName),
    );
    expect(input.StreamSpecification).toEqual({
      StreamEnabled: true,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
  });
});
