/**
 * A workflow's code replayed by the testing kit over histories written by hand and recorded: what
 * it decides next, and a clear error where changed code no longer matches what a run recorded.
 */
import type { Decision } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { defineWorkflow, NonDeterminismError, textCodec } from '../../../lib/sdk/index.js';
import {
  History,
  type HistoryStep,
  historyOf,
  loadHistory,
  events as on,
  replayHistory,
} from '../../../lib/testing/index.js';
import { ChargeCard, monthLongOrderAsCode } from '../../support/month-long-order-code.js';

/** Each decision in short: its type and the id or value that tells it apart. */
const brief = (decisions: readonly Decision[]) =>
  decisions.map((d) => {
    const timer = d.startTimerDecisionAttributes;
    const detail =
      (timer && `${timer.timerId} ${timer.startToFireTimeout}`) ??
      (d.scheduleActivityTaskDecisionAttributes &&
        `${d.scheduleActivityTaskDecisionAttributes.activityId} ${d.scheduleActivityTaskDecisionAttributes.activityType?.name}`) ??
      d.cancelTimerDecisionAttributes?.timerId ??
      d.completeWorkflowExecutionDecisionAttributes?.result;
    return `${d.decisionType} ${detail ?? ''}`.trim();
  });

const started = on.workflowStarted({ workflowType: 'MonthLongOrderAsCode', input: 'o-1' });
const windowPassed = [started, on.timerStarted('1', '30d'), on.timerFired('1')] as const;

describe('replayHistory over a hand-written history', () => {
  it('answers what the code decides next, step by step', async () => {
    const replay = (...steps: HistoryStep[]) =>
      replayHistory(monthLongOrderAsCode, historyOf(...steps)).then(brief);
    expect(await replay(started)).toEqual(['StartTimer 1 2592000']);
    expect(await replay(...windowPassed)).toEqual(['StartTimer 2 604800']);
    expect(
      await replay(...windowPassed, on.timerStarted('2', '7d'), on.signaled('Confirm')),
    ).toEqual(['CancelTimer 2', 'ScheduleActivityTask 1 ChargeCardAsCode']);
    // ctx.now() is the decision task's time: the history's, 37 days and an hour on.
    expect(
      await replay(
        ...windowPassed,
        on.timerStarted('2', '7d'),
        on.timerFired('2'),
        on.activityScheduled('1', ChargeCard),
        on.activityFailed('1', 'BankUnavailable'),
        on.timerStarted('3', '1h'),
        on.timerFired('3'),
        on.activityScheduled('1', ChargeCard),
        on.activityCompleted('1', 'charged o-1'),
      ),
    ).toEqual(['CompleteWorkflowExecution charged o-1, unconfirmed, after 37.04 days']);
  });

  it('replays the decision task it is told to, from the history before it', async () => {
    const history = historyOf(...windowPassed, on.timerStarted('2', '7d'));
    const [first] = history.answeredDecisionTasks();
    expect(
      brief(await replayHistory(monthLongOrderAsCode, history, { startedEventId: first ?? 0 })),
    ).toEqual(['StartTimer 1 2592000']);
  });

  it('names the event that changed code no longer matches', async () => {
    const changed = defineWorkflow(
      'MonthLongOrderAsCode',
      '2',
      async (ctx, orderId: string) => {
        await ctx.activity(ChargeCard, orderId);
      },
      { codec: textCodec },
    );
    const replaying = replayHistory(changed, historyOf(...windowPassed));
    await expect(replaying).rejects.toBeInstanceOf(NonDeterminismError);
    await expect(replaying).rejects.toThrow(
      /at event 5: the history has event 5 TimerStarted: timer 1; the code asked for ScheduleActivityTask: activity 1 \(ChargeCardAsCode/,
    );
  });
});

describe('replayHistory over a recorded run', () => {
  const golden = new URL('../../sdk/golden/month-long-order-as-code.history.json', import.meta.url);

  it('replays every decision task of a closed run to what it recorded', async () => {
    const run = await loadHistory(golden);
    expect(run.answeredDecisionTasks().length).toBeGreaterThanOrEqual(8);
    expect(await replayHistory(monthLongOrderAsCode, run)).toEqual([]);
    expect(await replayHistory(monthLongOrderAsCode, run.events)).toEqual([]);
  });

  it('fails for code that asks for less than the run recorded', async () => {
    const run = await loadHistory(golden);
    const shorter = defineWorkflow('MonthLongOrderAsCode', '1', async (ctx) => {
      await ctx.sleep('30d');
      return 'done';
    });
    await expect(replayHistory(shorter, History.recorded(run.events))).rejects.toThrow(
      NonDeterminismError,
    );
  });
});
