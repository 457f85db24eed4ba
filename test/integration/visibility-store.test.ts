/** The DynamoDB visibility store held to the VisibilityStore contract, a fresh table for each test. */
import { afterAll } from 'vitest';
import { DynamoVisibilityStore } from '../../lib/adapters/dynamodb/visibility-store.js';
import { type FreshTable, freshTable } from '../support/local.js';
import { visibilityStoreContract } from '../support/store-contract/visibility-store.js';

const tables: FreshTable[] = [];
afterAll(() => {
  for (const table of tables) {
    table.doc.destroy();
    table.client.destroy();
  }
});

visibilityStoreContract(async (options) => {
  const table = await freshTable('visibility-contract');
  tables.push(table);
  return new DynamoVisibilityStore(table, options);
});
