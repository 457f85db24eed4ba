/** The DynamoDB poller slots held to the PollerLeaseStore contract, a fresh table for each test. */
import { afterAll } from 'vitest';
import { DynamoPollerLeases } from '../../lib/adapters/dynamodb/poller-leases.js';
import { type FreshTable, freshTable } from '../support/local.js';
import { pollerLeasesContract } from '../support/store-contract/poller-leases.js';

const tables: FreshTable[] = [];
afterAll(() => {
  for (const table of tables) {
    table.doc.destroy();
    table.client.destroy();
  }
});

pollerLeasesContract(async () => {
  const table = await freshTable('poller-leases-contract');
  tables.push(table);
  return new DynamoPollerLeases(table);
});
