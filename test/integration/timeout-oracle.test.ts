/**
 * Generated interleavings of task lifecycles and the clock, each step checked against an independent
 * model of SWF's timeouts (test/support/timeout-oracle.ts): the whole history (ids, order, every
 * attribute, timestamps), DescribeWorkflowExecution's open counts, and which calls are refused.
 *
 * A schedule drives one execution: the decider polls (on its task list or an override list) and
 * answers, late or in time, with activities of random timeouts (given, NONE, or the type's default),
 * timers, timer and activity cancellations, task-list overrides with a schedule-to-start timeout;
 * workers poll, heartbeat (with and without details) and complete, fail or cancel, with their current
 * token or a stale one; signals arrive; and the clock moves, to just before or after the next deadline
 * or anywhere, with the timer service punctual, late, or stalled (the window in which a deadline has
 * passed and its fire has not come). Every run ends past the execution's own timeout, after which every
 * token is refused and no poll gets a task.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { storesForFile } from '../support/stores.js';
import { runSchedule, type ScheduleReport } from '../support/timeout-schedule-run.js';
import { configArb, stepArb } from '../support/timeout-schedules.js';

const stores = storesForFile('timeout-oracle');
const report: ScheduleReport = { tallies: new Map(), printed: 0 };

describe('timeouts against an independent oracle, on generated interleavings', () => {
  it('agree on every history, open count and refusal', async () => {
    await fc.assert(
      fc.asyncProperty(
        configArb,
        fc.array(stepArb, { minLength: 20, maxLength: 60, size: 'max' }),
        (c, s) => runSchedule(stores(), c, s, report),
      ),
      {
        seed: Number(process.env.ORACLE_SEED ?? 20240611),
        numRuns: Number(process.env.ORACLE_RUNS ?? 50),
        endOnFailure: process.env.ORACLE_SHRINK === undefined,
      },
    );
    if (process.env.ORACLE_STATS !== undefined)
      console.log(
        [...report.tallies.entries()]
          .sort()
          .map(([k, v]) => `${k} ${v}`)
          .join('\n'),
      );
  }, 120_000);
});
