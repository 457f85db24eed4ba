/**
 * The execution store's dead letters against DynamoDB Local: the stream records it could not apply,
 * kept (the start of one too big for an item) and listed page by page.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoExecutionStore } from '../../lib/adapters/dynamodb/execution-store.js';
import { freshTable } from '../support/local.js';
import { executionStoreTable } from '../support/stored-run.js';

const { storeWith } = executionStoreTable('exec-store-letters');

describe('dead letters', () => {
  it("keep the start of a record too big for one item (a run's, with both its images)", async () => {
    const store = storeWith();
    const id = `letter-${randomBytes(4).toString('hex')}`;
    const record = randomBytes(600_000).toString('base64');
    await store.putDeadLetter(id, record, 'Error: it failed');
    const letter = (await store.listDeadLetters()).find((l) => l.id === id);
    expect(letter?.record.startsWith(record.slice(0, 65_536))).toBe(true);
    expect(letter?.record.length).toBeLessThan(70_000);
    expect(letter?.error).toBe('Error: it failed');
  });

  it('are all listed, past the megabyte one page of a Query holds', async () => {
    // Each letter keeps up to 64 K characters of its record: 20 of them are over 1 MB, and a Query
    // answers at most 1 MB a page (LastEvaluatedKey tells where the next one starts).
    const { tableName, doc, client } = await freshTable('letters');
    client.destroy();
    const store = new DynamoExecutionStore({ doc, tableName });
    try {
      const ids = Array.from({ length: 20 }, (_, i) => `letter-${i}`);
      for (const id of ids)
        await store.putDeadLetter(id, randomBytes(60_000).toString('base64'), 'Error: it failed');
      const listed = (await store.listDeadLetters()).map((l) => l.id);
      expect(listed.sort()).toEqual([...ids].sort());
    } finally {
      doc.destroy();
    }
  });
});
