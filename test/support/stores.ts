/**
 * Where a test file's operations keep their data: a fresh table on the run's DynamoDB Local, or, when
 * SWF_TEST_STORES=memory (the `operations` project, `npm run test:fast`), the in-memory fakes that
 * pass the same store contracts. The files that reach the service only through its operations run
 * both ways with nothing else to change.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import {
  type AssemblyOptions,
  assembleOperationDeps,
  createOperationDeps,
} from '../../lib/composition/operation-deps.js';
import type { OperationDeps } from '../../lib/operations/context.js';
import { epochSeconds, systemClock } from '../../lib/ports/clock.js';
import { ExecutionData, InMemoryExecutionStore } from './fakes/execution-stores.js';
import { InMemoryRegistryStore } from './fakes/registry-store.js';
import { InMemoryVisibilityStore, type VisibilityRowItem } from './fakes/visibility-store.js';
import { type FreshTable, freshTable } from './local.js';

export const inMemory = process.env.SWF_TEST_STORES === 'memory';

/** One table's data, in memory. */
export interface MemoryTable {
  readonly registry: InMemoryRegistryStore;
  readonly executions: ExecutionData;
  readonly visibilityRows: Map<string, VisibilityRowItem>;
  readonly signingKey: Buffer;
}

export type TestStores = FreshTable | MemoryTable;

const isMemory = (stores: TestStores): stores is MemoryTable => 'executions' in stores;

export function memoryTable(): MemoryTable {
  return {
    registry: new InMemoryRegistryStore(),
    executions: new ExecutionData(),
    visibilityRows: new Map(),
    signingKey: randomBytes(32),
  };
}

/** Fresh stores for the calling test file, in memory or in a table made before its tests. */
export function storesForFile(prefix: string): () => TestStores {
  let stores: TestStores | undefined;
  beforeAll(async () => {
    stores = inMemory ? memoryTable() : await freshTable(prefix);
  });
  afterAll(() => {
    if (stores === undefined || isMemory(stores)) return;
    stores.doc.destroy();
    stores.client.destroy();
  });
  return () => {
    if (stores === undefined) throw new Error('the stores are made before the tests');
    return stores;
  };
}

/**
 * The operations' dependencies over `stores`, as the service builds them (lib/composition): several
 * over the same stores are processes of the service sharing one table, each on its own clock.
 */
export function operationDepsOver(stores: TestStores, options: AssemblyOptions): OperationDeps {
  if (!isMemory(stores))
    return createOperationDeps({ ...options, doc: stores.doc, tableName: stores.tableName });
  const clock = options.clock ?? systemClock;
  const nowSeconds = () => epochSeconds(clock);
  const executions = new InMemoryExecutionStore(nowSeconds, stores.executions);
  const visibility = new InMemoryVisibilityStore(
    { nowSeconds, expireRun: (runId, at) => executions.expireRun(runId, at) },
    stores.visibilityRows,
  );
  const keys = { signingKeys: async () => ({ current: stores.signingKey }) };
  return assembleOperationDeps(
    {
      registry: stores.registry,
      runs: executions,
      taskQueues: executions,
      heartbeats: executions,
      lambdaTaskClaims: executions,
      deadLetters: executions,
      visibility,
    },
    keys,
    { ...options, clock },
  );
}
