/**
 * What the test files of the SDK's activity cancellation share: an activity worker per test, shut
 * down after it, and the ways an execution is closed under a running activity (docs/sdk.md,
 * "Cancellable activities").
 */
import {
  RequestCancelWorkflowExecutionCommand,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { afterEach, expect } from 'vitest';
import {
  type Activity,
  type ActivityContext,
  type ActivityWorker,
  type ActivityWorkerOptions,
  decide,
} from '../../lib/sdk/index.js';
import type { Execution, SdkFixture } from './sdk-fixture.js';

/** The workers' heartbeat interval, within which a cancellation reaches the activity. */
export const INTERVAL_MS = 1_000;
/** A loaded 2-core machine may add this much to one heartbeat interval (one round trip, queueing). */
export const SLACK_MS = 1_000;

/** Starts activity workers on the file's fixture, each shut down once its test has ended. */
export function workersOf(fixture: () => SdkFixture) {
  const workers: ActivityWorker[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.shutdown()));
  });
  return (activity: Activity, options: Partial<ActivityWorkerOptions> = {}) => {
    const started = fixture().startWorker(activity, {
      heartbeatIntervalMs: INTERVAL_MS,
      ...options,
    });
    workers.push(started.w);
    return started;
  };
}

/** An activity that waits for its signal, noting what it saw; it honours the signal by throwing. */
export function honouring() {
  const seen: { ctx: ActivityContext; abortedAtStart: boolean; signalledAt?: number }[] = [];
  const activity: Activity = async (_input, ctx) => {
    const entry: (typeof seen)[number] = { ctx, abortedAtStart: ctx.signal.aborted };
    seen.push(entry);
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    entry.signalledAt = Date.now();
    throw ctx.signal.reason;
  };
  return { seen, activity };
}

/** The ways a test closes an execution whose activity runs, by name. */
export function closersOf(
  fixture: () => SdkFixture,
): Record<string, (e: Execution) => Promise<unknown>> {
  return {
    cancelled: async (e) => {
      await fixture().client.send(
        new RequestCancelWorkflowExecutionCommand({ domain: fixture().domain, ...e }),
      );
      await fixture().decideOnce(e, (state) => {
        expect(state.cancelRequested).toBe(true);
        return [decide.cancelWorkflowExecution('cancelled by test')];
      });
    },
    terminated: (e) =>
      fixture().client.send(
        new TerminateWorkflowExecutionCommand({ domain: fixture().domain, ...e }),
      ),
    completed: (e) => fixture().decideNow(e, [decide.completeWorkflowExecution('done early')]),
  };
}
