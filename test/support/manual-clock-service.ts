/**
 * The service's operations over a test file's stores (DynamoDB Local, or memory) on a clock the
 * test moves, with a timer service the test drives: every deadline fire the service arms is kept, and handed to the same handler as
 * functions/timer.ts only when the test says so (on time, late, or not yet). What the stream function
 * carries out for a committed change (arming, children, parents) runs in process, in commit order,
 * before the next call.
 */

import { operationsByAction } from '../../lib/http/operations-by-action.js';
import { LOCAL_IDENTITY } from '../../lib/local/local-service.js';
import type { RequestContext } from '../../lib/operations/context.js';
import {
  carryOutRunChange,
  fireRunDeadline,
  type OutboxDeps,
} from '../../lib/operations/outbox.js';
import type { DeadlineFire } from '../../lib/ports/deadline-scheduler.js';
import type { LambdaInvoker } from '../../lib/ports/lambda-invoker.js';
import { operationDepsOver, type TestStores } from './stores.js';

export type Answer =
  | { readonly ok: true; readonly value: Record<string, unknown> | undefined }
  | { readonly ok: false; readonly fault: string; readonly message: string };

export class ManualClockService {
  readonly clock: { ms: number; now: () => number };
  readonly outbox: OutboxDeps;
  /** Fires armed and not yet handed over. */
  readonly armed: DeadlineFire[] = [];
  private readonly pending: (() => Promise<void>)[] = [];
  readonly errors: unknown[] = [];

  constructor(stores: TestStores, startMs: number, lambda?: LambdaInvoker) {
    const clock = { ms: startMs, now: () => clock.ms };
    this.clock = clock;
    let outbox: OutboxDeps | undefined;
    const deps = operationDepsOver(stores, {
      identity: LOCAL_IDENTITY,
      clock,
      polling: { maxWaitMs: 0, recheckMs: 0 },
      ...(lambda === undefined ? {} : { lambda }),
      onCommitted: (before, after) => {
        this.pending.push(async () => {
          if (outbox !== undefined) await carryOutRunChange(outbox, before, after);
        });
      },
    });
    outbox = {
      ...deps,
      scheduler: {
        arm: async (fire) => void this.armed.push(fire),
        disarm: async () => {},
      },
    };
    this.outbox = outbox;
  }

  /** What the stream function would do for every change committed so far, in commit order. */
  async drain(): Promise<void> {
    for (let job = this.pending.shift(); job !== undefined; job = this.pending.shift()) {
      try {
        await job();
      } catch (error) {
        this.errors.push(error);
      }
    }
  }

  async call(
    action: keyof typeof operationsByAction,
    input: Record<string, unknown>,
  ): Promise<Answer> {
    const request: RequestContext = {
      requestId: 'manual-clock',
      signal: new AbortController().signal,
    };
    const run = operationsByAction[action];
    if (run === undefined) throw new Error(`no operation ${action}`);
    try {
      const value = (await run(input, this.outbox, request)) as Record<string, unknown> | undefined;
      await this.drain();
      return { ok: true, value };
    } catch (error) {
      await this.drain();
      const e = error as { type?: string; name?: string; message?: string };
      const fault = e.type ?? e.name ?? 'Error';
      if (fault !== 'UnknownResourceFault' && fault !== 'ValidationException') throw error;
      return { ok: false, fault, message: e.message ?? '' };
    }
  }

  /** Must succeed. */
  async must(action: keyof typeof operationsByAction, input: Record<string, unknown>) {
    const answer = await this.call(action, input);
    if (!answer.ok) throw new Error(`${action}: ${answer.fault} ${answer.message}`);
    return answer.value ?? {};
  }

  private earliestArmed(runId?: string): DeadlineFire | undefined {
    let best: DeadlineFire | undefined;
    for (const f of this.armed)
      if ((runId === undefined || f.runId === runId) && (best === undefined || f.at < best.at))
        best = f;
    return best;
  }

  /**
   * Hands over every armed fire due by now (the clock's time), earliest first, until none is left; with
   * `runId`, only that run's (the timer service reaches runs in any order).
   */
  async deliverDue(runId?: string): Promise<void> {
    for (;;) {
      const f = this.earliestArmed(runId);
      if (f === undefined || f.at * 1000 > this.clock.ms) return;
      this.armed.splice(this.armed.indexOf(f), 1);
      await fireRunDeadline(this.outbox, f);
      await this.drain();
    }
  }

  /** The clock to `targetMs`, each fire handed over at its own time (never before the clock's). */
  async advancePunctual(targetMs: number): Promise<void> {
    for (;;) {
      const f = this.earliestArmed();
      if (f === undefined || f.at * 1000 > targetMs) break;
      this.clock.ms = Math.max(this.clock.ms, Math.ceil(f.at * 1000));
      await this.deliverDue();
    }
    this.clock.ms = Math.max(this.clock.ms, targetMs);
  }

  /** The clock to `targetMs`, then every fire due handed over at once (a late timer service). */
  async advanceLate(targetMs: number): Promise<void> {
    this.clock.ms = Math.max(this.clock.ms, targetMs);
    await this.deliverDue();
  }

  /** The clock to `targetMs`, no fire handed over (the timer service stalls). */
  advanceStalled(targetMs: number): void {
    this.clock.ms = Math.max(this.clock.ms, targetMs);
  }
}
