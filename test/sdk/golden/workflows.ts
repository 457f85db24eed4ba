/**
 * The workflows of the golden histories (test/sdk/golden/*.history.json): recorded by running them
 * through the local service (test/contract/workflow-golden.test.ts), and replayed by the unit tests
 * (test/sdk/workflow-golden.test.ts) to the very decisions their histories recorded.
 */
import {
  ActivityCanceledError,
  ActivityFailedError,
  ActivityFailure,
  ChildWorkflowFailedError,
  defineActivity,
  defineLambda,
  defineWorkflow,
  implementActivity,
  sleep,
  type WorkflowDefinitionOptions,
} from '../../../lib/sdk/index.js';

export const GOLDEN_DECISIONS = 'golden-decisions';
export const GOLDEN_ACTIVITIES = 'golden-activities';

const activityOptions = {
  taskList: GOLDEN_ACTIVITIES,
  scheduleToStartTimeout: '1m',
  startToCloseTimeout: '1m',
  scheduleToCloseTimeout: '2m',
  heartbeatTimeout: '20s',
} as const;
const workflowOptions: WorkflowDefinitionOptions = {
  taskList: GOLDEN_DECISIONS,
  executionStartToCloseTimeout: '5m',
  taskStartToCloseTimeout: '1m',
  childPolicy: 'TERMINATE',
  lambdaRole: 'arn:aws:iam::000000000000:role/golden-lambda',
};

export interface Order {
  readonly orderId: string;
  readonly card: 'valid' | 'declined';
}

export const Step = defineActivity<{ readonly step: string; readonly order?: Order }, string>(
  'GoldenStep',
  '1',
  activityOptions,
);
export const Flaky = defineActivity<string, string>('GoldenFlaky', '1', {
  ...activityOptions,
  retry: { maximumAttempts: 4, initialInterval: 1, backoffCoefficient: 2 },
});
export const Slow = defineActivity<string, string>('GoldenSlow', '1', activityOptions);
export const Upper = defineLambda<string, string>('golden-upper');

/** How many times GoldenFlaky ran for each input: it fails its first two attempts. */
const flakyRuns = new Map<string, number>();

export const goldenActivities = [
  implementActivity(Step, ({ step, order }) => {
    if (step === 'charge' && order?.card === 'declined')
      throw new ActivityFailure('CardDeclined', 'the bank said no');
    return `${step} done`;
  }),
  implementActivity(Flaky, (key) => {
    const runs = (flakyRuns.get(key) ?? 0) + 1;
    flakyRuns.set(key, runs);
    if (runs <= 2) throw new ActivityFailure('Unavailable', `attempt ${runs}`);
    return `ok after ${runs}`;
  }),
  implementActivity(Slow, async (what, ctx) => {
    for (;;) {
      await sleep(100, ctx.signal);
      if (ctx.signal.aborted) throw ctx.signal.reason;
      ctx.heartbeat(`still ${what}`);
    }
  }),
];

/** The exclusive choice: verify and charge, then ship and record, or cancel and email. */
export const goldenOrder = defineWorkflow(
  'GoldenOrder',
  '1',
  async (ctx, order: Order) => {
    await ctx.activity(Step, { step: 'verify', order });
    try {
      await ctx.activity(Step, { step: 'charge', order });
    } catch (error) {
      if (!(error instanceof ActivityFailedError)) throw error;
      await ctx.activity(Step, { step: 'cancel', order });
      await ctx.activity(Step, { step: 'email', order });
      return `cancelled: ${error.reason}`;
    }
    await ctx.activity(Step, { step: 'ship', order });
    await ctx.activity(Step, { step: 'record', order });
    return 'shipped';
  },
  workflowOptions,
);

/** A CancelOrder signal while shipping: the race cancels the activity, then refund and close. */
export const goldenCancelOrder = defineWorkflow(
  'GoldenCancelOrder',
  '1',
  async (ctx, orderId: string) => {
    const shipping = ctx.activity(Slow, `shipping ${orderId}`);
    const first = await ctx.race({ shipping, cancel: ctx.waitForSignal<string>('CancelOrder') });
    if (first.key === 'shipping') return 'shipped';
    const stopped = await shipping.then(
      () => 'shipped anyway',
      (error: unknown) => (error instanceof ActivityCanceledError ? 'stopped' : 'failed'),
    );
    await ctx.activity(Step, { step: `refund (shipping ${stopped})` });
    return ctx.closeAsCanceled(`cancelled: ${first.value}`);
  },
  workflowOptions,
);

/** A signal wait with a timer as its timeout. */
export const goldenApproval = defineWorkflow(
  'GoldenApproval',
  '1',
  async (ctx, seconds: number) => {
    const by = await ctx.waitForSignal<string>('Approve', { timeout: seconds });
    return by === undefined ? 'timed out' : `approved by ${by}`;
  },
  workflowOptions,
);

/** Timers, markers and the deterministic helpers, whose values the result carries. */
export const goldenMarkers = defineWorkflow(
  'GoldenMarkers',
  '1',
  async (ctx, _input: null) => {
    const startedAt = ctx.now().toISOString();
    // Recorded by the live run, taken from the marker by every replay.
    const token = ctx.sideEffect(() => `token-${Math.floor(Math.random() * 1e9)}`);
    await ctx.sleep(1);
    ctx.recordMarker('checkpoint', { stage: 'after the timer' });
    const patched = ctx.patched('use-v2');
    const random = ctx.random();
    const uuid = ctx.uuid();
    const firedAt = ctx.now().toISOString();
    return { startedAt, firedAt, token, patched, random, uuid };
  },
  workflowOptions,
);

/**
 * A child that runs a step, or fails when asked to, once signalled `go`: its parent's history is
 * then the same on every run (a child that closed at once could close while its parent's decision
 * task on ChildWorkflowExecutionStarted was out, or before it started: both are SWF's histories).
 */
export const goldenChild = defineWorkflow(
  'GoldenChild',
  '1',
  async (ctx, what: string) => {
    await ctx.waitForSignal('go');
    if (what === 'fail') return ctx.fail('child asked to fail', { what });
    return ctx.activity(Step, { step: `child ${what}` });
  },
  workflowOptions,
);

export const goldenParent = defineWorkflow(
  'GoldenParent',
  '1',
  async (ctx, _input: null) => {
    const ok = await ctx.child(goldenChild, 'work');
    const failed = await ctx.child(goldenChild, 'fail').then(
      () => 'no failure',
      (error: unknown) => (error instanceof ChildWorkflowFailedError ? error.reason : 'other'),
    );
    return { ok, failed };
  },
  workflowOptions,
);

/** Retries on timers: GoldenFlaky fails twice, then succeeds. */
export const goldenRetry = defineWorkflow(
  'GoldenRetry',
  '1',
  async (ctx, key: string) => ctx.activity(Flaky, key),
  workflowOptions,
);

/** Lambda tasks, a workflow cancel request, and continue-as-new. */
export const goldenLambda = defineWorkflow(
  'GoldenLambda',
  '1',
  async (ctx, text: string) => ctx.lambda(Upper, text),
  workflowOptions,
);

export const goldenCancelRequested = defineWorkflow(
  'GoldenCancelRequested',
  '1',
  async (ctx, _input: null) => {
    const work = ctx.activity(Slow, 'working');
    await ctx.race([work, ctx.whenCancelRequested()]);
    if (!ctx.cancelRequested) return 'finished';
    // The race cancelled the work: clean up once it has stopped.
    await work.catch((error: unknown) => {
      if (!(error instanceof ActivityCanceledError)) throw error;
    });
    await ctx.activity(Step, { step: 'clean up' });
    return ctx.closeAsCanceled('cancel requested');
  },
  workflowOptions,
);

export const goldenContinue = defineWorkflow(
  'GoldenContinue',
  '1',
  async (ctx, round: number) => {
    await ctx.sleep(0);
    if (round < 2) return ctx.continueAsNew(round + 1);
    return `done after ${round} rounds`;
  },
  workflowOptions,
);

/** Bad input and a throw that is no Error: each closes with a clear reason. */
export const goldenThrows = defineWorkflow(
  'GoldenThrows',
  '1',
  async (_ctx, what: string) => {
    if (what === 'number') throw 42;
    throw new Error(`asked to throw: ${what}`);
  },
  workflowOptions,
);

export const goldenWorkflows = [
  goldenOrder,
  goldenCancelOrder,
  goldenApproval,
  goldenMarkers,
  goldenChild,
  goldenParent,
  goldenRetry,
  goldenLambda,
  goldenCancelRequested,
  goldenContinue,
  goldenThrows,
];
