import type { WorkflowExecution } from '@aws-sdk/client-swf';

/** A signal the execution received (WorkflowExecutionSignaled), its input as sent. */
export interface ReceivedSignal {
  readonly eventId: number;
  readonly name: string;
  readonly input: string | undefined;
  readonly sender: WorkflowExecution | undefined;
}

/** Someone waiting for a signal: of one name, or (`name` undefined) of any. */
export interface SignalWaiter {
  readonly name: string | undefined;
  take(signal: ReceivedSignal): void;
}

const accepts = (waiter: SignalWaiter, signal: ReceivedSignal) =>
  waiter.name === undefined || waiter.name === signal.name;

/**
 * The signals not yet taken, and who waits for them. Each signal goes to one waiter, the one that
 * began waiting first; one nobody waits for is kept, in order, for the next who asks.
 */
export class SignalBox {
  readonly #kept: ReceivedSignal[] = [];
  readonly #waiters: SignalWaiter[] = [];

  receive(signal: ReceivedSignal): void {
    const index = this.#waiters.findIndex((w) => accepts(w, signal));
    if (index < 0) {
      this.#kept.push(signal);
      return;
    }
    const [waiter] = this.#waiters.splice(index, 1);
    waiter?.take(signal);
  }

  wait(waiter: SignalWaiter): void {
    const index = this.#kept.findIndex((s) => accepts(waiter, s));
    if (index < 0) {
      this.#waiters.push(waiter);
      return;
    }
    const [signal] = this.#kept.splice(index, 1);
    if (signal !== undefined) waiter.take(signal);
  }

  stopWaiting(waiter: SignalWaiter): void {
    const index = this.#waiters.indexOf(waiter);
    if (index >= 0) this.#waiters.splice(index, 1);
  }
}
