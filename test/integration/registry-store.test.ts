/** The DynamoDB registry held to the RegistryStore contract, a fresh table for each test. */
import { afterAll } from 'vitest';
import { DynamoRegistryStore } from '../../lib/adapters/dynamodb/registry-store.js';
import { type FreshTable, freshTable } from '../support/local.js';
import { registryStoreContract } from '../support/store-contract/registry-store.js';

const tables: FreshTable[] = [];
afterAll(() => {
  for (const table of tables) {
    table.doc.destroy();
    table.client.destroy();
  }
});

registryStoreContract(async () => {
  const table = await freshTable('registry-contract');
  tables.push(table);
  return new DynamoRegistryStore(table);
});
