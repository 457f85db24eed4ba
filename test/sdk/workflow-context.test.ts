/**
 * What the workflow context asks for, given the first decision task of a run (its events built
 * here): the decisions of cancellations, scopes and races, signals taken in order, deterministic
 * helpers, and how the function's end closes the run. The first task is decided live, so its
 * decisions are exactly what the code asks for.
 */
import type { Decision, HistoryEvent } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import {
  CanceledError,
  defineActivity,
  defineWorkflow,
  replayWorkflow,
  silentLogger,
  type WorkflowContext,
  workflowReference,
} from '../../lib/sdk/index.js';

const Work = defineActivity<string, string>('Work', '1', { taskList: 'work' });
const execution = { workflowId: 'wf', runId: 'run-1' };

type Received = Omit<HistoryEvent, 'eventId' | 'eventTimestamp'>;

/** The first decision task of a run: started with `input`, with `received` before it (signals …). */
function firstTask(input: unknown, received: Received[] = []): HistoryEvent[] {
  const at = new Date(Date.UTC(2025, 0, 1));
  const events: Received[] = [
    {
      eventType: 'WorkflowExecutionStarted',
      workflowExecutionStartedEventAttributes: {
        input: JSON.stringify(input),
        taskList: { name: 'd' },
        workflowType: { name: 'T', version: '1' },
        childPolicy: 'TERMINATE',
        taskStartToCloseTimeout: '60',
      },
    },
    ...received,
    { eventType: 'DecisionTaskScheduled' },
    { eventType: 'DecisionTaskStarted' },
  ];
  return events.map((e, i) => ({ ...e, eventTimestamp: at, eventId: i + 1 }));
}

const signal = (signalName: string, input?: string): Received => ({
  eventType: 'WorkflowExecutionSignaled',
  workflowExecutionSignaledEventAttributes: {
    signalName,
    ...(input === undefined ? {} : { input }),
  },
});

/** The decisions the first task of `run` gets, each as `type id-or-name detail`. */
async function decide(
  run: (ctx: WorkflowContext, input: unknown) => Promise<unknown>,
  input: unknown = null,
  received: Received[] = [],
  runId = execution.runId,
) {
  const outcome = await replayWorkflow(
    defineWorkflow('T', '1', run),
    { events: firstTask(input, received), workflowExecution: { ...execution, runId } },
    silentLogger,
  );
  if (outcome.kind !== 'decided') throw outcome.error;
  return outcome.decisions.map(brief);
}

function brief(d: Decision): string {
  const a = Object.values(d).find((v) => typeof v === 'object' && v !== null) ?? {};
  const pick = [
    'activityId',
    'timerId',
    'markerName',
    'workflowId',
    'id',
    'signalName',
    'details',
    'result',
    'reason',
    'input',
  ]
    .map((k) => Reflect.get(a, k))
    .filter((v) => v !== undefined);
  return [d.decisionType, ...pick].join(' ');
}

describe('cancelling', () => {
  it('an activity sends RequestCancelActivityTask after its ScheduleActivityTask', async () => {
    expect(
      await decide(async (ctx) => {
        ctx.activity(Work, 'a').cancel();
        await ctx.waitForSignal('never');
      }),
    ).toEqual(['ScheduleActivityTask 1 "a"', 'RequestCancelActivityTask 1']);
  });

  it('a timer sends CancelTimer, and its promise rejects at once with CanceledError', async () => {
    const decisions = await decide(async (ctx) => {
      const timer = ctx.sleep('1h');
      timer.cancel();
      return timer.then(
        () => 'fired',
        (e: unknown) => (e instanceof CanceledError ? e.message : 'other'),
      );
    });
    expect(decisions).toEqual([
      'StartTimer 1',
      'CancelTimer 1',
      'CompleteWorkflowExecution "timer 1 was cancelled by the workflow"',
    ]);
  });

  it('an operation started in a cancelled scope asks for nothing and rejects', async () => {
    const decisions = await decide(async (ctx) => {
      const scope = ctx.scope(async (inner) => {
        await Promise.resolve();
        return inner.activity(Work, 'late');
      });
      scope.cancel();
      return scope.catch((e: unknown) => (e instanceof Error ? e.name : 'other'));
    });
    expect(decisions).toEqual(['CompleteWorkflowExecution "CanceledError"']);
  });

  it('a cancelled scope cancels every operation it holds, nested scopes included; a detached one is left', async () => {
    const decisions = await decide(async (ctx) => {
      const outer = ctx.scope(async (s) => {
        void s.activity(Work, 'in outer');
        void s.scope(async (inner) => inner.sleep(60));
        void s.scope(async (kept) => kept.sleep(30), { detached: true });
        await s.waitForSignal('never');
      });
      outer.cancel();
      await outer.catch(() => {});
      return 'done';
    });
    expect(decisions).toEqual([
      'ScheduleActivityTask 1 "in outer"',
      'StartTimer 1',
      'StartTimer 2',
      'RequestCancelActivityTask 1',
      'CancelTimer 1',
      'CompleteWorkflowExecution "done"',
    ]);
  });
});

describe('races', () => {
  const raced = (how: 'race' | 'leave' | 'native') => async (ctx: WorkflowContext) => {
    const ops = [ctx.sleep(60), ctx.waitForSignal<string>('go')] as const;
    if (how === 'native') return Promise.race(ops);
    return ctx.race([...ops], how === 'leave' ? { losers: 'leave' } : {});
  };

  it('ctx.race cancels the losers once one wins', async () => {
    expect(await decide(raced('race'), null, [signal('go', '"now"')])).toEqual([
      'StartTimer 1',
      'CancelTimer 1',
      'CompleteWorkflowExecution "now"',
    ]);
  });

  it('with { losers: "leave" }, or with Promise.race, the losers are left running', async () => {
    const left = ['StartTimer 1', 'CompleteWorkflowExecution "now"'];
    expect(await decide(raced('leave'), null, [signal('go', '"now"')])).toEqual(left);
    expect(await decide(raced('native'), null, [signal('go', '"now"')])).toEqual(left);
  });

  it('given an object, says which key won', async () => {
    const decisions = await decide(
      async (ctx) => {
        const won = await ctx.race({ timer: ctx.sleep(5), go: ctx.waitForSignal('go') });
        return won.key;
      },
      null,
      [signal('go', '1')],
    );
    expect(decisions.at(-1)).toBe('CompleteWorkflowExecution "go"');
  });
});

describe('signals', () => {
  it('are taken one each, oldest first, by whoever waits first; a wait with a timeout starts no timer for a signal already there', async () => {
    const decisions = await decide(
      async (ctx) => {
        const first = await ctx.waitForSignal('x', { timeout: 10 });
        const second = await ctx.waitForSignal('x');
        const other = await ctx.waitForSignal('y');
        return [first, second, other];
      },
      null,
      [signal('y', '"why"'), signal('x', '1'), signal('x', '2')],
    );
    expect(decisions).toEqual(['CompleteWorkflowExecution [1,2,"why"]']);
  });

  it('as an async iterable: every signal in order, null for one without input', async () => {
    const decisions = await decide(
      async (ctx) => {
        const seen: unknown[] = [];
        for await (const s of ctx.signals()) {
          seen.push([s.name, s.input]);
          if (seen.length === 3) break;
        }
        return seen;
      },
      null,
      [signal('a', '1'), signal('b'), signal('a', '"three"')],
    );
    expect(decisions).toEqual(['CompleteWorkflowExecution [["a",1],["b",null],["a","three"]]']);
  });

  it('a cancel request: ctx.cancelRequested, and whenCancelRequested resolves at once', async () => {
    const decisions = await decide(
      async (ctx) => {
        await ctx.whenCancelRequested();
        return ctx.closeAsCanceled({ asked: ctx.cancelRequested });
      },
      null,
      [
        {
          eventType: 'WorkflowExecutionCancelRequested',
          workflowExecutionCancelRequestedEventAttributes: {},
        },
      ],
    );
    expect(decisions).toEqual(['CancelWorkflowExecution {"asked":true}']);
  });
});

describe('deterministic helpers', () => {
  const helpers = async (ctx: WorkflowContext) => [
    ctx.random(),
    ctx.uuid(),
    ctx.now().toISOString(),
  ];

  it('random() and uuid() are the same on every replay of a run, and differ between runs', async () => {
    const [a, b, c] = [
      await decide(helpers),
      await decide(helpers),
      await decide(helpers, null, [], 'run-2'),
    ];
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const [random, uuid, now] = JSON.parse(String(a[0]).replace('CompleteWorkflowExecution ', ''));
    expect(random).toBeGreaterThanOrEqual(0);
    expect(random).toBeLessThan(1);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(now).toBe('2025-01-01T00:00:00.000Z');
  });

  it('sideEffect records its value in a marker; an asynchronous one fails the run with why', async () => {
    expect(await decide(async (ctx) => ctx.sideEffect(() => ({ n: 7 })))).toEqual([
      'RecordMarker sdk:SideEffect {"n":7}',
      'CompleteWorkflowExecution {"n":7}',
    ]);
    const failed = await decide(async (ctx) => ctx.sideEffect(async () => 1));
    expect(failed).toEqual([
      expect.stringMatching(
        /^FailWorkflowExecution TypeError: ctx.sideEffect takes a synchronous function/,
      ),
    ]);
  });

  it('using the context after the decision task (a host timer awaited) throws, saying why', async () => {
    let caught: unknown;
    await decide(async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      try {
        void ctx.sleep(1);
      } catch (error) {
        caught = error;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(String(caught)).toMatch(
      /used after its decision task was decided: workflow code must await only its context operations/,
    );
  });
});

describe('decisions of the other operations', () => {
  it('ids follow the order of the calls, one sequence per kind', async () => {
    const decisions = await decide(async (ctx) => {
      void ctx.activity(Work, 'a');
      void ctx.sleep(1);
      void ctx.activity(Work, 'b', { activityId: 'mine' });
      void ctx.activity(Work, 'c');
      void ctx.lambda('fn', { x: 1 });
      void ctx.child(workflowReference('Child', '1'), 'in');
      void ctx.signalWorkflow({ workflowId: 'other' }, 'ping', 3);
      void ctx.requestCancelWorkflow({ workflowId: 'other' });
      ctx.recordMarker('note', 'plain');
      await ctx.waitForSignal('never');
    });
    expect(decisions).toEqual([
      'ScheduleActivityTask 1 "a"',
      'StartTimer 1',
      'ScheduleActivityTask mine "b"',
      'ScheduleActivityTask 2 "c"',
      'ScheduleLambdaFunction 1 {"x":1}',
      'StartChildWorkflowExecution wf:run-1:1 "in"',
      'SignalExternalWorkflowExecution other ping 3',
      'RequestCancelExternalWorkflowExecution other',
      'RecordMarker note plain',
    ]);
  });

  it('closing: a return completes, fail() and a throw fail, continueAsNew continues', async () => {
    expect(await decide(async (ctx) => ctx.fail('bad order', { id: 3 }))).toEqual([
      'FailWorkflowExecution {"id":3} bad order',
    ]);
    expect(
      await decide(async () => {
        throw new RangeError('out of range');
      }),
    ).toEqual([
      expect.stringMatching(/^FailWorkflowExecution RangeError: out of range\n.* out of range$/s),
    ]);
    expect(await decide(async (ctx) => ctx.continueAsNew({ round: 2 }))).toEqual([
      'ContinueAsNewWorkflowExecution {"round":2}',
    ]);
    expect(await decide(async () => undefined)).toEqual(['CompleteWorkflowExecution']);
  });
});
