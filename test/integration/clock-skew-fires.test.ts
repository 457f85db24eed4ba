/**
 * Deadlines computed by an instance whose clock differs from the timer side's. A fire
 * that arrives early is re-armed (never dropped), fires once, and no timeout fires earlier than its
 * configured duration by more than the spread of the clocks involved.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deadlines } from '../../lib/core/deadlines.js';
import { handleFire } from '../../lib/operations/timer-messages.js';
import type { DeadlineFire } from '../../lib/ports/deadline-scheduler.js';
import { domainWithType, operationsOver } from '../support/operations.js';
import { storesForFile } from '../support/stores.js';

const stores = storesForFile('clock-fires');

function setup(apiOffsetMs: number, timerOffsetMs: number) {
  const real = { ms: Date.now() };
  const api = operationsOver(stores(), { clock: { now: () => real.ms + apiOffsetMs } });
  const timerSide = operationsOver(stores(), { clock: { now: () => real.ms + timerOffsetMs } });
  const armed: DeadlineFire[] = [];
  const outbox = {
    ...timerSide.deps,
    scheduler: { arm: async (f: DeadlineFire) => void armed.push(f), disarm: async () => {} },
  };
  return { real, api, outbox, armed };
}

// A realistic skew, and a timer side whose clock is 2 s behind the one that computed the deadlines.
for (const [apiOffset, timerOffset] of [
  [50, -50],
  [0, -2_000],
] as const) {
  describe(`api clock ${apiOffset} ms, timer side ${timerOffset} ms`, () => {
    it('a timer and an activity START_TO_CLOSE fire once, re-armed while early, never early by more than the spread', async () => {
      const { real, api, outbox, armed } = setup(apiOffset, timerOffset);
      const domain = `f-${randomUUID().slice(0, 8)}`;
      await domainWithType(api.call, domain);
      await api.call('RegisterActivityType', {
        domain,
        name: 'a',
        version: '1',
        defaultTaskList: { name: 'acts' },
        defaultTaskScheduleToStartTimeout: 'NONE',
        defaultTaskScheduleToCloseTimeout: 'NONE',
        defaultTaskStartToCloseTimeout: '4',
        defaultTaskHeartbeatTimeout: 'NONE',
      });
      const { runId } = (await api.call('StartWorkflowExecution', {
        domain,
        workflowId: 'w',
        workflowType: { name: 'w', version: '1' },
        taskList: { name: 'd' },
      })) as { runId: string };
      const t = await api.call('PollForDecisionTask', { domain, taskList: { name: 'd' } });
      await api.call('RespondDecisionTaskCompleted', {
        taskToken: t?.taskToken,
        decisions: [
          {
            decisionType: 'StartTimer',
            startTimerDecisionAttributes: { timerId: 't', startToFireTimeout: '3' },
          },
          {
            decisionType: 'ScheduleActivityTask',
            scheduleActivityTaskDecisionAttributes: {
              activityType: { name: 'a', version: '1' },
              activityId: 'x',
            },
          },
        ],
      });
      await api.call('PollForActivityTask', { domain, taskList: { name: 'acts' } });
      const t0 = real.ms;
      const loaded = await outbox.runs.loadRun(runId);
      if (loaded === undefined) throw new Error('no run');
      const pending = deadlines(loaded.state).filter((d) => d.subject.kind !== 'execution');
      expect(pending.map((d) => d.key).sort()).toEqual(['A:6:START_TO_CLOSE', 'T:5'].sort());
      const events = async () => {
        const out = await api.call('GetWorkflowExecutionHistory', {
          domain,
          execution: { workflowId: 'w', runId },
        });
        return ((out?.events ?? []) as { eventType: string }[]).map((e) => e.eventType);
      };
      const firedAt: Record<string, number> = {};
      // Every 100 ms of the clocks' time, each fire ever armed (and each deadline as first armed) is
      // handed to the timer side from half a second before its time, and three times from its time
      // on, as a duplicate-prone SQS queue may deliver it. The history is read after a step that
      // handed a fire due for the first time.
      const fires: DeadlineFire[] = pending.map((d) => ({ runId, key: d.key, at: d.at }));
      const handed = new Map<DeadlineFire, number>();
      for (let step = 0; step <= 120; step++) {
        real.ms = t0 + step * 100;
        const timerNow = (real.ms + timerOffset) / 1000;
        let first = false;
        for (const f of [...fires, ...armed]) {
          const times = handed.get(f) ?? 0;
          if (f.at > timerNow + 0.5 || times >= 3) continue;
          await handleFire(outbox, f);
          // Handed early (up to half a second), it waits or is armed again: that counts as none.
          if (f.at > timerNow) continue;
          handed.set(f, times + 1);
          first ||= times === 0;
        }
        if (!first) continue;
        const types = await events();
        if (firedAt.timer === undefined && types.includes('TimerFired'))
          firedAt.timer = real.ms - t0;
        if (firedAt.activity === undefined && types.includes('ActivityTaskTimedOut'))
          firedAt.activity = real.ms - t0;
      }
      const types = await events();
      expect(types.filter((e) => e === 'TimerFired')).toHaveLength(1);
      expect(types.filter((e) => e === 'ActivityTaskTimedOut')).toHaveLength(1);
      const spread = Math.abs(apiOffset - timerOffset);
      expect(firedAt.timer).toBeGreaterThanOrEqual(3_000 - spread - 100);
      expect(firedAt.activity).toBeGreaterThanOrEqual(4_000 - spread - 100);
      expect(firedAt.timer).toBeLessThanOrEqual(3_000 + spread + 600);
      expect(firedAt.activity).toBeLessThanOrEqual(4_000 + spread + 600);
      // Mostly real waits of fires handed early: time enough under a full suite's load.
    }, 90_000);
  });
}
