import { describe, expect, it } from 'vitest';
import {
  AttributeValueError,
  fromWireItem,
  toWireItem,
} from '../../../lib/adapters/dynamodb/attribute-values.js';

describe('attribute values', () => {
  it('writes every kind of value as DynamoDB JSON, leaving undefined out', () => {
    const wire = toWireItem({
      s: 'text',
      empty: '',
      n: 42.5,
      big: 2n ** 64n,
      yes: true,
      nothing: null,
      bytes: Buffer.from('hi'),
      view: new Uint8Array([1, 2, 3]).subarray(1),
      list: [1, 'a', undefined, [false]],
      map: { a: 1, gone: undefined, nested: { b: 'c' } },
      strings: new Set(['x', 'y']),
      numbers: new Set([1, 2]),
      blobs: new Set([Buffer.from('z')]),
      skipped: undefined,
    });
    expect(wire).toEqual({
      s: { S: 'text' },
      empty: { S: '' },
      n: { N: '42.5' },
      big: { N: '18446744073709551616' },
      yes: { BOOL: true },
      nothing: { NULL: true },
      bytes: { B: 'aGk=' },
      view: { B: 'AgM=' },
      list: { L: [{ N: '1' }, { S: 'a' }, { L: [{ BOOL: false }] }] },
      map: { M: { a: { N: '1' }, nested: { M: { b: { S: 'c' } } } } },
      strings: { SS: ['x', 'y'] },
      numbers: { NS: ['1', '2'] },
      blobs: { BS: ['eg=='] },
    });
  });

  it('reads DynamoDB JSON back to the values written', () => {
    const item = {
      s: 'text',
      n: -3,
      big: 2n ** 64n,
      yes: false,
      nothing: null,
      bytes: Buffer.from('hi'),
      list: [1, 'a', { k: 'v' }],
      strings: new Set(['x']),
      numbers: new Set([7]),
      blobs: new Set([Buffer.from('z')]),
    };
    expect(fromWireItem(JSON.parse(JSON.stringify(toWireItem(item))))).toEqual(item);
  });

  it.each([
    ['NaN', { v: Number.NaN }, /v: NaN cannot be stored/],
    ['an unsafe integer', { v: 2 ** 60 }, /past 2\^53/],
    ['an empty set', { v: new Set() }, /empty set/],
    ['a mixed set', { v: new Set(['a', 1]) }, /all strings, numbers or bytes/],
    ['a class instance', { v: new Date(0) }, /a Date cannot be stored/],
    ['a function', { v: { f: () => 1 } }, /v\.f: a function cannot be stored/],
  ])('refuses %s, saying where', (_, item, message) => {
    expect(() => toWireItem(item)).toThrow(AttributeValueError);
    expect(() => toWireItem(item)).toThrow(message);
  });
});
