/**
 * The stream function is invoked only for changes of a run's state item (the deployed event source
 * filters on entity = Run): the bench counts exactly those write requests as its invocations.
 */
import { describe, expect, it } from 'vitest';
import { changesRunState } from '../../../bench/instrument.js';

const put = (entity: string) => ({
  Item: { pk: { S: 'RUN|r' }, sk: { S: 'X' }, entity: { S: entity } },
});

describe('changesRunState', () => {
  it('counts a put of a state item, alone or in a transaction', () => {
    expect(changesRunState({ TableName: 't', ...put('Run') })).toBe(true);
    expect(changesRunState({ TransactItems: [{ Put: put('History') }, { Put: put('Run') }] })).toBe(
      true,
    );
  });

  it('counts an update of a state item (its expiry marked at close)', () => {
    const Key = { pk: { S: 'RUN|r' }, sk: { S: 'STATE' } };
    expect(changesRunState({ Key, UpdateExpression: 'SET expiresAt = :e' })).toBe(true);
  });

  it('does not count chunks, queue entries, visibility rows or deletes', () => {
    expect(changesRunState({ TableName: 't', ...put('History') })).toBe(false);
    expect(changesRunState({ TableName: 't', ...put('QueuedTask') })).toBe(false);
    expect(changesRunState({ Key: { pk: { S: 'Q|D|d|l|0' }, sk: { S: 'x' } } })).toBe(false);
    expect(changesRunState({ RequestItems: { t: [{ PutRequest: put('Visibility') }] } })).toBe(
      false,
    );
    expect(changesRunState({ TransactItems: [{ Put: put('OpenRun') }] })).toBe(false);
  });
});
