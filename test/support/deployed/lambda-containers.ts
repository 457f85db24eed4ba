/**
 * Lambda's execution model for the API function, with each container a child process of its own
 * running the function's real handler (api-container.ts): an invocation goes to a warm container with
 * room (the most recently used, as Lambda prefers) or to a new one (a cold start). On Lambda's default
 * compute a container serves one invocation at a time, so a long poll waits alone in its process and
 * nothing another request does in-process reaches it, as deployed. With `perContainerConcurrency`
 * above 1 it is an execution environment of Lambda Managed Instances: one process serving that many
 * invocations at once, sharing its module state. Counts what Lambda bills: invocations and the
 * milliseconds each ran (rounded up), and what they did to DynamoDB. A container can be killed mid-invocation, as Lambda
 * kills one that crashes or times out.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { ApiAnswer, ApiEvent } from './api-front-door.js';
import type {
  ContainerSettings,
  FromContainer,
  InvocationUsage,
  ToContainer,
} from './container-protocol.js';
import { CpuShareGroup } from './cpu-share.js';

const ENTRY = fileURLToPath(new URL('./api-container.ts', import.meta.url));

/** Lambda's answer when a function is at its concurrency: TooManyRequestsException (HTTP 429). */
export class LambdaThrottled extends Error {
  override readonly name = 'TooManyRequestsException';
}

/** An invocation whose container died (killed, crashed): Lambda reports it as a function error. */
export class ContainerDied extends Error {
  override readonly name = 'Runtime.ExitError';
}

interface Container {
  readonly id: number;
  readonly process: ChildProcess;
  /** The invocations it is serving, by invocation id. */
  readonly inFlight: Map<number, InFlight>;
}

interface InFlight {
  resolve(message: FromContainer): void;
  reject(error: Error): void;
}

export interface LambdaContainersOptions {
  readonly settings: ContainerSettings;
  /** The function's timeout: the context's remaining time at the start of each invocation. */
  readonly timeoutMs: number;
  /** Invocations at once beyond which Lambda throttles (reserved concurrency); none by default. */
  readonly reservedConcurrency?: number;
  /**
   * Invocations one container serves at once: 1 on Lambda's default compute; more on Lambda Managed
   * Instances (the function's PerExecutionEnvironmentMaxConcurrency). @default 1
   */
  readonly perContainerConcurrency?: number;
  /**
   * The share of one CPU each container may use once started, as Lambda gives a function of its
   * memory size (cpu-share.ts); unlimited when not given.
   */
  readonly cpuShare?: number;
}

/** Totals since the last reset. */
export interface ContainerCounters {
  invocations: number;
  throttles: number;
  /** Billed milliseconds: each invocation's duration, rounded up to a millisecond. */
  billedMs: number;
  /** Per SWF action (X-Amz-Target's operation): invocations, billed ms and DynamoDB usage. */
  byAction: Record<string, ActionTotals>;
}

export interface ActionTotals {
  calls: number;
  billedMs: number;
  readUnits: number;
  writeUnits: number;
  stateReads: number;
  lostStateWrites: number;
  dynamoRequests: number;
  cpuMs: number;
}

export class LambdaContainers {
  /** Warm containers with room for another invocation, the most recently used last. */
  readonly #idle: Container[] = [];
  readonly #all = new Set<Container>();
  #created = 0;
  #invocationIds = 0;
  /** Invocations running now, and the most at once. */
  busy = 0;
  maxBusy = 0;
  counters: ContainerCounters = emptyCounters();

  constructor(readonly options: LambdaContainersOptions) {}

  /** Containers created so far (cold starts). */
  get containers(): number {
    return this.#created;
  }

  /** Starts containers for `count` invocations at once ahead of the calls, as provisioned concurrency would. */
  async warm(count: number): Promise<void> {
    const needed = Math.ceil(count / (this.options.perContainerConcurrency ?? 1));
    const fresh = await Promise.all(
      Array.from({ length: Math.max(0, needed - this.#idle.length) }, () => this.#coldStart()),
    );
    this.#idle.push(...fresh);
  }

  async invoke(event: ApiEvent, action = actionOf(event)): Promise<ApiAnswer> {
    const reserved = this.options.reservedConcurrency;
    if (reserved !== undefined && this.busy >= reserved) {
      this.counters.throttles += 1;
      throw new LambdaThrottled('Rate Exceeded.');
    }
    this.busy += 1;
    this.maxBusy = Math.max(this.maxBusy, this.busy);
    const container = this.#idle.at(-1) ?? (await this.#coldStart());
    this.#take(container);
    const started = performance.now();
    let usage: InvocationUsage | undefined;
    try {
      const reply = await this.#send(container, event);
      if ('ready' in reply) throw new Error('unexpected ready message');
      usage = reply.usage;
      if ('error' in reply) throw new Error(`the function failed: ${reply.error}`);
      return reply.answer;
    } finally {
      this.busy -= 1;
      this.#count(action, Math.ceil(performance.now() - started), usage);
      if (this.#all.has(container) && !this.#idle.includes(container)) this.#idle.push(container);
    }
  }

  /** Marks one more invocation on `container`: a full one is no longer offered. */
  #take(container: Container): void {
    const room = this.options.perContainerConcurrency ?? 1;
    const at = this.#idle.indexOf(container);
    const full = container.inFlight.size + 1 >= room;
    if (full && at >= 0) this.#idle.splice(at, 1);
    // A container just started takes the next invocations while it has room.
    else if (!full && at < 0) this.#idle.push(container);
  }

  /** Containers serving an invocation now, by id (for killing one). */
  busyContainers(): number[] {
    return [...this.#all].filter((c) => c.inFlight.size > 0).map((c) => c.id);
  }

  /** Kills a container as Lambda kills one that crashed: its invocation fails, it is never reused. */
  kill(id: number): void {
    for (const c of this.#all) if (c.id === id) c.process.kill('SIGKILL');
  }

  resetCounters(): void {
    this.maxBusy = this.busy;
    this.counters = emptyCounters();
  }

  async close(): Promise<void> {
    const all = [...this.#all];
    for (const c of all) c.process.kill('SIGKILL');
    await Promise.all(all.map((c) => (c.process.exitCode === null ? once(c.process, 'exit') : 0)));
  }

  #send(container: Container, event: ApiEvent): Promise<FromContainer> {
    const id = ++this.#invocationIds;
    return new Promise<FromContainer>((resolve, reject) => {
      container.inFlight.set(id, { resolve, reject });
      const message: ToContainer = { id, event, remainingMs: this.options.timeoutMs };
      container.process.send(message);
    }).finally(() => {
      container.inFlight.delete(id);
    });
  }

  #count(action: string, billedMs: number, usage: InvocationUsage | undefined): void {
    const c = this.counters;
    c.invocations += 1;
    c.billedMs += billedMs;
    const t = c.byAction[action] ?? emptyTotals();
    c.byAction[action] = t;
    t.calls += 1;
    t.billedMs += billedMs;
    if (usage === undefined) return;
    t.readUnits += usage.readUnits;
    t.writeUnits += usage.writeUnits;
    t.stateReads += usage.stateReads;
    t.lostStateWrites += usage.lostStateWrites;
    t.cpuMs += usage.cpuMs;
    t.dynamoRequests += Object.values(usage.requests).reduce((n, r) => n + r, 0);
  }

  async #coldStart(): Promise<Container> {
    const child = fork(ENTRY, [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        SWF_CONTAINER_SETTINGS: JSON.stringify(this.options.settings),
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const container: Container = { id: ++this.#created, process: child, inFlight: new Map() };
    this.#all.add(container);
    child.on('message', (message: FromContainer) => {
      if ('id' in message) container.inFlight.get(message.id)?.resolve(message);
    });
    child.on('exit', () => {
      this.#all.delete(container);
      const at = this.#idle.indexOf(container);
      if (at >= 0) this.#idle.splice(at, 1);
      for (const call of container.inFlight.values())
        call.reject(new ContainerDied(`container ${container.id} exited`));
    });
    const [ready] = (await once(child, 'message')) as [FromContainer];
    if (!('ready' in ready)) throw new Error(`container ${container.id} did not start`);
    this.#limitCpu(child);
    return container;
  }

  /** Holds a started container to its share of a CPU, until it exits. */
  #limitCpu(child: ChildProcess): void {
    const share = this.options.cpuShare;
    if (share === undefined || child.pid === undefined) return;
    const group = CpuShareGroup.create(`swf-lambda-${process.pid}-${child.pid}`, share);
    group.add(child.pid);
    child.once('exit', () => group.remove());
  }
}

const emptyTotals = (): ActionTotals => ({
  calls: 0,
  billedMs: 0,
  readUnits: 0,
  writeUnits: 0,
  stateReads: 0,
  lostStateWrites: 0,
  dynamoRequests: 0,
  cpuMs: 0,
});

const emptyCounters = (): ContainerCounters => ({
  invocations: 0,
  throttles: 0,
  billedMs: 0,
  byAction: {},
});

/** The SWF action a front door request calls (X-Amz-Target: SimpleWorkflowService.<Action>). */
export const actionOf = (event: ApiEvent) => {
  const target = event.headers['x-amz-target'] ?? '';
  return target.slice(target.indexOf('.') + 1);
};
