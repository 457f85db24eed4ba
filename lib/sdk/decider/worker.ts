import type { PollForDecisionTaskCommandOutput, SWFClient } from '@aws-sdk/client-swf';
import { describeError, isAbort, isRetryable } from '../errors.js';
import { consoleLogger, type Logger } from '../logger.js';
import { onProcessSignals, sleep } from '../util.js';
import { checkDeciders, type Deciders, decideTask, pollDecisionCommand } from './decide-task.js';

export type { Decider, DeciderResult, Deciders } from './decide-task.js';

/** A DeciderWorker's settings: its list, and `decider` or `workflows` (or both) to decide it. */
export interface DeciderWorkerOptions extends Deciders {
  readonly client: SWFClient;
  readonly domain: string;
  readonly taskList: string;
  readonly identity?: string;
  /** Decision tasks handled at once (default 2). */
  readonly concurrency?: number;
  /** How long shutdown() waits for in-flight decision tasks (default 20 s). */
  readonly shutdownGraceMs?: number;
  /** Process signals that trigger shutdown() (default SIGTERM and SIGINT; [] for none). */
  readonly shutdownSignals?: readonly NodeJS.Signals[];
  readonly logger?: Logger;
  /** History page size asked of PollForDecisionTask (default: the service's, 1000). */
  readonly maximumPageSize?: number;
}

/**
 * Polls a decision task list, replays each task's full history (every page) into a `WorkflowState`
 * for a decider (or through a workflow's code, for workflows as code), and answers
 * RespondDecisionTaskCompleted.
 */
export class DeciderWorker {
  readonly #options: DeciderWorkerOptions;
  readonly #logger: Logger;
  readonly #polls = new AbortController();
  #loops: Promise<void>[] = [];
  #stopping = false;
  #removeSignals: () => void = () => {};
  #shutdown: Promise<void> | undefined;

  constructor(options: DeciderWorkerOptions) {
    checkDeciders(options);
    this.#options = options;
    this.#logger = options.logger ?? consoleLogger;
  }

  /** Starts polling; returns the worker. */
  start(): this {
    if (this.#loops.length > 0 || this.#stopping) return this;
    const signals = this.#options.shutdownSignals ?? ['SIGTERM', 'SIGINT'];
    this.#removeSignals = onProcessSignals(signals, (signal) => {
      this.#logger.info(`${signal}: decider worker shutting down`);
      void this.shutdown();
    });
    const concurrency = Math.max(1, this.#options.concurrency ?? 2);
    this.#loops = Array.from({ length: concurrency }, () => this.#loop());
    return this;
  }

  /** Stops polling at once, waits for in-flight decision tasks up to the grace time. */
  shutdown(): Promise<void> {
    this.#shutdown ??= this.#stop();
    return this.#shutdown;
  }

  get isRunning(): boolean {
    return this.#loops.length > 0 && !this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#stopping = true;
    this.#removeSignals();
    this.#polls.abort(new Error('worker shutting down'));
    const grace = this.#options.shutdownGraceMs ?? 20_000;
    const timeout = new AbortController();
    const all = Promise.all(this.#loops).then(() => 'done' as const);
    const winner = await Promise.race([all, sleep(grace, timeout.signal).then(() => 'late')]);
    timeout.abort();
    if (winner === 'late')
      this.#logger.warn('decider worker: in-flight decision tasks outlived the shutdown grace');
  }

  async #loop(): Promise<void> {
    while (!this.#stopping) {
      const task = await this.#poll();
      if (task === undefined) continue;
      await decideTask({ ...this.#options, logger: this.#logger }, task);
    }
  }

  async #poll(): Promise<PollForDecisionTaskCommandOutput | undefined> {
    try {
      const task = await this.#options.client.send(pollDecisionCommand(this.#options), {
        abortSignal: this.#polls.signal,
      });
      return task.taskToken ? task : undefined;
    } catch (error) {
      if (this.#stopping || isAbort(error)) return undefined;
      const level = isRetryable(error) ? 'warn' : 'error';
      this.#logger[level]('PollForDecisionTask failed', { error: describeError(error) });
      await sleep(1_000, this.#polls.signal);
      return undefined;
    }
  }
}
