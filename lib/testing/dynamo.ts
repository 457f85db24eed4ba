/**
 * The DynamoDB Local a test environment keeps its table in: the one it is given, or one started for
 * the process and shared by its environments (each has a table of its own), stopped a moment after the
 * last of them closes unless another comes.
 */
import { type DynamoDbLocal, startDynamoDbLocal } from '../local/dynamodb-local.js';

export interface DynamoLease {
  readonly endpoint: string;
  release(): Promise<void>;
}

/** How long the shared DynamoDB Local outlives its last environment: the next file's may come. */
const LINGER_MS = 1_000;

interface Shared {
  readonly started: Promise<DynamoDbLocal>;
  users: number;
  stopTimer: NodeJS.Timeout | undefined;
}

let shared: Shared | undefined;

export async function leaseDynamo(endpoint: string | undefined): Promise<DynamoLease> {
  if (endpoint !== undefined) return { endpoint, release: async () => {} };
  shared ??= { started: startDynamoDbLocal(), users: 0, stopTimer: undefined };
  const lease = shared;
  lease.users++;
  clearTimeout(lease.stopTimer);
  let dynamo: DynamoDbLocal;
  try {
    dynamo = await lease.started;
  } catch (error) {
    lease.users--;
    if (shared === lease) shared = undefined;
    throw error;
  }
  let released = false;
  return {
    endpoint: dynamo.endpoint,
    release: async () => {
      if (released) return;
      released = true;
      lease.users--;
      if (lease.users > 0) return;
      lease.stopTimer = setTimeout(() => {
        if (lease.users > 0) return;
        if (shared === lease) shared = undefined;
        void dynamo.stop();
      }, LINGER_MS);
      // A process with nothing else to do need not wait: DynamoDB Local ends with it.
      lease.stopTimer.unref();
    },
  };
}
