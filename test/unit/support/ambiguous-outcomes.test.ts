/**
 * The ambiguous outcomes (test/support/ambiguous-outcomes.ts) replays a request as the DynamoDB
 * client's retry: the retry's answer must reach the store as DynamoDB gave it, or the contract tests
 * that use it test the intercept instead of the store.
 */
import { describe, expect, it } from 'vitest';
import { type DocClient, DynamoDbError } from '../../../lib/adapters/dynamodb/doc-client.js';
import { transactWrite } from '../../../lib/adapters/dynamodb/transact.js';
import { ambiguousOutcomes } from '../../support/ambiguous-outcomes.js';

/** What DynamoDB answers a transaction whose second item's condition failed. */
const lostRace = () =>
  new DynamoDbError('TransactionCanceledException', 'Transaction cancelled', 400, {
    CancellationReasons: [
      { Code: 'None' },
      {
        Code: 'ConditionalCheckFailed',
        Message: 'The conditional request failed',
        Item: { pk: { S: 'RUN|r' }, version: { N: '3' } },
      },
    ],
  });

describe('the landed-retried outcome', () => {
  it('answers a retried transaction with its cancellation reasons, as the second try', async () => {
    const ambiguous = ambiguousOutcomes(() => 0);
    ambiguous.add({ match: (op) => op === 'TransactWriteItems', outcome: 'landed-retried' });
    let sent = 0;
    const answer = await ambiguous
      .intercept('TransactWriteItems', {}, async () => {
        sent++;
        throw lostRace();
      })
      .catch((error: unknown) => error);
    expect(sent).toBe(2);
    expect(answer).toBeInstanceOf(DynamoDbError);
    expect(answer).toMatchObject({
      name: 'TransactionCanceledException',
      attempts: 2,
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'ConditionalCheckFailed', Item: { pk: 'RUN|r', version: 3 } },
      ],
    });
  });

  it('lets a transaction that lost its race be a failed condition, not an error', async () => {
    const ambiguous = ambiguousOutcomes(() => 0);
    ambiguous.add({ match: (op) => op === 'TransactWriteItems', outcome: 'landed-retried' });
    const doc = {
      transactWrite: () =>
        ambiguous.intercept('TransactWriteItems', {}, async () => {
          throw lostRace();
        }),
    } as unknown as DocClient;
    const outcome = await transactWrite(doc, [
      { Put: { TableName: 't', Item: { pk: 'a' } } },
      { Put: { TableName: 't', Item: { pk: 'b' } } },
    ]);
    expect(outcome).toEqual({ ok: false, failed: [1] });
  });
});

describe('clear', () => {
  it('fails a test whose rule met no request, and not one whose rule was used up', async () => {
    const ambiguous = ambiguousOutcomes(() => 0);
    ambiguous.add({ match: (op) => op === 'PutItem', outcome: 'lost' });
    await ambiguous.intercept('GetItem', {}, async () => ({}));
    expect(() => ambiguous.clear()).toThrow(/1 rule\(s\) met no request \(lost\)/);
    // cleared all the same: nothing is armed any more
    await expect(ambiguous.intercept('PutItem', {}, async () => ({ sent: true }))).resolves.toEqual(
      {
        sent: true,
      },
    );
    ambiguous.add({ match: (op) => op === 'PutItem', outcome: 'lost' });
    await expect(ambiguous.intercept('PutItem', {}, async () => ({}))).rejects.toThrow(
      /outcome: lost/,
    );
    expect(() => ambiguous.clear()).not.toThrow();
    ambiguous.add({ match: () => true, outcome: 'lost', remaining: Number.POSITIVE_INFINITY });
    expect(() => ambiguous.clear()).not.toThrow();
  });
});
