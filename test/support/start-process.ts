/**
 * `npm start` as a process of its own (what it runs: `node --import tsx lib/local/start.ts`), for the
 * tests that watch it start, crash, restart and stop: its stdout read line by line, its DynamoDB Local
 * JVM found among its children, and the whole process group (the server, the JVM, tsx's esbuild) killed
 * at once as a crash would end it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The environment `npm start` reads, cleared so that the caller's shell does not leak into a test. */
export const startEnv: NodeJS.ProcessEnv = {
  ...process.env,
  PORT: '',
  SWF_DATA_DIR: '',
  SWF_PUSH_TASK_LISTS: '',
  SWF_LAMBDA_FUNCTIONS: '',
};

export const startArgs = ['--import', 'tsx', 'lib/local/start.ts'];

/**
 * What `npm start -- ARGS` runs, its stdout and stderr piped and kept (`output()`, `errors()`).
 * `group`: in a process group of its own (led by it), so that killGroup ends it with everything it
 * started.
 */
export function npmStart(
  args: readonly string[],
  options: { group?: boolean; env?: NodeJS.ProcessEnv } = {},
): StartedServer {
  const child = spawn(process.execPath, [...startArgs, ...args], {
    cwd: root,
    env: { ...startEnv, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group === true,
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  return Object.assign(child, { output: () => out, errors: () => err });
}

export type StartedServer = ChildProcess & { output(): string; errors(): string };

/** Resolves with the process's stdout once it holds `line`; rejects if the process ends first. */
export function waitForLine(
  child: StartedServer,
  line: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const check = () => {
      if (!child.output().includes(line)) return false;
      finish();
      resolvePromise(child.output());
      return true;
    };
    const onExit = (code: number | null, signal: string | null) => {
      if (check()) return;
      finish();
      reject(
        new Error(`exited ${code ?? signal} before "${line}":\n${child.output()}${child.errors()}`),
      );
    };
    const timer = setTimeout(() => {
      finish();
      reject(
        new Error(`no "${line}" within ${timeoutMs} ms in:\n${child.output()}${child.errors()}`),
      );
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', check);
    child.once('exit', onExit);
    if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode, null);
    else check();
  });
}

/** The SWF endpoint a started server's banner names. */
export function endpointIn(output: string): string {
  const endpoint = /^SWF endpoint: (http:\/\/127\.0\.0\.1:\d+) {3}\(/m.exec(output)?.[1];
  if (endpoint === undefined) throw new Error(`no endpoint in:\n${output}`);
  return endpoint;
}

/** The process's exit code (null when a signal ended it). */
export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolvePromise) => {
    if (child.exitCode !== null || child.signalCode !== null) resolvePromise(child.exitCode);
    else child.once('exit', (code) => resolvePromise(code));
  });

/**
 * The ids of a process's DynamoDB Local JVMs (not its other children: start.ts's own `java -version`
 * probe, or tsx's esbuild service, which may take a moment longer to go once its parent has).
 */
export const dynamoChildrenOf = (pid: number) =>
  // ps exits 1 when it lists nothing
  spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((line) => line.includes('DynamoDBLocal.jar'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether any process of the group `pgid` (one a test started with `group`) is left. */
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * SIGKILL to the process group a test started (npmStart with `group`): the server and its DynamoDB
 * Local die at once, as in a crash or a `kill -9` of the group. Resolves once none of them is left.
 */
export async function killGroup(child: ChildProcess): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  const deadline = Date.now() + 30_000;
  while (groupAlive(pgid) && Date.now() < deadline)
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  await exited(child);
}
