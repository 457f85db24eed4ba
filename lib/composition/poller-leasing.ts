import type { DocClient } from '../adapters/dynamodb/doc-client.js';
import { DynamoPollerLeases } from '../adapters/dynamodb/poller-leases.js';
import { translatingFailures } from '../adapters/transient-failures.js';
import type { PollerLeasing } from '../operations/poller-admission.js';

/**
 * Waiting polls' leases kept in the table, where each poll waits in a process of its own (the
 * deployed API function's containers): SWF's 1,000 pollers a list, and the service's cap on polls
 * waiting at once when `maxWaitingPolls` is given.
 */
export function tablePollerLeasing(
  doc: DocClient,
  tableName: string,
  maxWaitingPolls?: number,
): PollerLeasing {
  const store = translatingFailures(new DynamoPollerLeases({ doc, tableName }));
  return maxWaitingPolls === undefined ? { store } : { store, maxWaitingPolls };
}
