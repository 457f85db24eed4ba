import {
  type Decision,
  type HistoryEvent,
  PollForDecisionTaskCommand,
  type PollForDecisionTaskCommandOutput,
  RespondDecisionTaskCompletedCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { describeError, isAbort, isRetryable } from '../errors.js';
import { consoleLogger, type Logger } from '../logger.js';
import { defaultIdentity, onProcessSignals, report, sleep } from '../util.js';
import { workflowState } from './replay.js';
import type { WorkflowState } from './state.js';

/** What a decider answers: the decisions, and optionally an executionContext to record. */
export type DeciderResult =
  | readonly Decision[]
  | { readonly decisions: readonly Decision[]; readonly executionContext?: string };

/** A decider is a plain function of the replayed state: test it with `workflowState({events})`. */
export type Decider = (state: WorkflowState) => DeciderResult | Promise<DeciderResult>;

export interface DeciderWorkerOptions {
  readonly client: SWFClient;
  readonly domain: string;
  readonly taskList: string;
  /** One decider for every workflow type on the list, or one per workflow type name. */
  readonly decider: Decider | Readonly<Record<string, Decider>>;
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
 * Polls a decision task list, replays each task's full history (every page) into a `WorkflowState`,
 * asks the decider, and answers RespondDecisionTaskCompleted.
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
      await this.#handle(task);
    }
  }

  async #poll(): Promise<PollForDecisionTaskCommandOutput | undefined> {
    try {
      const task = await this.#options.client.send(this.#pollCommand(), {
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

  #pollCommand(nextPageToken?: string): PollForDecisionTaskCommand {
    const { domain, taskList, maximumPageSize } = this.#options;
    return new PollForDecisionTaskCommand({
      domain,
      taskList: { name: taskList },
      identity: this.#options.identity ?? defaultIdentity('decider'),
      ...(maximumPageSize === undefined ? {} : { maximumPageSize }),
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    });
  }

  async #handle(first: PollForDecisionTaskCommandOutput): Promise<void> {
    const taskToken = first.taskToken ?? '';
    const name = first.workflowType?.name ?? '';
    try {
      const events = await this.#allEvents(first);
      const state = workflowState({ ...first, taskToken, events });
      const decider = this.#deciderFor(name);
      const result = await decider(state);
      const { decisions, executionContext } =
        'decisions' in result ? result : { decisions: result };
      await report(
        () =>
          this.#options.client.send(
            new RespondDecisionTaskCompletedCommand({
              taskToken,
              decisions: [...decisions],
              ...(executionContext === undefined ? {} : { executionContext }),
            }),
          ),
        'RespondDecisionTaskCompleted',
        this.#logger,
      );
    } catch (error) {
      // The task is left to time out and be rescheduled, as SWF does for a decider that crashed.
      this.#logger.error('decider failed; the decision task will time out', {
        workflowType: name,
        workflowId: first.workflowExecution?.workflowId,
        error: describeError(error),
      });
    }
  }

  /** Every history page of a decision task: PollForDecisionTask again with nextPageToken. */
  async #allEvents(first: PollForDecisionTaskCommandOutput): Promise<HistoryEvent[]> {
    const events = [...(first.events ?? [])];
    let token = first.nextPageToken;
    while (token) {
      const page = await this.#options.client.send(this.#pollCommand(token));
      events.push(...(page.events ?? []));
      token = page.nextPageToken;
    }
    return events;
  }

  #deciderFor(workflowTypeName: string): Decider {
    const { decider } = this.#options;
    if (typeof decider === 'function') return decider;
    const found = decider[workflowTypeName];
    if (found === undefined) throw new Error(`no decider for workflow type ${workflowTypeName}`);
    return found;
  }
}
