/**
 * Fresh projects outside the repository for the packaging test: commands run in them with an
 * environment cleaned of what `npm test` sets for this repository, and the synth cut off from the
 * network.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** npm's settings a user's machine would have too; the rest of `npm_*` describes this repository. */
const KEPT_NPM_SETTINGS = new Set([
  'npm_config_registry',
  'npm_config_cache',
  'npm_config_userconfig',
  'npm_config_globalconfig',
  'npm_config_proxy',
  'npm_config_https_proxy',
  'npm_config_noproxy',
  'npm_config_cafile',
  'npm_config_strict_ssl',
]);

/**
 * The environment for a command in a fresh project: without `npm_config_local_prefix` (which would
 * point npm at this repository), the `npm_package_*` of its package.json and the like.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.toLowerCase().startsWith('npm_') || KEPT_NPM_SETTINGS.has(name.toLowerCase()))
      env[name] = value;
  return { ...env, npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

/** Runs a command to its end; fails with its output when it exits other than 0. */
export async function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, [...args], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr, code } = error as { stdout?: string; stderr?: string; code?: unknown };
    throw new Error(
      `${command} ${args.join(' ')} exited ${String(code)} in ${cwd}:\n${tail(stdout)}\n${tail(stderr)}`,
    );
  }
}

/** The end of a command's output, each line cut short (a bundle's one line can be a megabyte). */
const tail = (text: string | undefined) =>
  (text ?? '')
    .split('\n')
    .slice(-40)
    .map((line) => (line.length > 400 ? `${line.slice(0, 400)}…` : line))
    .join('\n');

/**
 * How to run a command with no network: in a network namespace of its own (`unshare -n`, where the
 * machine allows it), else through a proxy that answers nothing, so that any attempt to reach the
 * network fails instead of succeeding quietly.
 */
export function offline(
  command: string,
  args: readonly string[],
): { command: string; args: string[]; env: NodeJS.ProcessEnv; how: string } {
  const deadProxy = 'http://127.0.0.1:9';
  const env = cleanEnv({
    CDK_DISABLE_VERSION_CHECK: '1',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    HTTP_PROXY: deadProxy,
    HTTPS_PROXY: deadProxy,
    http_proxy: deadProxy,
    https_proxy: deadProxy,
    NO_PROXY: '',
    no_proxy: '',
    npm_config_offline: 'true',
  });
  if (spawnSync('unshare', ['-n', 'true']).status === 0)
    return { command: 'unshare', args: ['-n', command, ...args], env, how: 'unshare -n' };
  return { command, args: [...args], env, how: 'a proxy that answers nothing' };
}

/** Starts a long-running command and resolves with what its stdout's `pattern` captured first. */
export function startAndRead(
  command: string,
  args: readonly string[],
  cwd: string,
  pattern: RegExp,
  timeoutMs = 120_000,
): Promise<{ child: ChildProcess; match: string }> {
  // A process group of its own, as a terminal gives a command: see interrupt.
  const child = spawn(command, [...args], {
    cwd,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in:\n${out}`)), timeoutMs);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out)?.[1];
      if (match === undefined) return;
      clearTimeout(timer);
      resolve({ child, match });
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited ${code}:\n${out}`));
    });
  });
}

/**
 * What Ctrl-C in a terminal does to a command started by startAndRead: SIGINT to its whole process
 * group (npx does not pass signals on to the command it runs). Resolves once the command has ended.
 */
export async function interrupt(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGINT');
  await exited;
}

/** A process and its descendants, as they are now. */
export function processTree(pid: number): number[] {
  const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((line) => Number(line.trim()))
    .filter((child) => child > 0);
  return [pid, ...children.flatMap(processTree)];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once none of `pids` runs, checking every 200 ms; fails after `timeoutMs`. */
export async function allEnded(pids: readonly number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = pids.filter(alive);
    if (running.length === 0) return;
    if (Date.now() > deadline) {
      const described = running.map((pid) =>
        spawnSync('ps', ['-o', 'pid=,args=', '-p', String(pid)], {
          encoding: 'utf8',
        }).stdout.trim(),
      );
      throw new Error(`still running after ${timeoutMs} ms:\n${described.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
