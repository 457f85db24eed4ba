/** The DynamoDB stores of runs, queues and side items held to their contract, on one table. */
import { DynamoExecutionStore } from '../../lib/adapters/dynamodb/execution-store.js';
import { tableForFile } from '../support/local.js';
import { executionStoresContract } from '../support/store-contract/execution-stores.js';

const table = tableForFile('execution-contract');

executionStoresContract(async () => {
  const store = new DynamoExecutionStore(table());
  return {
    runs: store,
    taskQueues: store,
    heartbeats: store,
    lambdaTaskClaims: store,
    deadLetters: store,
  };
});
