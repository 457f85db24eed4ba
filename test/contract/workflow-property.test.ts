/**
 * Generated workflow programs (sequences of activities, failures, timers, parallel groups, signal
 * waits with timeouts, cancellations, races, markers) run as code through the local service, with
 * unrelated signals arriving at random moments. Each closes with the result a model of the program
 * predicts, and every decision task of its history replays to exactly the decisions it recorded.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ActivityCanceledError,
  ActivityFailedError,
  ActivityFailure,
  implementActivity,
  sleep,
  type WorkflowContext,
} from '../../lib/sdk/index.js';
import {
  type CodeWorkflowService,
  startCodeWorkflowService,
} from '../support/code-workflow-service.js';
import { uid } from '../support/decider.js';
import { replayDifferences } from '../support/workflow-replay-check.js';

type Leaf =
  | { readonly kind: 'activity'; readonly value: number; readonly fail: boolean }
  | { readonly kind: 'timer'; readonly seconds: number };
type Step =
  | Leaf
  | { readonly kind: 'parallel'; readonly steps: readonly Leaf[] }
  | { readonly kind: 'signal'; readonly name: 'a' | 'b'; readonly sent: boolean }
  | { readonly kind: 'cancel'; readonly after: number }
  | { readonly kind: 'race'; readonly value: number }
  | { readonly kind: 'marker'; readonly value: number };
interface Program {
  readonly steps: readonly Step[];
  /** Signals nobody waits for, sent this many ms after the start. */
  readonly noise: readonly number[];
}

const leaf: fc.Arbitrary<Leaf> = fc.oneof(
  fc.record({
    kind: fc.constant('activity' as const),
    value: fc.integer({ min: 0, max: 99 }),
    fail: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('timer' as const), seconds: fc.constantFrom(0, 1) }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: leaf },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('parallel' as const),
      steps: fc.array(leaf, { minLength: 2, maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('signal' as const),
      name: fc.constantFrom('a' as const, 'b' as const),
      sent: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('cancel' as const), after: fc.constantFrom(0, 1) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('race' as const),
      value: fc.integer({ min: 0, max: 99 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('marker' as const),
      value: fc.integer({ min: 0, max: 99 }),
    }),
  },
);
const program: fc.Arbitrary<Program> = fc.record({
  steps: fc.array(step, { minLength: 1, maxLength: 6 }),
  noise: fc.array(fc.integer({ min: 0, max: 2_500 }), { maxLength: 3 }),
});

/** A signal wait's timeout: long enough for the signals sent at the start to have come. */
const SIGNAL_TIMEOUT = 3;

/** What the interpreter returns for a program, step by step. */
function expected(p: Program): unknown[] {
  const sent = { a: 0, b: 0 };
  for (const s of p.steps) if (s.kind === 'signal' && s.sent) sent[s.name]++;
  const taken = { a: 0, b: 0 };
  const leafOutcome = (l: Leaf) =>
    l.kind === 'timer' ? 'slept' : l.fail ? 'failed: Asked' : l.value * 2;
  return p.steps.map((s) => {
    switch (s.kind) {
      case 'parallel':
        return s.steps.map(leafOutcome);
      case 'signal':
        return taken[s.name] < sent[s.name] ? `${s.name}-${taken[s.name]++}` : 'timed out';
      case 'cancel':
        return 'canceled';
      case 'race':
        return s.value * 2;
      case 'marker':
        return s.value * 3;
      default:
        return leafOutcome(s);
    }
  });
}

let codeService: CodeWorkflowService;
let interpreter: ReturnType<typeof define>['interpreter'];

function define() {
  const Compute = codeService.activity<Leaf & { kind: 'activity' }, number>('Compute');
  const Slow = codeService.activity<string, string>('Slow', { heartbeatTimeout: '10s' });
  const runLeaf = async (ctx: WorkflowContext, l: Leaf): Promise<unknown> => {
    if (l.kind === 'timer') return ctx.sleep(l.seconds).then(() => 'slept');
    return ctx
      .activity(Compute, l)
      .catch((e: unknown) =>
        e instanceof ActivityFailedError ? `failed: ${e.reason}` : Promise.reject(e),
      );
  };
  const runStep = async (ctx: WorkflowContext, s: Step): Promise<unknown> => {
    switch (s.kind) {
      case 'parallel':
        return Promise.all(s.steps.map((l) => runLeaf(ctx, l)));
      case 'signal':
        return (
          (await ctx.waitForSignal<string>(s.name, { timeout: SIGNAL_TIMEOUT })) ?? 'timed out'
        );
      case 'cancel': {
        const slow = ctx.scope((inner) => inner.activity(Slow, 'until cancelled'));
        await ctx.sleep(s.after);
        slow.cancel();
        return slow.catch((e: unknown) =>
          e instanceof ActivityCanceledError ? 'canceled' : String(e),
        );
      }
      case 'race':
        return ctx.race([
          ctx.activity(Compute, { kind: 'activity', value: s.value, fail: false }),
          ctx.sleep(60),
        ]);
      case 'marker':
        ctx.recordMarker('step', { value: s.value });
        return ctx.sideEffect(() => s.value * 3);
      default:
        return runLeaf(ctx, s);
    }
  };
  const interpreter = codeService.workflow('Program', async (ctx, p: Program) => {
    const trace: unknown[] = [];
    for (const s of p.steps) trace.push(await runStep(ctx, s));
    return trace;
  });
  const activities = [
    implementActivity(Compute, ({ value, fail }) => {
      if (fail) throw new ActivityFailure('Asked', `value ${value}`);
      return value * 2;
    }),
    implementActivity(Slow, async (_, ctx) => {
      for (;;) {
        await sleep(100, ctx.signal);
        if (ctx.signal.aborted) throw ctx.signal.reason;
      }
    }),
  ];
  return { interpreter, activities };
}

beforeAll(async () => {
  codeService = await startCodeWorkflowService('workflow-property');
  const defined = define();
  interpreter = defined.interpreter;
  await codeService.serve([interpreter], defined.activities, { concurrency: 4 });
}, 60_000);
afterAll(() => codeService.close());

const signal = (workflowId: string, signalName: string, input: unknown) =>
  codeService.signal(workflowId, signalName, JSON.stringify(input));

/** Runs one program and lists what went wrong: its result, and every replay that differs. */
async function check(p: Program): Promise<string[]> {
  const execution = await codeService.start(interpreter, p, uid('program'));
  const counts = { a: 0, b: 0 };
  for (const s of p.steps)
    if (s.kind === 'signal' && s.sent)
      await signal(execution.workflowId, s.name, `${s.name}-${counts[s.name]++}`);
  const noise = p.noise.map(async (ms) => {
    await sleep(ms);
    await signal(execution.workflowId, 'noise', ms).catch(() => {}); // it may have closed by then
  });
  const closed = await codeService.waitForClose(execution, 60_000);
  await Promise.all(noise);
  const problems: string[] = [];
  const want = JSON.stringify(expected(p));
  if (closed.closeStatus !== 'COMPLETED' || closed.result !== want)
    problems.push(
      `closed ${closed.closeStatus} with ${closed.result ?? closed.reason}, expected ${want}`,
    );
  const run = {
    workflowExecution: execution,
    workflowType: { name: 'Program', version: '1' },
    events: closed.events,
  };
  problems.push(...(await replayDifferences(interpreter, run)));
  return problems;
}

it('every generated program closes as its model says, and each of its decision tasks replays to its recorded decisions', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(program, { minLength: 6, maxLength: 6 }), async (programs) => {
      const problems = await Promise.all(programs.map(check));
      expect(
        problems.flatMap((list, i) =>
          list.map((line) => `program ${JSON.stringify(programs[i])}: ${line}`),
        ),
      ).toEqual([]);
    }),
    { numRuns: 2, endOnFailure: true },
  );
  expect(codeService.observations.filter((o) => o.kind !== 'decided')).toEqual([]);
  expect(codeService.logger.lines.filter((l) => l.level === 'error')).toEqual([]);
}, 240_000);
