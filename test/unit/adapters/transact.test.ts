import { describe, expect, it } from 'vitest';
import { type DocClient, DynamoDbError } from '../../../lib/adapters/dynamodb/doc-client.js';
import { transactWrite } from '../../../lib/adapters/dynamodb/transact.js';
import { ThrottlingException } from '../../../lib/core/faults.js';

/** A client whose every transaction meets another one holding its items. */
function alwaysConflicting() {
  let attempts = 0;
  const conflict = Object.assign(new Error('Transaction is ongoing for the item'), {
    name: 'TransactionConflictException',
  });
  const doc = {
    transactWrite: async () => {
      attempts++;
      throw conflict;
    },
  } as unknown as DocClient;
  return { doc, attempts: () => attempts };
}

describe('transactWrite', () => {
  it('answers a conflict that outlasts its retries as ThrottlingException, which clients retry', async () => {
    const { doc, attempts } = alwaysConflicting();
    const outcome = transactWrite(doc, [{ Put: { TableName: 't', Item: { pk: 'a' } } }]);
    await expect(outcome).rejects.toBeInstanceOf(ThrottlingException);
    await expect(outcome).rejects.toMatchObject({ name: 'ThrottlingException', statusCode: 400 });
    expect(attempts()).toBe(9);
  });

  it('reports it as an outcome to a caller that re-reads and decides again', async () => {
    const { doc } = alwaysConflicting();
    const outcome = await transactWrite(doc, [{ Put: { TableName: 't', Item: { pk: 'a' } } }], {
      conflictAsOutcome: true,
    });
    expect(outcome).toEqual({ ok: false, failed: [] });
  });

  it('answers a transaction DynamoDB throttled as ThrottlingException, not as the request’s fault', async () => {
    const throttled = new DynamoDbError(
      'TransactionCanceledException',
      'Transaction cancelled',
      400,
      {
        CancellationReasons: [{ Code: 'ThrottlingError' }, { Code: 'None' }],
      },
    );
    const doc = {
      transactWrite: async () => {
        throw throttled;
      },
    } as unknown as DocClient;
    const outcome = transactWrite(doc, [{ Put: { TableName: 't', Item: { pk: 'a' } } }], {
      conflictAsOutcome: true,
    });
    await expect(outcome).rejects.toBeInstanceOf(ThrottlingException);
  });
});
