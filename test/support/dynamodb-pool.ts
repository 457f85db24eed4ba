import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';
import { startKeyProxy } from './dynamodb-key-proxy.js';

/** One DynamoDB Local of the pool: the files it has served, and those it serves now. */
interface PooledDynamo {
  readonly id: number;
  readonly started: Promise<DynamoDbLocal>;
  leased: number;
  active: number;
}

/**
 * DynamoDB Locals handed to test files, a fresh one after every `filesPerDynamo` files. A database
 * slows down as files come and go, even once their tables are dropped: a file ran twice as slow on
 * one that had served eight files before it as on a fresh one; on databases of their own in one JVM
 * (`databasePerFile`), files keep their speed. A served-out DynamoDB Local stops
 * once its last file has ended. With `spare`, the next one starts while the files run, so no file
 * waits for a JVM to start; without it (files that measure latency) nothing starts beside a file.
 */
export class DynamoDbLocalPool {
  readonly #filesPerDynamo: number;
  readonly #spare: boolean;
  readonly #jvmOptions: readonly string[];
  readonly #databasePerFile: boolean;
  readonly #dynamos = new Map<number, PooledDynamo>();
  readonly #leases = new Map<number, { dynamo: PooledDynamo; close?: () => Promise<void> }>();
  #current: PooledDynamo | undefined;
  #next: PooledDynamo | undefined;
  #count = 0;
  #leaseCount = 0;

  /**
   * With `databasePerFile`, the DynamoDB Locals start without `sharedDb` and each file reaches its
   * own through a proxy that gives it an access key id of its own (dynamodb-key-proxy.ts).
   */
  constructor(options: {
    filesPerDynamo: number;
    spare: boolean;
    jvmOptions?: readonly string[];
    databasePerFile?: boolean;
  }) {
    this.#filesPerDynamo = options.filesPerDynamo;
    this.#spare = options.spare;
    this.#jvmOptions = options.jvmOptions ?? [];
    this.#databasePerFile = options.databasePerFile === true;
  }

  /** A DynamoDB Local for one test file, until `release(id)`. */
  async lease(): Promise<{ id: number; endpoint: string }> {
    if (this.#current === undefined || this.#current.leased >= this.#filesPerDynamo) {
      if (this.#current !== undefined) this.#retireIfIdle(this.#current);
      this.#current = this.#next ?? this.#start();
      this.#next = undefined;
    }
    const dynamo = this.#current;
    dynamo.leased += 1;
    dynamo.active += 1;
    if (this.#spare && this.#next === undefined && dynamo.leased >= this.#filesPerDynamo)
      this.#next = this.#start();
    this.#leaseCount += 1;
    const id = this.#leaseCount;
    const lease: { dynamo: PooledDynamo; close?: () => Promise<void> } = { dynamo };
    this.#leases.set(id, lease);
    const { endpoint } = await dynamo.started;
    if (!this.#databasePerFile) return { id, endpoint };
    const proxy = await startKeyProxy(endpoint, `file${id}`);
    lease.close = proxy.close;
    return { id, endpoint: proxy.endpoint };
  }

  /** The file that leased `id` has ended. */
  release(id: number): void {
    const lease = this.#leases.get(id);
    if (lease === undefined) return;
    this.#leases.delete(id);
    void lease.close?.();
    const { dynamo } = lease;
    dynamo.active = Math.max(0, dynamo.active - 1);
    if (dynamo !== this.#current) this.#retireIfIdle(dynamo);
  }

  /** Stops every DynamoDB Local still running. */
  async stop(): Promise<void> {
    const running = [...this.#dynamos.values()];
    const proxies = [...this.#leases.values()];
    this.#dynamos.clear();
    this.#leases.clear();
    await Promise.all(proxies.map((lease) => lease.close?.()));
    await Promise.all(running.map(stopDynamo));
  }

  #start(): PooledDynamo {
    this.#count += 1;
    const dynamo = {
      id: this.#count,
      started: startWithRetries(this.#jvmOptions, !this.#databasePerFile),
      leased: 0,
      active: 0,
    };
    // A start that fails is reported to the file that leases it; never an unhandled rejection.
    dynamo.started.catch(() => {});
    this.#dynamos.set(dynamo.id, dynamo);
    return dynamo;
  }

  #retireIfIdle(dynamo: PooledDynamo): void {
    if (dynamo.active > 0 || !this.#dynamos.has(dynamo.id)) return;
    this.#dynamos.delete(dynamo.id);
    void stopDynamo(dynamo);
  }
}

/** Starts of one DynamoDB Local a pool tries before the file that waits for it fails. */
const START_TRIES = 3;

/**
 * A DynamoDB Local, started again if a start fails: a run starts dozens, and one may lose its free
 * port to another process before the JVM binds it, or time out on a machine busy with other work.
 */
async function startWithRetries(
  jvmOptions: readonly string[],
  sharedDb: boolean,
): Promise<DynamoDbLocal> {
  for (let tries = 1; ; tries++) {
    try {
      return await startDynamoDbLocal({ jvmOptions, sharedDb });
    } catch (error) {
      if (tries >= START_TRIES) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      console.warn(`DynamoDB Local did not start (${reason}); starting another`);
    }
  }
}

async function stopDynamo(dynamo: PooledDynamo): Promise<void> {
  const started = await dynamo.started.catch(() => undefined);
  await started?.stop();
}

/**
 * The pool over HTTP on a free local port, for the test files' worker processes:
 * `POST /lease` answers `{ id, endpoint }`, `POST /release?id=N` ends a lease.
 */
export async function servePool(
  pool: DynamoDbLocalPool,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://pool');
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'POST' && url.pathname === '/lease') {
      pool.lease().then(
        (lease) => answer(200, lease),
        (error: unknown) => answer(500, { message: String(error) }),
      );
    } else if (request.method === 'POST' && url.pathname === '/release') {
      pool.release(Number(url.searchParams.get('id')));
      answer(200, {});
    } else answer(404, { message: `no route ${request.method} ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
