import { type ActivityTask, PollForActivityTaskCommand, type SWFClient } from '@aws-sdk/client-swf';
import { describeError, isAbort, isRetryable } from '../errors.js';
import { consoleLogger, type Logger } from '../logger.js';
import { defaultIdentity, onProcessSignals, sleep } from '../util.js';
import type { Activity } from './context.js';
import { TypeHeartbeatTimeouts } from './heartbeat-timeouts.js';
import type { RunningTask, TaskEnd } from './run-task.js';
import { Slots } from './slots.js';
import { startActivityTask } from './start-task.js';

export { DEFAULT_CANCEL_GRACE_MS, DEFAULT_HEARTBEAT_INTERVAL_MS } from './start-task.js';
export const DEFAULT_SHUTDOWN_GRACE_MS = 20_000;

export interface ActivityWorkerOptions {
  readonly client: SWFClient;
  readonly domain: string;
  readonly taskList: string;
  /** Activity functions by activity type name. */
  readonly activities: Readonly<Record<string, Activity>>;
  readonly identity?: string;
  /** Activities run at once: the slots (default 10). The worker polls only while a slot is free. */
  readonly concurrency?: number;
  /** Long polls outstanding at once, each holding a free slot (default min(concurrency, 4)). */
  readonly pollers?: number;
  /**
   * Time between automatic heartbeats of a running activity (default 1 s). It bounds how late a
   * cancellation reaches `ctx.signal` (one interval plus a round trip). A type whose registered
   * default heartbeat timeout needs beats more often gets them (a third of that timeout; the worker
   * describes each type once); a shorter timeout a decider gives one task is not seen.
   */
  readonly heartbeatIntervalMs?: number;
  /** Time an activity gets to return after its signal fires before it is abandoned (default 10 s). */
  readonly cancelGraceMs?: number;
  /** Time in-flight activities get to finish on shutdown before their signal fires (default 20 s). */
  readonly shutdownGraceMs?: number;
  /** Process signals that trigger shutdown() (default SIGTERM and SIGINT; [] for none). */
  readonly shutdownSignals?: readonly NodeJS.Signals[];
  readonly logger?: Logger;
  /** Called once per task when its slot is freed, with what became of it. */
  readonly onTaskEnd?: (end: TaskEnd) => void;
}

/**
 * Polls an activity task list and runs activities in a fixed number of slots, with automatic
 * heartbeats, cooperative cancellation through `ctx.signal` and graceful shutdown.
 */
export class ActivityWorker {
  readonly #o: ActivityWorkerOptions;
  readonly #logger: Logger;
  readonly #slots: Slots;
  readonly #polls = new AbortController();
  readonly #shuttingDown = new AbortController();
  readonly #running = new Set<RunningTask>();
  #pollers: Promise<void>[] = [];
  #stopping = false;
  #removeSignals: () => void = () => {};
  #shutdown: Promise<void> | undefined;
  #abandoned = 0;
  readonly #heartbeatTimeouts: TypeHeartbeatTimeouts;

  constructor(options: ActivityWorkerOptions) {
    this.#o = options;
    this.#logger = options.logger ?? consoleLogger;
    this.#heartbeatTimeouts = new TypeHeartbeatTimeouts(
      options.client,
      options.domain,
      this.#logger,
    );
    this.#slots = new Slots(Math.max(1, options.concurrency ?? 10));
  }

  /** Starts polling; returns the worker. */
  start(): this {
    if (this.#pollers.length > 0 || this.#stopping) return this;
    const signals = this.#o.shutdownSignals ?? ['SIGTERM', 'SIGINT'];
    this.#removeSignals = onProcessSignals(signals, (signal) => {
      this.#logger.info(`${signal}: activity worker shutting down`);
      void this.shutdown();
    });
    const pollers = Math.max(1, Math.min(this.#o.pollers ?? 4, this.#slots.size));
    this.#pollers = Array.from({ length: pollers }, () => this.#pollLoop());
    return this;
  }

  /**
   * Stops polling at once (aborting outstanding long polls), fires `ctx.shuttingDown`, lets running
   * activities finish within `shutdownGraceMs`, then fires their `signal` and gives each
   * `cancelGraceMs` more. Resolves when every slot is free.
   */
  shutdown(): Promise<void> {
    this.#shutdown ??= this.#stop();
    return this.#shutdown;
  }

  /** Slots in use by running activities. */
  get inFlight(): number {
    return this.#running.size;
  }

  get concurrency(): number {
    return this.#slots.size;
  }

  /** Activities that ignored their signal past the grace period and were abandoned. */
  get abandoned(): number {
    return this.#abandoned;
  }

  get isRunning(): boolean {
    return this.#pollers.length > 0 && !this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#stopping = true;
    this.#removeSignals();
    this.#polls.abort(new Error('worker shutting down'));
    this.#slots.close();
    this.#shuttingDown.abort(new Error('worker shutting down'));
    await Promise.all(this.#pollers);
    const grace = this.#o.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    const timeout = new AbortController();
    await Promise.race([this.#allDone(), sleep(grace, timeout.signal)]);
    timeout.abort();
    if (this.#running.size > 0) {
      this.#logger.warn('shutdown grace elapsed: cancelling running activities', {
        running: this.#running.size,
      });
      for (const task of this.#running) task.cancel('shutdown');
    }
    await this.#allDone();
  }

  #allDone(): Promise<unknown> {
    return Promise.all([...this.#running].map((t) => t.done));
  }

  async #pollLoop(): Promise<void> {
    while (!this.#stopping) {
      if (!(await this.#slots.acquire())) return;
      const task = await this.#poll();
      if (task === undefined) this.#slots.release();
      else this.#start(task);
    }
  }

  async #poll(): Promise<(ActivityTask & { taskToken: string }) | undefined> {
    const { client, domain, taskList } = this.#o;
    try {
      const task = await client.send(
        new PollForActivityTaskCommand({
          domain,
          taskList: { name: taskList },
          identity: this.#o.identity ?? defaultIdentity('activity-worker'),
        }),
        { abortSignal: this.#polls.signal },
      );
      const { taskToken } = task;
      return taskToken ? { ...task, taskToken } : undefined;
    } catch (error) {
      if (this.#stopping || isAbort(error)) return undefined;
      const level = isRetryable(error) ? 'warn' : 'error';
      this.#logger[level]('PollForActivityTask failed', { error: describeError(error) });
      await sleep(1_000, this.#polls.signal);
      return undefined;
    }
  }

  #start(task: ActivityTask & { taskToken: string }): void {
    const running = startActivityTask(
      { ...this.#o, logger: this.#logger },
      task,
      this.#shuttingDown.signal,
      this.#heartbeatTimeouts.of(task.activityType),
    );
    this.#running.add(running);
    void running.done.then((end) => {
      this.#running.delete(running);
      if (end.outcome === 'abandoned') this.#abandoned++;
      this.#slots.release();
      try {
        this.#o.onTaskEnd?.(end);
      } catch (error) {
        // The caller's own hook: its failure must not end the process or the worker.
        this.#logger.error('onTaskEnd threw', { error: describeError(error) });
      }
    });
  }
}
