/**
 * The order workflow's patterns written as code, run by DeciderWorker and ActivityWorker against the
 * local service: the exclusive choice, a timer, a signal wait with a timer as its timeout, markers,
 * an activity cancelled through its heartbeat, and child workflows.
 */
import type { HistoryEvent } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActivityCanceledError,
  ActivityFailedError,
  ActivityFailure,
  ChildWorkflowCanceledError,
  ChildWorkflowFailedError,
  implementActivity,
  sleep,
} from '../../lib/sdk/index.js';
import {
  type CodeWorkflowService,
  startCodeWorkflowService,
} from '../support/code-workflow-service.js';
import { eventsOf, single } from '../support/decider.js';

let codeService: CodeWorkflowService;
beforeAll(async () => {
  codeService = await startCodeWorkflowService('workflow-patterns');
  await codeService.serve(workflows(), activities());
}, 60_000);
afterAll(() => codeService.close());

interface Order {
  readonly orderId: string;
  readonly card: 'valid' | 'declined';
}
let Step: ReturnType<typeof defineSteps>['Step'];
let Ship: ReturnType<typeof defineSteps>['Ship'];
function defineSteps() {
  return {
    Step: codeService.activity<{ step: string; order: Order }, string>('Step'),
    Ship: codeService.activity<string, string>('Ship', { heartbeatTimeout: '10s' }),
  };
}
const stopped: string[] = [];

function activities() {
  return [
    implementActivity(Step, ({ step, order }) => {
      if (step === 'charge' && order.card === 'declined')
        throw new ActivityFailure('CardDeclined', 'the bank said no');
      return `${step}: ok`;
    }),
    implementActivity(Ship, async (orderId, ctx) => {
      for (;;) {
        ctx.heartbeat(`packing ${orderId}`);
        await sleep(100, ctx.signal);
        if (ctx.signal.aborted) {
          stopped.push(`${orderId}: ${ctx.cancelReason}`);
          throw ctx.signal.reason;
        }
      }
    }),
  ];
}

let order: ReturnType<typeof codeService.workflow<Order, string>>;
let timer: ReturnType<typeof codeService.workflow<number, string>>;
let approval: ReturnType<typeof codeService.workflow<number, string>>;
let markers: ReturnType<typeof codeService.workflow<null, unknown>>;
let cancellable: ReturnType<typeof codeService.workflow<string, string>>;
let child: ReturnType<typeof codeService.workflow<string, string>>;
let parent: ReturnType<typeof codeService.workflow<null, unknown>>;

function workflows() {
  ({ Step, Ship } = defineSteps());
  order = codeService.workflow('Order', async (ctx, o: Order) => {
    await ctx.activity(Step, { step: 'verify', order: o });
    try {
      await ctx.activity(Step, { step: 'charge', order: o });
    } catch (error) {
      if (!(error instanceof ActivityFailedError)) throw error;
      await Promise.all([
        ctx.activity(Step, { step: 'cancel', order: o }),
        ctx.activity(Step, { step: 'email', order: o }),
      ]);
      return `cancelled: ${error.reason}`;
    }
    await Promise.all([
      ctx.activity(Step, { step: 'ship', order: o }),
      ctx.activity(Step, { step: 'record', order: o }),
    ]);
    return 'shipped';
  });
  timer = codeService.workflow('Timer', async (ctx, seconds: number) => {
    const before = ctx.now().getTime();
    await ctx.sleep(seconds);
    return `slept ${ctx.now().getTime() - before >= seconds * 1000 ? 'long enough' : 'too little'}`;
  });
  approval = codeService.workflow('Approval', async (ctx, seconds: number) => {
    const by = await ctx.waitForSignal<string>('Approve', { timeout: seconds });
    return by === undefined ? 'timed out' : `approved by ${by}`;
  });
  markers = codeService.workflow('Markers', async (ctx) => {
    ctx.recordMarker('stage', 'verified');
    ctx.recordMarker('totals', { items: 3 });
    const id = ctx.sideEffect(() => `receipt-${ctx.uuid()}`);
    const v2 = ctx.patched('receipt-v2');
    await ctx.sleep(0);
    return { id, v2, again: ctx.sideEffect(() => 'second') };
  });
  cancellable = codeService.workflow('Cancellable', async (ctx, orderId: string) => {
    const shipping = ctx.scope((inner) => inner.activity(Ship, orderId));
    await ctx.sleep(1);
    shipping.cancel();
    try {
      await shipping;
      return 'shipped';
    } catch (error) {
      return error instanceof ActivityCanceledError ? `canceled: ${error.details}` : String(error);
    }
  });
  child = codeService.workflow('Child', async (ctx, what: string) => {
    if (what === 'fail') return ctx.fail('child failed on purpose', { what });
    if (what === 'wait') {
      await ctx.whenCancelRequested();
      return ctx.closeAsCanceled('the parent asked');
    }
    return ctx.activity(Step, { step: `child ${what}`, order: { orderId: 'c', card: 'valid' } });
  });
  parent = codeService.workflow('Parent', async (ctx) => {
    const done = await ctx.child(child, 'work');
    const failure = await ctx
      .child(child, 'fail')
      .catch((e: unknown) =>
        e instanceof ChildWorkflowFailedError ? `${e.reason} / ${e.details}` : String(e),
      );
    const waiting = ctx.child(child, 'wait');
    await waiting.started;
    waiting.cancel();
    const canceled = await waiting.catch((e: unknown) =>
      e instanceof ChildWorkflowCanceledError ? `canceled: ${e.details}` : String(e),
    );
    return { done, failure, canceled, childId: waiting.workflowId };
  });
  return [order, timer, approval, markers, cancellable, child, parent];
}

const scheduled = (events: readonly HistoryEvent[]) =>
  eventsOf(events, 'ActivityTaskScheduled').map(
    (e) => JSON.parse(e.activityTaskScheduledEventAttributes?.input ?? '{}').step,
  );

describe('the exclusive choice', () => {
  it('verifies and charges, then ships and records at once', async () => {
    const closed = await codeService.waitForClose(
      await codeService.start(order, { orderId: 'o1', card: 'valid' }),
    );
    expect(closed.closeStatus).toBe('COMPLETED');
    expect(closed.result).toBe('"shipped"');
    expect(scheduled(closed.events)).toEqual(['verify', 'charge', 'ship', 'record']);
    const ship = closed.events.find((e) =>
      e.activityTaskScheduledEventAttributes?.input?.includes('"ship"'),
    );
    const record = closed.events.find((e) =>
      e.activityTaskScheduledEventAttributes?.input?.includes('"record"'),
    );
    // Promise.all: both asked for by the same decision task.
    expect(ship?.activityTaskScheduledEventAttributes?.decisionTaskCompletedEventId).toBe(
      record?.activityTaskScheduledEventAttributes?.decisionTaskCompletedEventId,
    );
    expect(
      eventsOf(closed.events, 'ActivityTaskScheduled').map(
        (e) => e.activityTaskScheduledEventAttributes?.activityId,
      ),
    ).toEqual(['1', '2', '3', '4']);
  });

  it('on a declined card cancels the order and emails the customer', async () => {
    const closed = await codeService.waitForClose(
      await codeService.start(order, { orderId: 'o2', card: 'declined' }),
    );
    expect(closed.result).toBe('"cancelled: CardDeclined"');
    expect(scheduled(closed.events)).toEqual(['verify', 'charge', 'cancel', 'email']);
  });
});

it('a timer: ctx.sleep is a StartTimer, and ctx.now() moves with the decision tasks', async () => {
  const closed = await codeService.waitForClose(await codeService.start(timer, 1));
  expect(closed.result).toBe('"slept long enough"');
  expect(single(closed.events, 'TimerStarted').timerStartedEventAttributes).toMatchObject({
    timerId: '1',
    startToFireTimeout: '1',
  });
  expect(eventsOf(closed.events, 'TimerFired')).toHaveLength(1);
});

describe('a signal wait with a timer as its timeout', () => {
  it('takes the signal and cancels the timer when the signal comes first', async () => {
    const execution = await codeService.start(approval, 60);
    await codeService.untilEvent(execution, 'TimerStarted');
    await codeService.signal(execution.workflowId, 'Approve', '"alice"');
    const closed = await codeService.waitForClose(execution);
    expect(closed.result).toBe('"approved by alice"');
    expect(eventsOf(closed.events, 'TimerCanceled')).toHaveLength(1);
  });

  it('gives undefined when the timer fires first', async () => {
    const closed = await codeService.waitForClose(await codeService.start(approval, 1));
    expect(closed.result).toBe('"timed out"');
    expect(eventsOf(closed.events, 'TimerFired')).toHaveLength(1);
  });
});

it('markers: recordMarker, a side effect and a patch are MarkerRecorded events', async () => {
  const closed = await codeService.waitForClose(await codeService.start(markers, null));
  const recorded = eventsOf(closed.events, 'MarkerRecorded').map((e) => [
    e.markerRecordedEventAttributes?.markerName,
    e.markerRecordedEventAttributes?.details,
  ]);
  const result = JSON.parse(closed.result ?? '{}');
  expect(recorded).toEqual([
    ['stage', 'verified'],
    ['totals', '{"items":3}'],
    ['sdk:SideEffect', JSON.stringify(result.id)],
    ['sdk:Patch', 'receipt-v2'],
    ['sdk:SideEffect', '"second"'],
  ]);
  expect(result).toMatchObject({ v2: true, again: 'second' });
  expect(result.id).toMatch(/^receipt-[0-9a-f-]{36}$/);
});

it('a cancelled scope sends RequestCancelActivityTask; the heartbeat stops the activity, whose ActivityTaskCanceled rejects', async () => {
  const closed = await codeService.waitForClose(await codeService.start(cancellable, 'o3'));
  expect(closed.result).toBe('"canceled: packing o3"');
  expect(stopped).toContain('o3: cancelRequested');
  const types = closed.events.map((e) => e.eventType);
  expect(types.indexOf('ActivityTaskCancelRequested')).toBeGreaterThan(types.indexOf('TimerFired'));
  expect(types).toContain('ActivityTaskCanceled');
});

it('child workflows: a result, a typed failure, and a cancelled child', async () => {
  const closed = await codeService.waitForClose(await codeService.start(parent, null), 40_000);
  const result = JSON.parse(closed.result ?? '{}');
  expect(result).toMatchObject({
    done: 'child work: ok',
    failure: 'child failed on purpose / {"what":"fail"}',
    canceled: 'canceled: the parent asked',
  });
  const ids = eventsOf(closed.events, 'StartChildWorkflowExecutionInitiated').map(
    (e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId,
  );
  expect(ids).toHaveLength(3);
  expect(new Set(ids).size).toBe(3);
  expect(ids[2]).toBe(result.childId);
  // The parent's workflowId, run and the child's number: unique, and the same on every replay.
  expect(ids.map((id) => id?.replace(/^Parent-[0-9a-f-]+:[\w-]{12}:/, ''))).toEqual([
    '1',
    '2',
    '3',
  ]);
  expect(eventsOf(closed.events, 'RequestCancelExternalWorkflowExecutionInitiated')).toHaveLength(
    1,
  );
});

it('the workers reported no error', () => {
  expect(codeService.logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  expect(codeService.observations.filter((o) => o.kind !== 'decided')).toEqual([]);
});
