/**
 * What a workflow's code gets: operations that become decisions (activities, timers, children,
 * Lambda tasks, signals and cancel requests to other executions), waits on what comes in (signals,
 * a cancel request), and deterministic stand-ins for the clock and randomness. Everything else the
 * code does must be deterministic: the same history must lead it to the same decisions.
 */
import type { WorkflowExecution } from '@aws-sdk/client-swf';
import {
  recordMarker,
  requestCancelExternalWorkflowExecution,
  signalExternalWorkflowExecution,
} from '../decider/decisions.js';
import type { Logger } from '../logger.js';
import { ActivityOp, TimerOp } from './activity-ops.js';
import { ChildOp, ExternalOp } from './child-ops.js';
import { CloseAsCanceled, ContinueAsNew, detailsText } from './close.js';
import { decodePayload, encodePayload, PAYLOAD_MAX, PayloadError } from './codec.js';
import { SIDE_EFFECT_MARKER } from './commands.js';
import {
  type ActivityDefinition,
  defineLambda,
  type LambdaDefinition,
  type WorkflowReference,
} from './definitions.js';
import { type Duration, durationSeconds } from './duration.js';
import { WorkflowFailure } from './errors.js';
import type { Operation } from './operation.js';
import { type RaceOptions, race, scoped } from './race.js';
import {
  type ActivityCallOptions,
  activityDecision,
  type ChildOptions,
  type ContinueAsNewOptions,
  childDecision,
  childWorkflowId,
  continueAsNewDecision,
  lambdaDecision,
} from './requests.js';
import { retryDelaySeconds, shouldRetry } from './retry.js';
import type { RunApi, WorkflowInfo } from './run-api.js';
import { Scope } from './scope.js';
import { CancelRequestOp, LambdaOp, SignalOp, signalInput } from './wait-ops.js';

/** A signal as the workflow receives it: its name and its decoded input (null when it had none). */
export interface Signal<T = unknown> {
  readonly name: string;
  readonly input: T;
  /** The execution that sent it, when another one did (SignalExternalWorkflowExecution). */
  readonly sender: WorkflowExecution | undefined;
}

/** A child workflow: its result, its workflowId, and when it started. */
export type ChildOperation<O> = Operation<O> & {
  readonly workflowId: string;
  /** Resolves with the child's execution once it has started (rejects if it could not start). */
  readonly started: Promise<WorkflowExecution>;
  /** Signals the child (SignalExternalWorkflowExecution). */
  signal(signalName: string, input?: unknown): Operation<void>;
};

export class WorkflowContext {
  readonly #run: RunApi;
  readonly #scope: Scope;
  #log: Logger | undefined;

  constructor(run: RunApi, scope: Scope) {
    this.#run = run;
    this.#scope = scope;
  }

  /** The execution, its type and what it was started with. */
  get info(): WorkflowInfo {
    return this.#run.info;
  }

  /** Whether the code is re-running a decision task the history has already answered. */
  get isReplaying(): boolean {
    return this.#run.isReplaying;
  }

  /** Whether the execution's cancellation was requested (WorkflowExecutionCancelRequested). */
  get cancelRequested(): boolean {
    return this.#run.cancelRequested;
  }

  /** The worker's logger, silent while replaying (each line is written once, when it happens). */
  get log(): Logger {
    this.#log ??= replayAwareLogger(this.#run);
    return this.#log;
  }

  /** The time of the decision task being run (its DecisionTaskStarted), not the host's clock. */
  now(): Date {
    return new Date(this.#run.now().getTime());
  }

  /** A number in [0, 1), the same on every replay (seeded by the run). */
  random(): number {
    return this.#run.random();
  }

  /** A version 4 UUID, the same on every replay (seeded by the run). */
  uuid(): string {
    return this.#run.uuid();
  }

  /**
   * Runs an activity and resolves with its decoded result. It rejects with ActivityFailedError,
   * ActivityTimedOutError, ActivityCanceledError or ActivityScheduleFailedError; with a `retry`
   * policy, a failure or timeout is tried again after a durable timer.
   */
  activity<I, O>(
    definition: ActivityDefinition<I, O>,
    input: I,
    options: ActivityCallOptions = {},
  ): Operation<O> {
    this.#run.assertRunning();
    const activityId = options.activityId ?? String(this.#run.nextId('activity'));
    const decision = activityDecision(definition, input, options, activityId);
    const attempt = (scope: Scope) =>
      new ActivityOp<O>(this.#run, scope, decision, definition.codec).start();
    const policy = options.retry ?? definition.options.retry;
    if (policy === undefined) return attempt(this.#scope);
    const scope = new Scope(this.#scope);
    const retried = async (): Promise<O> => {
      for (let n = 1; ; n++) {
        try {
          return await attempt(scope);
        } catch (error) {
          if (!shouldRetry(policy, error, n)) throw error;
          await this.#timer(scope, retryDelaySeconds(policy, n));
        }
      }
    };
    return scoped(scope, retried());
  }

  /** A durable timer (StartTimer): resolves when it fires. */
  sleep(duration: Duration): Operation<void> {
    this.#run.assertRunning();
    return this.#timer(this.#scope, durationSeconds(duration, 'the sleep duration'));
  }

  #timer(scope: Scope, seconds: number): Operation<void> {
    return new TimerOp(this.#run, scope, String(this.#run.nextId('timer')), seconds).start();
  }

  /**
   * The next signal of this name (one received before and not yet taken, else the next to come),
   * its input decoded. With a `timeout`, a timer runs beside the wait: undefined if it fires first
   * (the timer is cancelled when the signal comes first).
   */
  waitForSignal<T = unknown>(signalName: string): Operation<T>;
  waitForSignal<T = unknown>(
    signalName: string,
    options: { readonly timeout: Duration },
  ): Operation<T | undefined>;
  waitForSignal<T>(signalName: string, options?: { readonly timeout: Duration }) {
    this.#run.assertRunning();
    const seconds =
      options === undefined ? undefined : durationSeconds(options.timeout, 'the signal timeout');
    const scope = new Scope(this.#scope);
    const wait = new SignalOp<T>(
      this.#run,
      scope,
      signalName,
      (s) => signalInput(this.#run.codec, s) as T,
    );
    const signal = wait.start();
    if (seconds === undefined || wait.isSettled) return scoped(scope, signal);
    const timer = this.#timer(scope, seconds);
    const first = this.race({ signal, timer }).then((w) =>
      w.key === 'signal' ? w.value : undefined,
    );
    return scoped(scope, first);
  }

  /**
   * Every signal (or every signal of one name), as it comes: `for await (const s of ctx.signals())`.
   * Each is taken once, by whoever waits first.
   */
  signals<T = unknown>(signalName?: string): AsyncIterableIterator<Signal<T>> {
    this.#run.assertRunning();
    let pending: Operation<Signal<T>> | undefined;
    const next = async (): Promise<IteratorResult<Signal<T>>> => {
      pending = new SignalOp<Signal<T>>(this.#run, this.#scope, signalName, (s) => ({
        name: s.name,
        input: signalInput(this.#run.codec, s) as T,
        sender: s.sender,
      })).start();
      return { value: await pending, done: false };
    };
    const iterator: AsyncIterableIterator<Signal<T>> = {
      next,
      return: async () => {
        pending?.cancel();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Resolves once the execution's cancellation is requested (at once if it has been). */
  whenCancelRequested(): Operation<void> {
    return new CancelRequestOp(this.#run, this.#scope).start();
  }

  /**
   * Starts a child workflow and resolves with its decoded result; rejects with a ChildWorkflowError
   * (failed, timed out, canceled, terminated, or could not start).
   */
  child<I, O>(
    type: WorkflowReference<I, O>,
    input: I,
    options: ChildOptions = {},
  ): ChildOperation<O> {
    this.#run.assertRunning();
    const number = this.#run.nextId('child');
    const { workflowId: parentId, runId } = this.#run.info.workflowExecution;
    const workflowId = options.workflowId ?? childWorkflowId(parentId ?? '', runId ?? '', number);
    const decision = childDecision(type, input, { ...type.options, ...options }, workflowId);
    const op = new ChildOp<O>(this.#run, this.#scope, decision, type.codec);
    return Object.assign(op.start(), {
      workflowId,
      started: op.started,
      signal: (signalName: string, value?: unknown) =>
        this.signalWorkflow({ workflowId }, signalName, value),
    });
  }

  /** Signals another execution; resolves once SWF has delivered it (ExternalWorkflowExecutionSignaled). */
  signalWorkflow(
    target: { readonly workflowId: string; readonly runId?: string },
    signalName: string,
    input?: unknown,
  ): Operation<void> {
    this.#run.assertRunning();
    const encoded = encodePayload(this.#run.codec, input, `the input of signal ${signalName}`);
    const decision = signalExternalWorkflowExecution({ ...target, signalName, input: encoded });
    return new ExternalOp(this.#run, this.#scope, decision, 'signal', target.workflowId).start();
  }

  /** Requests another execution's cancellation; resolves once SWF has recorded the request. */
  requestCancelWorkflow(target: {
    readonly workflowId: string;
    readonly runId?: string;
  }): Operation<void> {
    this.#run.assertRunning();
    const decision = requestCancelExternalWorkflowExecution({ ...target });
    return new ExternalOp(this.#run, this.#scope, decision, 'cancel', target.workflowId).start();
  }

  /** Runs an AWS Lambda function as a Lambda task and resolves with its decoded result. */
  lambda<I, O>(
    fn: LambdaDefinition<I, O> | string,
    input: I,
    options: {
      readonly startToCloseTimeout?: Duration;
      readonly id?: string;
      readonly control?: string;
    } = {},
  ): Operation<O> {
    this.#run.assertRunning();
    const definition = typeof fn === 'string' ? defineLambda<I, O>(fn) : fn;
    const id = options.id ?? String(this.#run.nextId('lambda'));
    const decision = lambdaDecision(definition, input, id, options);
    return new LambdaOp<O>(this.#run, this.#scope, decision, definition.codec).start();
  }

  /**
   * Promise.race that leaves nothing running by accident: once the first settles, every other
   * operation is cancelled (or, with `{ losers: 'leave' }`, explicitly left). Given an array it
   * resolves with the winner's value; given an object, with `{ key, value }` of the winner.
   */
  race<T extends readonly unknown[]>(ops: T, options?: RaceOptions): Promise<Awaited<T[number]>>;
  race<T extends Readonly<Record<string, PromiseLike<unknown>>>>(
    ops: T,
    options?: RaceOptions,
  ): Promise<{ [K in keyof T]: { key: K; value: Awaited<T[K]> } }[keyof T]>;
  race(
    ops: readonly unknown[] | Readonly<Record<string, PromiseLike<unknown>>>,
    options: RaceOptions = {},
  ) {
    return race(ops, options);
  }

  /**
   * Runs `fn` in a cancellation scope: cancelling the returned operation cancels every operation
   * `fn` started through the context it gets (activities get RequestCancelActivityTask). A
   * `detached` scope is not cancelled with the scope it was started in (for clean-up work).
   */
  scope<T>(
    fn: (ctx: WorkflowContext) => Promise<T>,
    options: { readonly detached?: boolean } = {},
  ): Operation<T> {
    this.#run.assertRunning();
    const scope = new Scope(options.detached ? undefined : this.#scope);
    const inner = new WorkflowContext(this.#run, scope);
    let result: Promise<T>;
    try {
      result = Promise.resolve(fn(inner));
    } catch (error) {
      result = Promise.reject(error);
    }
    return scoped(scope, result);
  }

  /**
   * Runs `fn` once, the first time the code gets here, and records its value in a marker; replays
   * take the recorded value instead of running it again. `fn` must be synchronous.
   */
  sideEffect<T>(fn: () => T): T {
    this.#run.assertRunning();
    const what = "a side effect's value";
    if (this.#run.isReplaying) {
      const event = this.#run.emit(recordMarker(SIDE_EFFECT_MARKER));
      if (event === undefined) throw new Error('the replay does not match the history here');
      if (event.eventType === 'MarkerRecorded')
        return decodePayload(
          this.#run.codec,
          event.markerRecordedEventAttributes?.details,
          what,
        ) as T;
      this.log.warn('the side effect was not recorded (RecordMarkerFailed): it runs again');
      return fn();
    }
    const value = fn();
    if (value instanceof Promise)
      throw new TypeError(
        'ctx.sideEffect takes a synchronous function: run asynchronous work in an activity',
      );
    const details = encodePayload(this.#run.codec, value, what);
    this.#run.emit(recordMarker(SIDE_EFFECT_MARKER, details));
    return decodePayload(this.#run.codec, details, what) as T;
  }

  /**
   * Whether this run takes the code path of change `patchId`: true for runs that reach it on code
   * that has the change (a marker records it), false for runs that passed this point before.
   */
  patched(patchId: string): boolean {
    this.#run.assertRunning();
    return this.#run.patched(patchId);
  }

  /** Records a marker (RecordMarker) in the history: a string as it is, another value encoded. */
  recordMarker(markerName: string, details?: unknown): void {
    this.#run.assertRunning();
    const text = detailsText(details, this.#run.codec);
    if (text !== undefined && text.length > PAYLOAD_MAX)
      throw new PayloadError(
        `the details of marker ${markerName}`,
        `are over ${PAYLOAD_MAX} characters`,
      );
    this.#run.emit(recordMarker(markerName, text));
  }

  /** Closes this run and starts a new one of the same workflow with `input` (ContinueAsNew). */
  continueAsNew(input?: unknown, options: ContinueAsNewOptions = {}): never {
    throw new ContinueAsNew(continueAsNewDecision(this.#run.codec, input, options));
  }

  /** Fails the execution with this reason and details: `return ctx.fail('order invalid', verdict)`. */
  fail(reason: string, details?: unknown): never {
    throw new WorkflowFailure(reason, details);
  }

  /** Closes the execution as canceled (after a cancel request, once the clean-up is done). */
  closeAsCanceled(details?: unknown): never {
    throw new CloseAsCanceled(detailsText(details, this.#run.codec));
  }
}

function replayAwareLogger(run: RunApi): Logger {
  const { workflowId, runId } = run.info.workflowExecution;
  const at =
    (level: keyof Logger) =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (!run.isReplaying) run.logger[level](message, { workflowId, runId, ...fields });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
