/** Lambda tasks, signal waits and the wait for a cancel request, as operations. */
import type { Decision, HistoryEvent } from '@aws-sdk/client-swf';
import { type Codec, decodePayload } from './codec.js';
import { CanceledError, LambdaFunctionError } from './errors.js';
import { Op } from './operation.js';
import type { RunApi } from './run-api.js';
import type { Scope } from './scope.js';
import type { ReceivedSignal, SignalWaiter } from './signals.js';

/**
 * A Lambda task: ScheduleLambdaFunction, settled by its close. SWF cannot cancel one, so cancelling
 * drops it: the promise rejects at once and the task's result, when it comes, is ignored.
 */
export class LambdaOp<O> extends Op<O> {
  constructor(
    run: RunApi,
    scope: Scope,
    private readonly decision: Decision,
    private readonly codec: Codec,
  ) {
    const a = decision.scheduleLambdaFunctionDecisionAttributes;
    super(run, scope, `Lambda function ${a?.name ?? ''} (id ${a?.id ?? ''})`);
  }

  protected begin(): void {
    this.run.emit(this.decision, this);
  }

  override deliver(e: HistoryEvent): void {
    if (e.eventType === 'LambdaFunctionCompleted') {
      const result = e.lambdaFunctionCompletedEventAttributes?.result;
      this.settleWith(() => decodePayload(this.codec, result, `the result of ${this.what}`) as O);
      return;
    }
    const failure = this.#failureOf(e);
    if (failure !== undefined) this.reject(failure);
  }

  #failureOf(e: HistoryEvent): LambdaFunctionError | undefined {
    const a = this.decision.scheduleLambdaFunctionDecisionAttributes;
    const fail = (kind: LambdaFunctionError['kind'], reason?: string, details?: string) =>
      new LambdaFunctionError(kind, a?.id ?? '', a?.name ?? '', e.eventId ?? 0, reason, details);
    switch (e.eventType) {
      case 'LambdaFunctionFailed': {
        const f = e.lambdaFunctionFailedEventAttributes;
        return fail('failed', f?.reason, f?.details);
      }
      case 'LambdaFunctionTimedOut':
        return fail('timedOut', e.lambdaFunctionTimedOutEventAttributes?.timeoutType);
      case 'ScheduleLambdaFunctionFailed':
        return fail('scheduleFailed', e.scheduleLambdaFunctionFailedEventAttributes?.cause);
      case 'StartLambdaFunctionFailed': {
        const f = e.startLambdaFunctionFailedEventAttributes;
        return fail('startFailed', f?.cause, f?.message);
      }
      default:
        return undefined;
    }
  }
}

/** Waits for the next signal of a name (or of any name), which it takes from the others. */
export class SignalOp<T> extends Op<T> implements SignalWaiter {
  constructor(
    run: RunApi,
    scope: Scope,
    readonly name: string | undefined,
    private readonly value: (signal: ReceivedSignal) => T,
  ) {
    super(run, scope, name === undefined ? 'the wait for a signal' : `the wait for signal ${name}`);
  }

  protected begin(): void {
    this.run.signals.wait(this);
  }

  take(signal: ReceivedSignal): void {
    this.settleWith(() => this.value(signal));
  }

  protected override onCancel(): void {
    this.run.signals.stopWaiting(this);
    this.reject(new CanceledError(this.what));
  }
}

/** A signal's input decoded by the workflow's codec; a signal sent without input is null. */
export function signalInput(codec: Codec, signal: ReceivedSignal): unknown {
  if (signal.input === undefined) return null;
  return decodePayload(codec, signal.input, `the input of signal ${signal.name}`);
}

/** Resolves when the execution's cancellation is requested (at once if it has been). */
export class CancelRequestOp extends Op<void> {
  constructor(run: RunApi, scope: Scope) {
    super(run, scope, 'the wait for a cancel request');
  }

  protected begin(): void {
    if (this.run.cancelRequested) this.resolve();
    else this.run.onCancelRequested(() => this.resolve());
  }
}
