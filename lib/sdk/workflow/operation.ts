/**
 * An operation of a workflow: the promise its code awaits, settled by the replay from the events
 * about its decision, and cancellable. Each kind (activity, timer, child …) says what it asks for,
 * which events settle it, and what cancelling it sends.
 */
import type { HistoryEvent } from '@aws-sdk/client-swf';
import { CanceledError } from './errors.js';
import type { Deliverable, RunApi } from './run-api.js';
import type { Cancellable, Scope } from './scope.js';

/** What workflow code gets from an operation: a promise, and a way to cancel what it started. */
export type Operation<T> = Promise<T> & {
  /**
   * Cancels it: an activity is sent RequestCancelActivityTask (its promise rejects with
   * ActivityCanceledError once the activity acknowledges), a child workflow a cancel request; a timer,
   * a signal wait or a Lambda task is dropped at once (CanceledError). Nothing once it has settled.
   */
  cancel(): void;
};

const ignore = () => {};

export abstract class Op<T> implements Deliverable, Cancellable {
  readonly promise: Promise<T>;
  #resolve: (value: T) => void = ignore;
  #reject: (error: unknown) => void = ignore;
  #settled = false;
  #cancelRequested = false;

  constructor(
    protected readonly run: RunApi,
    protected readonly scope: Scope,
    /** What it is, for messages: "activity ShipOrder (activityId 3)". */
    readonly what: string,
  ) {
    this.promise = new Promise<T>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  get isSettled(): boolean {
    return this.#settled;
  }

  get isCancelRequested(): boolean {
    return this.#cancelRequested;
  }

  /** Begins it, unless its scope is cancelled already: then it is cancelled before it asks anything. */
  start(): Operation<T> {
    this.run.assertRunning();
    if (this.scope.isCancelled) this.reject(new CanceledError(this.what));
    else {
      this.scope.add(this);
      this.begin();
    }
    return Object.assign(this.promise, { cancel: () => this.cancel() });
  }

  cancel(): void {
    if (this.#settled || this.#cancelRequested) return;
    this.#cancelRequested = true;
    this.onCancel();
  }

  deliver(_event: HistoryEvent): void {}

  /** Asks for what it needs (a decision, a signal …). */
  protected abstract begin(): void;

  /** Cancels what it started; by default it is dropped at once. */
  protected onCancel(): void {
    this.reject(new CanceledError(this.what));
  }

  resolve(value: T): void {
    if (this.#settled) return;
    this.#settled = true;
    this.scope.remove(this);
    this.#resolve(value);
  }

  reject(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.scope.remove(this);
    // A lost race's loser may reject with nobody listening: that is no unhandled rejection.
    this.promise.catch(ignore);
    this.#reject(error);
  }

  /** Resolves with what `value` returns, or rejects with what it throws (a payload it cannot decode). */
  protected settleWith(value: () => T): void {
    try {
      this.resolve(value());
    } catch (error) {
      this.reject(error);
    }
  }
}
