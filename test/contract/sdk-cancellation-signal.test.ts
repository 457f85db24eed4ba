/**
 * How soon the SDK's activity worker signals a cancelled activity: within one heartbeat interval
 * (docs/sdk.md, "Cancellable activities"). Wall-clock bounds, so the file runs in the timing
 * project, alone (vitest.config.ts); the rest of the contract is sdk-activity-cancellation.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, sleep } from '../../lib/sdk/index.js';
import {
  closersOf,
  honouring,
  INTERVAL_MS,
  SLACK_MS,
  workersOf,
} from '../sdk/cancellation-support.js';
import { SdkFixture, types } from '../sdk/sdk-fixture.js';
import { until } from '../sdk/support.js';

let fixture: SdkFixture;
beforeAll(async () => {
  fixture = await SdkFixture.start();
});
afterAll(() => fixture.close());
const worker = workersOf(() => fixture);
const closers = closersOf(() => fixture);

describe('the signal fires within one heartbeat interval', () => {
  it('is not aborted at start, and fires within one heartbeat interval of RequestCancelActivityTask', async () => {
    const { seen, activity } = honouring();
    const { taskList, logger, ends } = worker(activity);
    const execution = await fixture.startWithActivities(taskList);
    await until(() => seen.length === 1, 'the activity to start');
    expect(seen[0]?.abortedAtStart).toBe(false);
    await sleep(INTERVAL_MS * 1.5); // heartbeats are flowing and say nothing yet
    expect(seen[0]?.ctx.signal.aborted).toBe(false);

    await fixture.decideNow(execution, [decide.requestCancelActivityTask('a0')]);
    const requestedAt = Date.now(); // ActivityTaskCancelRequested is recorded
    await until(() => seen[0]?.signalledAt !== undefined, 'the signal');
    expect((seen[0]?.signalledAt ?? 0) - requestedAt).toBeLessThanOrEqual(INTERVAL_MS + SLACK_MS);
    expect(seen[0]?.ctx.cancelReason).toBe('cancelRequested');

    await until(() => ends.ends.length === 1, 'the task to end');
    expect(ends.ends[0]).toMatchObject({ outcome: 'canceled', reported: 'sent' });
    expect(types(await fixture.history(execution))).toContain('ActivityTaskCanceled');
    expect(logger.warnings()).toEqual([]);
  });

  it.each(Object.keys(closers))(
    'fires within one heartbeat interval of the execution being %s',
    async (how) => {
      const { seen, activity } = honouring();
      const { taskList, ends } = worker(activity);
      const execution = await fixture.startWithActivities(taskList);
      await until(() => seen.length === 1, 'the activity to start');
      expect(seen[0]?.abortedAtStart).toBe(false);

      const closedAt = Date.now();
      await closers[how]?.(execution);
      expect(await fixture.closeStatus(execution)).toBe(
        { cancelled: 'CANCELED', terminated: 'TERMINATED', completed: 'COMPLETED' }[how],
      );
      await until(() => seen[0]?.signalledAt !== undefined, 'the signal');
      expect((seen[0]?.signalledAt ?? 0) - closedAt).toBeLessThanOrEqual(INTERVAL_MS + SLACK_MS);
      expect(seen[0]?.ctx.cancelReason).toBe('taskGone');
      await until(() => ends.ends.length === 1, 'the task to end');
      expect(ends.ends[0]).toMatchObject({ outcome: 'dropped', reported: 'none' });
    },
  );

  it('fires within one heartbeat interval of the execution timing out', async () => {
    const { seen, activity } = honouring();
    const { taskList } = worker(activity);
    const execution = await fixture.startWithActivities(taskList, 1, { executionTimeout: 3 });
    await until(() => seen.length === 1, 'the activity to start');
    expect(seen[0]?.abortedAtStart).toBe(false);
    await until(
      async () => (await fixture.closeStatus(execution)) === 'TIMED_OUT',
      'the timeout',
      15_000,
    );
    const events = await fixture.history(execution);
    const timedOut = events.find((e) => e.eventType === 'WorkflowExecutionTimedOut');
    await until(() => seen[0]?.signalledAt !== undefined, 'the signal');
    const closedAt = timedOut?.eventTimestamp?.getTime() ?? Number.NaN;
    expect((seen[0]?.signalledAt ?? 0) - closedAt).toBeLessThanOrEqual(INTERVAL_MS + SLACK_MS);
    expect(seen[0]?.ctx.cancelReason).toBe('taskGone');
  });
});

describe('many at once', () => {
  it('three parallel activities of one execution are all signalled when it is cancelled', async () => {
    const { seen, activity } = honouring();
    const { w, taskList, ends } = worker(activity, { concurrency: 3 });
    const execution = await fixture.startWithActivities(taskList, 3);
    await until(() => seen.length === 3, 'three activities to start');
    expect(seen.map((s) => s.abortedAtStart)).toEqual([false, false, false]);
    const cancelledAt = Date.now();
    await closers.cancelled?.(execution);
    await until(() => seen.every((s) => s.signalledAt !== undefined), 'all three signals');
    for (const s of seen)
      expect((s.signalledAt ?? 0) - cancelledAt).toBeLessThanOrEqual(INTERVAL_MS + SLACK_MS);
    await until(() => ends.ends.length === 3, 'the three tasks to end');
    expect(w.inFlight).toBe(0);
  });
});
