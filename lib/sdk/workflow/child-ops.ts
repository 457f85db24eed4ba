/** Child workflows, and signals and cancel requests to other executions, as operations. */
import type { Decision, HistoryEvent, WorkflowExecution, WorkflowType } from '@aws-sdk/client-swf';
import { requestCancelExternalWorkflowExecution } from '../decider/decisions.js';
import { type Codec, decodePayload } from './codec.js';
import {
  ChildWorkflowCanceledError,
  ChildWorkflowFailedError,
  ChildWorkflowStartFailedError,
  ChildWorkflowTerminatedError,
  ChildWorkflowTimedOutError,
  ExternalWorkflowError,
} from './errors.js';
import { Op } from './operation.js';
import type { RunApi } from './run-api.js';
import type { Scope } from './scope.js';

/**
 * A child workflow: StartChildWorkflowExecution, settled by the child's close. Cancelling it sends
 * RequestCancelExternalWorkflowExecution once the child has started (at once if it has).
 */
export class ChildOp<O> extends Op<O> {
  readonly workflowId: string;
  readonly #type: WorkflowType;
  readonly #started = new Deferred<WorkflowExecution>();
  #runId: string | undefined;

  constructor(
    run: RunApi,
    scope: Scope,
    private readonly decision: Decision,
    private readonly codec: Codec,
  ) {
    const a = decision.startChildWorkflowExecutionDecisionAttributes;
    const workflowId = a?.workflowId ?? '';
    const type = a?.workflowType ?? { name: '', version: '' };
    super(run, scope, `child workflow ${type.name} (workflowId ${workflowId})`);
    this.workflowId = workflowId;
    this.#type = type;
  }

  /** Resolves with the child's execution once it has started. */
  get started(): Promise<WorkflowExecution> {
    return this.#started.promise;
  }

  protected begin(): void {
    this.run.emit(this.decision, this);
  }

  protected override onCancel(): void {
    if (this.#runId !== undefined) this.#requestCancel(this.#runId);
  }

  #requestCancel(runId: string): void {
    this.run.emit(requestCancelExternalWorkflowExecution({ workflowId: this.workflowId, runId }));
  }

  override deliver(e: HistoryEvent): void {
    if (e.eventType === 'ChildWorkflowExecutionStarted') {
      const runId = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId ?? '';
      this.#runId = runId;
      this.#started.resolve({ workflowId: this.workflowId, runId });
      if (this.isCancelRequested) this.#requestCancel(runId);
      return;
    }
    const error = this.#failureOf(e);
    if (error !== undefined) {
      this.#started.reject(error);
      this.reject(error);
    } else if (e.eventType === 'ChildWorkflowExecutionCompleted') {
      const result = e.childWorkflowExecutionCompletedEventAttributes?.result;
      this.settleWith(() => decodePayload(this.codec, result, `the result of ${this.what}`) as O);
    }
  }

  #failureOf(e: HistoryEvent): Error | undefined {
    const [workflowId, type, id] = [this.workflowId, this.#type, e.eventId ?? 0];
    switch (e.eventType) {
      case 'ChildWorkflowExecutionFailed': {
        const a = e.childWorkflowExecutionFailedEventAttributes;
        return new ChildWorkflowFailedError(workflowId, type, id, a?.reason, a?.details);
      }
      case 'ChildWorkflowExecutionTimedOut': {
        const timeoutType = e.childWorkflowExecutionTimedOutEventAttributes?.timeoutType;
        return new ChildWorkflowTimedOutError(workflowId, type, id, timeoutType);
      }
      case 'ChildWorkflowExecutionCanceled': {
        const details = e.childWorkflowExecutionCanceledEventAttributes?.details;
        return new ChildWorkflowCanceledError(workflowId, type, id, details);
      }
      case 'ChildWorkflowExecutionTerminated':
        return new ChildWorkflowTerminatedError(workflowId, type, id);
      case 'StartChildWorkflowExecutionFailed': {
        const cause = e.startChildWorkflowExecutionFailedEventAttributes?.cause;
        return new ChildWorkflowStartFailedError(workflowId, type, id, cause);
      }
      default:
        return undefined;
    }
  }
}

/**
 * A signal to, or a cancel request of, another execution: settled when SWF has delivered it
 * (ExternalWorkflowExecutionSignaled / …CancelRequested) or could not (…Failed). Once sent it cannot
 * be withdrawn: cancelling it changes nothing.
 */
export class ExternalOp extends Op<void> {
  constructor(
    run: RunApi,
    scope: Scope,
    private readonly decision: Decision,
    private readonly kind: 'signal' | 'cancel',
    private readonly workflowId: string,
  ) {
    super(run, scope, `${kind === 'signal' ? 'signal to' : 'cancel request of'} ${workflowId}`);
  }

  protected begin(): void {
    this.run.emit(this.decision, this);
  }

  protected override onCancel(): void {}

  override deliver(e: HistoryEvent): void {
    const type = e.eventType ?? '';
    if (
      type === 'ExternalWorkflowExecutionSignaled' ||
      type === 'ExternalWorkflowExecutionCancelRequested'
    )
      this.resolve();
    else if (
      type === 'SignalExternalWorkflowExecutionFailed' ||
      type === 'RequestCancelExternalWorkflowExecutionFailed'
    ) {
      const cause =
        e.signalExternalWorkflowExecutionFailedEventAttributes?.cause ??
        e.requestCancelExternalWorkflowExecutionFailedEventAttributes?.cause;
      this.reject(new ExternalWorkflowError(this.kind, this.workflowId, e.eventId ?? 0, cause));
    }
  }
}

/** A promise with its settling functions, its rejection handled (nobody may ask for it). */
export class Deferred<T> {
  readonly promise: Promise<T>;
  resolve: (value: T) => void = () => {};
  reject: (error: unknown) => void = () => {};

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.promise.catch(() => {});
  }
}
