/**
 * The replay over recorded histories (the goldens, some edited): code that changed is caught at the
 * step that differs, with the event and both sides; patches take the old path on old runs; a close
 * SWF refused is sent again; ctx.now() is the decision task's time.
 */
import type { HistoryEvent } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  type Decision,
  defineWorkflow,
  NON_DETERMINISM_REASON,
  replayWorkflow,
  silentLogger,
  type WorkflowDefinition,
  type WorkflowObservation,
} from '../../lib/sdk/index.js';
import { decideWorkflowTask } from '../../lib/sdk/workflow/decide.js';
import { replayDifferences } from '../support/workflow-replay-check.js';
import { readGolden } from './golden/files.js';
import {
  goldenApproval,
  goldenContinue,
  goldenMarkers,
  goldenOrder,
  type Order,
  Step,
} from './golden/workflows.js';
import { recordingLogger } from './support.js';

const orderRun = readGolden('order-valid');
const lastTask = (events: readonly HistoryEvent[]) => ({
  ...orderRun,
  events,
  startedEventId: [...events].reverse().find((e) => e.eventType === 'DecisionTaskStarted')?.eventId,
});
/** The history up to the decision task that comes after the `n`th answered one. */
const upToTask = (events: readonly HistoryEvent[], n: number) => {
  const completed = events.filter((e) => e.eventType === 'DecisionTaskCompleted')[n - 1];
  const started = completed?.decisionTaskCompletedEventAttributes?.startedEventId ?? 0;
  const next = events.find(
    (e) => e.eventType === 'DecisionTaskStarted' && (e.eventId ?? 0) > started,
  );
  return events.filter((e) => (e.eventId ?? 0) <= (next?.eventId ?? 0));
};

/** The order workflow, changed: `change` says what it does after verifying. */
const changedOrder = (
  change: (ctx: Parameters<WorkflowDefinition['run']>[0], order: Order) => Promise<unknown>,
) =>
  defineWorkflow('GoldenOrder', '1', async (ctx, order: Order) => {
    await ctx.activity(Step, { step: 'verify', order });
    return change(ctx, order);
  });

describe('code that changed while the execution was open', () => {
  const scheduled = orderRun.events.filter((e) => e.eventType === 'ActivityTaskScheduled');
  const completedEvents = orderRun.events.filter((e) => e.eventType === 'DecisionTaskCompleted');

  it('asks for another activity at a step: the event it recorded, and both sides', async () => {
    const renamed = changedOrder((ctx, order) =>
      ctx.activity({ ...Step, name: 'GoldenCharge' }, { step: 'charge', order }),
    );
    const outcome = await replayWorkflow(renamed, lastTask(orderRun.events), silentLogger);
    expect(outcome.kind).toBe('nonDeterminism');
    if (outcome.kind !== 'nonDeterminism') return;
    expect(outcome.error).toMatchObject({
      eventId: scheduled[1]?.eventId,
      expected: `event ${scheduled[1]?.eventId} ActivityTaskScheduled: activity 2 (GoldenStep 1)`,
      actual: 'ScheduleActivityTask: activity 2 (GoldenCharge 1)',
    });
  });

  it('asks for more at a step than its answer recorded', async () => {
    const more = changedOrder(async (ctx, order) => {
      await Promise.all([ctx.activity(Step, { step: 'charge', order }), ctx.sleep(5)]);
    });
    const outcome = await replayWorkflow(more, lastTask(orderRun.events), silentLogger);
    expect(outcome.kind === 'nonDeterminism' && outcome.error).toMatchObject({
      eventId: completedEvents[1]?.eventId,
      expected: `no further decision in the answer recorded by event ${completedEvents[1]?.eventId} (DecisionTaskCompleted)`,
      actual: 'StartTimer: timer 1',
    });
  });

  it('no longer asks for what a step recorded', async () => {
    const less = changedOrder((ctx) => ctx.waitForSignal('Never'));
    const outcome = await replayWorkflow(less, lastTask(orderRun.events), silentLogger);
    expect(outcome.kind === 'nonDeterminism' && outcome.error).toMatchObject({
      eventId: scheduled[1]?.eventId,
      actual: 'nothing there (the code no longer asks for it at that step)',
    });
  });

  it('is reported to the logger and observe; nothing is answered, or the execution fails when asked', async () => {
    const renamed = changedOrder((ctx, order) =>
      ctx.activity({ ...Step, name: 'Other' }, { step: 'charge', order }),
    );
    const logger = recordingLogger();
    const seen: WorkflowObservation[] = [];
    const task = lastTask(orderRun.events);
    expect(
      await decideWorkflowTask(renamed, task, { logger, observe: (o) => seen.push(o) }),
    ).toBeUndefined();
    expect(seen).toEqual([
      expect.objectContaining({
        kind: 'nonDeterminism',
        eventId: scheduled[1]?.eventId,
        action: 'leaveTask',
        workflowId: orderRun.workflowExecution.workflowId,
      }),
    ]);
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ eventId: scheduled[1]?.eventId }),
      }),
    ]);
    const strict = { ...renamed, options: { onNonDeterminism: 'failExecution' as const } };
    const decisions = await decideWorkflowTask(strict, task, { logger });
    expect(decisions).toEqual([
      expect.objectContaining({
        decisionType: 'FailWorkflowExecution',
        failWorkflowExecutionDecisionAttributes: expect.objectContaining({
          reason: NON_DETERMINISM_REASON,
        }),
      }),
    ]);
  });
});

describe('versioning with patched', () => {
  const patchedOrder = changedOrder(async (ctx, order) => {
    if (ctx.patched('fraud-check')) await ctx.activity(Step, { step: 'fraud check', order });
    await ctx.activity(Step, { step: 'charge', order });
    await ctx.activity(Step, { step: 'ship', order });
    await ctx.activity(Step, { step: 'record', order });
    return 'shipped';
  });

  it('a run that passed the patch on old code replays the old path', async () => {
    const beforeClose = orderRun.events.slice(0, -2);
    const outcome = await replayWorkflow(patchedOrder, lastTask(beforeClose), silentLogger);
    expect(outcome.kind === 'decided' && outcome.decisions.map(brief)).toEqual([
      'CompleteWorkflowExecution "shipped"',
    ]);
  });

  it('a run that reaches it on new code takes the new path and records a marker', async () => {
    const outcome = await replayWorkflow(
      patchedOrder,
      lastTask(upToTask(orderRun.events, 1)),
      silentLogger,
    );
    expect(outcome.kind === 'decided' && outcome.decisions.map(brief)).toEqual([
      'RecordMarker sdk:Patch fraud-check',
      'ScheduleActivityTask 2 {"step":"fraud check","order":{"orderId":"o-1","card":"valid"}}',
    ]);
  });

  it('a patch call removed once every old run is gone: its recorded markers are passed over', async () => {
    const markers = readGolden('markers');
    const withoutPatch = defineWorkflow('GoldenMarkers', '1', async (ctx) => {
      const token = ctx.sideEffect(() => 'never called: replayed');
      await ctx.sleep(1);
      ctx.recordMarker('checkpoint', { stage: 'after the timer' });
      return token;
    });
    const full = await replayWorkflow(
      withoutPatch,
      { ...markers, events: markers.events.slice(0, -2) },
      silentLogger,
    );
    expect(full.kind === 'decided' && full.decisions.map(brief)).toEqual([
      'RecordMarker checkpoint {"stage":"after the timer"}',
      `CompleteWorkflowExecution ${JSON.stringify(JSON.parse(markers.events.at(-1)?.workflowExecutionCompletedEventAttributes?.result ?? '{}').token)}`,
    ]);
  });
});

describe('a close SWF refused', () => {
  const approval = readGolden('approval-timeout');
  const [completed] = approval.events
    .filter((e) => e.eventType === 'DecisionTaskCompleted')
    .slice(-1);
  const refusedThen = (refusal: HistoryEvent, more: HistoryEvent[] = []): HistoryEvent[] => {
    const id = approval.events.length;
    return [
      ...approval.events.slice(0, -1),
      { ...refusal, eventId: id },
      ...more.map((e, i) => ({ ...e, eventId: id + 1 + i })),
      {
        eventId: id + more.length + 1,
        eventType: 'DecisionTaskScheduled',
        eventTimestamp: new Date(),
      },
      {
        eventId: id + more.length + 2,
        eventType: 'DecisionTaskStarted',
        eventTimestamp: new Date(),
      },
    ];
  };

  it('for events that came meanwhile (UNHANDLED_DECISION) is sent again, the function not run again', async () => {
    const events = refusedThen(
      {
        eventId: 0,
        eventTimestamp: new Date(),
        eventType: 'CompleteWorkflowExecutionFailed',
        completeWorkflowExecutionFailedEventAttributes: {
          cause: 'UNHANDLED_DECISION',
          decisionTaskCompletedEventId: completed?.eventId,
        },
      },
      [
        {
          eventId: 0,
          eventTimestamp: new Date(),
          eventType: 'WorkflowExecutionSignaled',
          workflowExecutionSignaledEventAttributes: { signalName: 'Approve', input: '"late"' },
        },
      ],
    );
    const outcome = await replayWorkflow(goldenApproval, { ...approval, events }, silentLogger);
    expect(outcome.kind === 'decided' && outcome.decisions.map(brief)).toEqual([
      'CompleteWorkflowExecution "timed out"',
    ]);
  });

  it('continue-as-new refused for another cause fails the execution, saying why', async () => {
    const continued = readGolden('continue-as-new');
    const [last] = continued.events
      .filter((e) => e.eventType === 'DecisionTaskCompleted')
      .slice(-1);
    const id = continued.events.length;
    const events: HistoryEvent[] = [
      ...continued.events.slice(0, -1),
      {
        eventId: id,
        eventTimestamp: new Date(),
        eventType: 'ContinueAsNewWorkflowExecutionFailed',
        continueAsNewWorkflowExecutionFailedEventAttributes: {
          cause: 'WORKFLOW_TYPE_DEPRECATED',
          decisionTaskCompletedEventId: last?.eventId,
        },
      },
      { eventId: id + 1, eventType: 'DecisionTaskScheduled', eventTimestamp: new Date() },
      { eventId: id + 2, eventType: 'DecisionTaskStarted', eventTimestamp: new Date() },
    ];
    const outcome = await replayWorkflow(goldenContinue, { ...continued, events }, silentLogger);
    expect(outcome.kind === 'decided' && outcome.decisions.map(brief)).toEqual([
      'FailWorkflowExecution ContinueAsNewWorkflowExecution failed: WORKFLOW_TYPE_DEPRECATED',
    ]);
  });
});

it('ctx.log writes only what the task being decided says, nothing while replaying', async () => {
  const logger = recordingLogger();
  const logging = changedOrder(async (ctx, order) => {
    for (const step of ['charge', 'ship', 'record']) {
      ctx.log.info(`asking for ${step}`);
      await ctx.activity(Step, { step, order });
    }
    ctx.log.info('done');
    return 'shipped';
  });
  await replayWorkflow(logging, lastTask(orderRun.events.slice(0, -2)), logger);
  expect(logger.lines.map((l) => [l.message, l.fields?.workflowId])).toEqual([
    ['done', orderRun.workflowExecution.workflowId],
  ]);
});

it("ctx.now() is each decision task's DecisionTaskStarted time", () => {
  const markers = readGolden('markers');
  const started = markers.events
    .filter((e) => e.eventType === 'DecisionTaskStarted')
    .map((e) => e.eventTimestamp?.toISOString());
  const result = JSON.parse(
    markers.events.at(-1)?.workflowExecutionCompletedEventAttributes?.result ?? '{}',
  );
  expect([result.startedAt, result.firedAt]).toEqual([started[0], started[1]]);
});

it('an order replays the same whoever decides: goldenOrder over its own history', async () => {
  expect(await replayDifferences(goldenOrder, orderRun)).toEqual([]);
  expect(await replayDifferences(goldenMarkers, readGolden('markers'))).toEqual([]);
});

/** A decision in a line: its type and what it is about. */
function brief(d: Decision): string {
  const parts: (string | undefined)[] = [d.decisionType];
  const activity = d.scheduleActivityTaskDecisionAttributes;
  if (activity) parts.push(activity.activityId, activity.input);
  const marker = d.recordMarkerDecisionAttributes;
  if (marker) parts.push(marker.markerName, marker.details);
  parts.push(d.completeWorkflowExecutionDecisionAttributes?.result);
  parts.push(d.failWorkflowExecutionDecisionAttributes?.reason);
  return parts.filter((p) => p !== undefined).join(' ');
}
