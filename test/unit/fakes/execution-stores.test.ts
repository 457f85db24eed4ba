/** The in-memory stores of runs, queues and side items the fast tests use, held to their contract. */
import { InMemoryExecutionStore } from '../../support/fakes/execution-stores.js';
import { executionStoresContract } from '../../support/store-contract/execution-stores.js';

executionStoresContract(async () => {
  const store = new InMemoryExecutionStore();
  return {
    runs: store,
    taskQueues: store,
    heartbeats: store,
    lambdaTaskClaims: store,
    deadLetters: store,
  };
});
