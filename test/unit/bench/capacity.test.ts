import { describe, expect, it } from 'vitest';
import {
  queryReadUnits,
  ReadMode,
  readUnits,
  writeUnits,
} from '../../../bench/metering/capacity.js';
import { itemSize, numberSize } from '../../../lib/adapters/dynamodb/item-size.js';

const KB = 1024;

describe('write units', () => {
  it('charges one unit per started KB, at least one', () => {
    expect(writeUnits(0)).toBe(1);
    expect(writeUnits(1 * KB)).toBe(1);
    expect(writeUnits(1 * KB + 1)).toBe(2);
    expect(writeUnits(3 * KB)).toBe(3);
  });

  it('doubles a transactional write: a 1.5 KB transactional put is 4 WRU', () => {
    expect(writeUnits(1.5 * KB, true)).toBe(4);
    expect(writeUnits(3 * KB, true)).toBe(6);
  });
});

describe('read units', () => {
  it('charges a strongly consistent read one unit per started 4 KB', () => {
    expect(readUnits(100, ReadMode.strong)).toBe(1);
    expect(readUnits(4 * KB, ReadMode.strong)).toBe(1);
    expect(readUnits(8 * KB + 1, ReadMode.strong)).toBe(3);
  });

  it('halves an eventually consistent read: a 5 KB one is 1 RRU', () => {
    expect(readUnits(5 * KB, ReadMode.eventual)).toBe(1);
    expect(readUnits(1 * KB, ReadMode.eventual)).toBe(0.5);
  });

  it('doubles a transactional read', () => {
    expect(readUnits(5 * KB, ReadMode.transactional)).toBe(4);
  });

  it('still charges the minimum for a missing item', () => {
    expect(readUnits(0, ReadMode.strong)).toBe(1);
  });

  it('charges a Query on the summed size: 3 items of 1.5 KB strongly consistent is 2 RRU', () => {
    expect(queryReadUnits([1.5 * KB, 1.5 * KB, 1.5 * KB], ReadMode.strong)).toBe(2);
    expect(queryReadUnits([1.5 * KB, 1.5 * KB, 1.5 * KB], ReadMode.eventual)).toBe(1);
    expect(queryReadUnits([], ReadMode.strong)).toBe(1);
  });
});

describe('item size', () => {
  it('counts attribute names and UTF-8 string bytes', () => {
    expect(itemSize({ pk: { S: 'abc' } })).toBe(2 + 3);
    expect(itemSize({ name: { S: 'é€' } })).toBe(4 + 5);
  });

  it('counts one byte per two significant digits of a number, plus one', () => {
    expect(numberSize('12345')).toBe(4);
    expect(numberSize('-0.00120')).toBe(2);
    expect(numberSize('100')).toBe(2);
    expect(numberSize('1.5e+21')).toBe(2);
    expect(itemSize({ n: { N: '1234' } })).toBe(1 + 3);
  });

  it('counts booleans and nulls as one byte, binaries by their bytes', () => {
    expect(itemSize({ b: { BOOL: true }, z: { NULL: true } })).toBe(4);
    expect(itemSize({ bin: { B: new Uint8Array(10) } })).toBe(13);
  });

  it('adds 3 bytes per list or map plus 1 per element', () => {
    expect(itemSize({ l: { L: [] } })).toBe(1 + 3);
    expect(itemSize({ l: { L: [{ S: 'ab' }, { N: '1' }] } })).toBe(1 + 3 + (1 + 2) + (1 + 2));
    expect(itemSize({ m: { M: { k: { S: 'v' } } } })).toBe(1 + 3 + 1 + 1 + 1);
  });

  it('sums set elements', () => {
    expect(itemSize({ s: { SS: ['a', 'bb'] }, n: { NS: ['1', '22'] } })).toBe(1 + 3 + 1 + 4);
  });
});
