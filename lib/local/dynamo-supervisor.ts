import { resolve } from 'node:path';
import { type Dispatcher, serviceUnavailable } from '../http/dispatch.js';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.js';

/**
 * DynamoDB Local, kept alive by the local server that started it. A JVM that dies (killed, out of
 * memory) is started again on the same port and data directory, so nothing written is lost and the
 * server's clients reach it where they did; until it answers, the server answers every call 503
 * (see outage). A DynamoDB Local that kept its data in memory has lost it with its JVM: a new one
 * would serve an empty table under the old endpoint, so the server is told to stop instead (onLost).
 */
export interface SupervisedDynamo {
  readonly endpoint: string;
  /** Why the store cannot serve now (its JVM died and is restarting), or undefined while it serves. */
  outage(): string | undefined;
  /** How many times the store has gone away so far: a call that spans one failed for that reason. */
  outages(): number;
  /** The running JVM's process id. */
  pid(): number | undefined;
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  readonly dataDir?: string;
  readonly outliveInterrupt?: boolean;
  /** Told as DynamoDB Local starts, and once it answers. */
  readonly progress: (line: string) => void;
  /** Where the supervisor says what befalls it (one line per change of state). */
  readonly log: (line: string) => void;
  /** The store is gone for good (its data was in memory, or it cannot be started again). */
  readonly onLost: (message: string) => void;
}

/** Restarts in a row that may fail before the store is given up on. */
const MAX_RESTART_ATTEMPTS = 5;
/** A JVM that dies within this of its restart counts as a failed restart (a crash loop ends). */
const STABLE_AFTER_MS = 30_000;

export async function superviseDynamoDbLocal(options: SuperviseOptions): Promise<SupervisedDynamo> {
  const start = (port?: number) =>
    startDynamoDbLocal({
      ...(port === undefined ? {} : { port }),
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      outliveInterrupt: options.outliveInterrupt === true,
    });
  const where =
    options.dataDir === undefined ? 'data in memory' : `data in ${resolve(options.dataDir)}`;
  options.progress(`Starting DynamoDB Local (${where})...`);
  const began = Date.now();
  let current: DynamoDbLocal = await start();
  options.progress(`DynamoDB Local ready on ${current.endpoint} (${seconds(began)})`);
  const { endpoint, port } = current;
  let down: string | undefined;
  let outages = 0;
  let stopping = false;
  let failedInARow = 0;

  const watch = (jvm: DynamoDbLocal, startedAt: number) => {
    void jvm.exited.then((how) => {
      if (stopping || jvm !== current) return;
      outages++;
      if (Date.now() - startedAt < STABLE_AFTER_MS) failedInARow++;
      else failedInARow = 0;
      down = `DynamoDB Local exited (${how}) and is being restarted; try again shortly`;
      if (options.dataDir === undefined) {
        down = `DynamoDB Local exited (${how}); the data it held in memory is gone`;
        options.onLost(
          `DynamoDB Local exited unexpectedly (${how}). It kept its data in memory, so every domain, type and execution is gone: stopping. Start the server again (with --data DIR to keep data across such an exit).`,
        );
        return;
      }
      options.log(
        `DynamoDB Local exited unexpectedly (${how}); restarting it on the data in ${options.dataDir} (calls are answered 503 meanwhile)`,
      );
      void restart();
    });
  };

  const restart = async () => {
    for (; failedInARow <= MAX_RESTART_ATTEMPTS && !stopping; failedInARow++) {
      const began = Date.now();
      try {
        const jvm = await start(port);
        if (stopping) return void (await jvm.stop());
        current = jvm;
        watch(jvm, Date.now());
        down = undefined;
        options.log(`DynamoDB Local is back (restarted in ${seconds(began)}); serving again`);
        return;
      } catch (error) {
        options.log(`DynamoDB Local did not start again: ${firstLine(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000 * 2 ** failedInARow));
      }
    }
    if (!stopping)
      options.onLost(
        `DynamoDB Local could not be restarted (${MAX_RESTART_ATTEMPTS} tries): stopping.`,
      );
  };

  watch(current, Date.now());
  return {
    endpoint,
    outage: () => down,
    outages: () => outages,
    pid: () => current.pid,
    stop: async () => {
      stopping = true;
      await current.stop();
    },
  };
}

/**
 * Calls while DynamoDB Local restarts are answered 503 (SWF's clients retry it), not dispatched to
 * fail one by one; a call that failed because the store went away as it ran is answered the same.
 */
export function servedWhileStoreServes(
  dynamo: SupervisedDynamo | undefined,
  dispatch: Dispatcher,
): Dispatcher {
  if (dynamo === undefined) return dispatch;
  return async (request) => {
    const outages = dynamo.outages();
    const down = dynamo.outage();
    if (down !== undefined) return serviceUnavailable(down);
    const response = await dispatch(request);
    if (response.statusCode < 500) return response;
    const now = dynamo.outage();
    if (now === undefined && dynamo.outages() === outages) return response;
    return serviceUnavailable(now ?? 'DynamoDB Local restarted during the call; try again');
  };
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
