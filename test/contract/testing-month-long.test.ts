/**
 * Five weeks of a workflow in seconds: a 30-day timer, a 7-day wait for a signal that times out, and
 * an activity tried again with waits that double up to 6 hours, in a time-skipping environment. Its
 * history shows the virtual times, each timer firing at the second it was due. (In the timing
 * project: the wall-clock bound is measured with nothing else running.)
 */
import type { HistoryEvent } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHARGE_CARD,
  CONFIRMATION_SECONDS,
  MONTH_LONG_ORDER,
  monthLongOrderActivities,
  monthLongOrderDecider,
  RETURN_WINDOW_SECONDS,
  retryDelaySeconds,
} from '../../examples/month-long-order-workflow.js';
import { type ClosedExecution, TestEnvironment } from '../../lib/testing/index.js';
import { dynamoEndpoint } from '../support/local.js';

let env: TestEnvironment;
const charges: string[] = [];
let closed: ClosedExecution;
let wallMs: number;

beforeAll(async () => {
  env = await TestEnvironment.create({ dynamoEndpoint: dynamoEndpoint() });
  await env.registerWorkflowType(MONTH_LONG_ORDER);
  await env.registerActivityType(CHARGE_CARD);
  env.startDecider({ taskList: 'orders', decider: monthLongOrderDecider('charges') });
  env.startActivityWorker({ taskList: 'charges', activities: monthLongOrderActivities(charges) });
  const started = performance.now();
  const run = await env.startWorkflow({
    workflowType: MONTH_LONG_ORDER,
    taskList: { name: 'orders' },
  });
  closed = await env.awaitClose(run);
  wallMs = performance.now() - started;
});
afterAll(() => env?.close());

/** Each timer: when it started, and when it fired, in epoch ms. */
function timers(events: readonly HistoryEvent[]) {
  const started = new Map<string, { at: number; timeout: number }>();
  const fired: { timerId: string; startedAt: number; timeoutMs: number; firedAt: number }[] = [];
  for (const e of events) {
    const at = e.eventTimestamp?.getTime() ?? 0;
    const start = e.timerStartedEventAttributes;
    if (start !== undefined)
      started.set(String(start.timerId), { at, timeout: Number(start.startToFireTimeout) * 1000 });
    const fire = e.timerFiredEventAttributes;
    const timer = fire === undefined ? undefined : started.get(String(fire.timerId));
    if (timer !== undefined)
      fired.push({
        timerId: String(fire?.timerId),
        startedAt: timer.at,
        timeoutMs: timer.timeout,
        firedAt: at,
      });
  }
  return fired;
}

describe('a month-long workflow in a time-skipping environment', () => {
  it('closes in under 5 s of wall-clock time', () => {
    expect(closed.closeStatus).toBe('COMPLETED');
    expect(closed.result).toBe('charged on attempt 5');
    expect(wallMs).toBeLessThan(5_000);
  });

  it('waits 30 days, then 7 for a signal that never comes, then retries with waits up to 6 hours', () => {
    expect(timers(closed.events).map((t) => [t.timerId, t.timeoutMs / 1000])).toEqual([
      ['return-window', RETURN_WINDOW_SECONDS],
      ['confirmation', CONFIRMATION_SECONDS],
      ['retry-1', 3_600],
      ['retry-2', 7_200],
      ['retry-3', 14_400],
      ['retry-4', retryDelaySeconds(4)],
    ]);
    expect(retryDelaySeconds(4)).toBe(6 * 3_600);
    expect(charges).toEqual([
      'attempt 1: bank unavailable',
      'attempt 2: bank unavailable',
      'attempt 3: bank unavailable',
      'attempt 4: bank unavailable',
      'attempt 5: charged',
    ]);
  });

  it('records virtual times: each timer fires at the second it was due', () => {
    for (const timer of timers(closed.events)) {
      const late = timer.firedAt - (timer.startedAt + timer.timeoutMs);
      expect(late, timer.timerId).toBeGreaterThanOrEqual(0);
      expect(late, timer.timerId).toBeLessThan(1_000);
    }
    const start = closed.events[0]?.eventTimestamp?.getTime() ?? 0;
    const days = (closed.closedAt.getTime() - start) / 86_400_000;
    expect(days).toBeGreaterThan(37 + 13 / 24);
    expect(days).toBeLessThan(37 + 14 / 24);
    // Every event is stamped with the environment's time, never earlier than the one before it.
    const stamps = closed.events.map((e) => e.eventTimestamp?.getTime() ?? 0);
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
  });
});
