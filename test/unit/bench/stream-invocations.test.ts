/**
 * The stream function is invoked only for changes of a run's state item that have work for the outbox
 * (the deployed event source filters on entity = Run and the writer's mark): the bench counts exactly
 * those write requests as its invocations.
 */
import { describe, expect, it } from 'vitest';
import { invokesStreamFunction } from '../../../bench/instrument.js';

const put = (entity: string) => ({
  Item: { pk: { S: 'RUN|r' }, sk: { S: 'X' }, entity: { S: entity } },
});

describe('invokesStreamFunction', () => {
  it('counts a put of a state item, alone or in a transaction', () => {
    expect(invokesStreamFunction({ TableName: 't', ...put('Run') })).toBe(true);
    expect(
      invokesStreamFunction({ TransactItems: [{ Put: put('History') }, { Put: put('Run') }] }),
    ).toBe(true);
  });

  it('does not count a state item marked as having no work for the outbox', () => {
    const marked = (fx: boolean) => ({ Item: { ...put('Run').Item, fx: { BOOL: fx } } });
    expect(invokesStreamFunction({ TableName: 't', ...marked(false) })).toBe(false);
    expect(invokesStreamFunction({ TableName: 't', ...marked(true) })).toBe(true);
    expect(invokesStreamFunction({ TransactItems: [{ Put: marked(false) }] })).toBe(false);
  });

  it('counts an update of a state item (its expiry marked at close)', () => {
    const Key = { pk: { S: 'RUN|r' }, sk: { S: 'STATE' } };
    expect(invokesStreamFunction({ Key, UpdateExpression: 'SET expiresAt = :e' })).toBe(true);
  });

  it('does not count chunks, queue entries, visibility rows or deletes', () => {
    expect(invokesStreamFunction({ TableName: 't', ...put('History') })).toBe(false);
    expect(invokesStreamFunction({ TableName: 't', ...put('QueuedTask') })).toBe(false);
    expect(invokesStreamFunction({ Key: { pk: { S: 'Q|D|d|l|0' }, sk: { S: 'x' } } })).toBe(false);
    expect(
      invokesStreamFunction({ RequestItems: { t: [{ PutRequest: put('Visibility') }] } }),
    ).toBe(false);
    expect(invokesStreamFunction({ TransactItems: [{ Put: put('OpenRun') }] })).toBe(false);
  });
});
