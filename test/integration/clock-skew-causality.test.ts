/**
 * Several service instances (Lambda containers) on ONE table whose clocks differ by tens of
 * milliseconds, as deployed. Each instance has operations of its own over the same DynamoDB Local table,
 * with its own clock: `real` is the true time, `fast` reads it 50 ms ahead, `slow` (and the outbox,
 * the stream consumer's instance) read it exactly.
 *
 * A run's own history never goes back (Transition holds its events at or after its latest one), and
 * what one run causes in ANOTHER run (a continued run, a child, a signalled target, a parent told of
 * its child's close, a child its parent's policy ends) is dated no earlier than its cause, though the
 * instance that carries it out reads a clock behind the one that wrote the cause. Before, it was
 * stamped with that instance's raw clock (cross-run-timestamps.test.ts holds the same rule for a
 * restarted workflowId: a continued run dated before its predecessor's close made two open runs of one
 * workflowId in time-based lists).
 */
import { describe, expect, it } from 'vitest';
import { carryOutRunChange } from '../../lib/operations/outbox.js';
import { type CallOperation, domainWithType, operationsOver } from '../support/operations.js';
import { storesForFile } from '../support/stores.js';

const stores = storesForFile('clock-skew');
const noDeadlines = { arm: async () => {}, disarm: async () => {} };

interface WireEvent {
  eventId: number;
  eventTimestamp: number;
  eventType: string;
  [attributes: string]: unknown;
}

function instances() {
  const real = { ms: Date.now() };
  const at = (offsetMs: number) =>
    operationsOver(stores(), { clock: { now: () => real.ms + offsetMs } });
  const fast = at(50); // a container whose clock is 50 ms ahead
  const slow = at(0);
  const outbox = { ...slow.deps, scheduler: noDeadlines }; // the stream consumer, on the true time
  return { real, fast, slow, outbox };
}

const history = async (
  call: CallOperation,
  domain: string,
  execution: { workflowId: string; runId: unknown },
) =>
  ((await call('GetWorkflowExecutionHistory', { domain, execution, maximumPageSize: 1000 }))
    ?.events ?? []) as WireEvent[];

const only = (events: WireEvent[], type: string) => {
  const found = events.filter((e) => e.eventType === type);
  expect(found, type).toHaveLength(1);
  return found[0] as WireEvent;
};

async function startOn(call: CallOperation, domain: string, workflowId: string, list: string) {
  const out = await call('StartWorkflowExecution', {
    domain,
    workflowId,
    workflowType: { name: 'w', version: '1' },
    taskList: { name: list },
  });
  return { workflowId, runId: String(out?.runId) };
}

async function decide(call: CallOperation, taskToken: string, decisions: unknown[]) {
  await call('RespondDecisionTaskCompleted', { taskToken, decisions });
}

const startKid = {
  decisionType: 'StartChildWorkflowExecution',
  startChildWorkflowExecutionDecisionAttributes: {
    workflowType: { name: 'w', version: '1' },
    workflowId: 'kid',
    taskList: { name: 'kid' },
  },
};

/** Makes a change of a run, then has the outbox (the stream consumer) carry out what it asks. */
async function carriedOut(
  outbox: ReturnType<typeof instances>['outbox'],
  runId: string,
  change: () => Promise<unknown>,
) {
  const before = await outbox.runs.loadRun(runId);
  await change();
  const after = await outbox.runs.loadRun(runId);
  if (after === undefined) throw new Error(`no run ${runId}`);
  await carryOutRunChange(outbox, before?.state, after.state, true);
}

/** The child a parent's history says it started. */
function kidOf(events: WireEvent[]) {
  const started = only(events, 'ChildWorkflowExecutionStarted') as unknown as {
    childWorkflowExecutionStartedEventAttributes: {
      workflowExecution: { workflowId: string; runId: string };
    };
  };
  return started.childWorkflowExecutionStartedEventAttributes.workflowExecution;
}

async function pollToken(call: CallOperation, domain: string, list: string) {
  const task = await call('PollForDecisionTask', { domain, taskList: { name: list } });
  const token = task?.taskToken;
  if (typeof token !== 'string' || token === '') throw new Error(`no decision task on ${list}`);
  return token;
}

describe('continue-as-new through an instance 50 ms behind the one that wrote the last event', () => {
  it('starts the new run no earlier than the old one closed', async () => {
    const { real, fast, slow } = instances();
    const domain = `can-${Date.now()}`;
    await domainWithType(slow.call, domain);
    const first = await startOn(slow.call, domain, 'cont', 'cont');
    real.ms += 10;
    await fast.call('SignalWorkflowExecution', { domain, workflowId: 'cont', signalName: 's' });
    real.ms += 5;
    const token = await pollToken(slow.call, domain, 'cont');
    real.ms += 5;
    await decide(slow.call, token, [
      {
        decisionType: 'ContinueAsNewWorkflowExecution',
        continueAsNewWorkflowExecutionDecisionAttributes: { taskList: { name: 'cont' } },
      },
    ]);
    const old = (await slow.call('DescribeWorkflowExecution', { domain, execution: first }))
      ?.executionInfo as { closeTimestamp: number; closeStatus: string };
    expect(old.closeStatus).toBe('CONTINUED_AS_NEW');
    const continued = only(
      await history(slow.call, domain, first),
      'WorkflowExecutionContinuedAsNew',
    ) as unknown as {
      workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: string };
    };
    const next = {
      workflowId: 'cont',
      runId: continued.workflowExecutionContinuedAsNewEventAttributes.newExecutionRunId,
    };
    const now = (await slow.call('DescribeWorkflowExecution', { domain, execution: next }))
      ?.executionInfo as { startTimestamp: number; executionStatus: string };
    expect(now.executionStatus).toBe('OPEN');
    // Before: the new run started 40 ms before its predecessor closed, so for those 40 ms the
    // workflowId had two open runs by their start/close times (SWF: one open run per workflowId).
    expect(now.startTimestamp).toBeGreaterThanOrEqual(old.closeTimestamp);
  });
});

describe('a signal decided through an instance 50 ms ahead, delivered by the outbox', () => {
  it('arrives in the target no earlier than the sender initiated it', async () => {
    const { real, fast, slow, outbox } = instances();
    const domain = `sig-${Date.now()}`;
    await domainWithType(slow.call, domain);
    const target = await startOn(slow.call, domain, 'target', 'target');
    const sender = await startOn(slow.call, domain, 'sender', 'sender');
    const token = await pollToken(slow.call, domain, 'sender');
    real.ms += 10;
    await carriedOut(outbox, sender.runId, async () => {
      await decide(fast.call, token, [
        {
          decisionType: 'SignalExternalWorkflowExecution',
          signalExternalWorkflowExecutionDecisionAttributes: {
            workflowId: 'target',
            signalName: 'hello',
          },
        },
      ]);
      real.ms += 5;
    });

    const initiated = only(
      await history(slow.call, domain, sender),
      'SignalExternalWorkflowExecutionInitiated',
    );
    const arrived = only(await history(slow.call, domain, target), 'WorkflowExecutionSignaled');
    expect(arrived.eventTimestamp).toBeGreaterThanOrEqual(initiated.eventTimestamp);
  });
});

describe('a child started by the outbox for a decision made through an instance 50 ms ahead', () => {
  it('is started no earlier than its parent initiated it, and its close reaches the parent after it', async () => {
    const { real, fast, slow, outbox } = instances();
    const domain = `kid-${Date.now()}`;
    await domainWithType(slow.call, domain);
    const parent = await startOn(slow.call, domain, 'parent', 'parent');
    const token = await pollToken(slow.call, domain, 'parent');
    real.ms += 10;
    await carriedOut(outbox, parent.runId, async () => {
      await decide(fast.call, token, [startKid]);
      real.ms += 5;
    });
    const parentEvents = await history(slow.call, domain, parent);
    const initiated = only(parentEvents, 'StartChildWorkflowExecutionInitiated');
    const kid = kidOf(parentEvents);
    const kidStarted = only(await history(slow.call, domain, kid), 'WorkflowExecutionStarted');

    // The child completes through the fast instance; the outbox tells the parent.
    real.ms += 20;
    const kidToken = await pollToken(slow.call, domain, 'kid');
    real.ms += 5;
    await carriedOut(outbox, kid.runId, async () => {
      await decide(fast.call, kidToken, [{ decisionType: 'CompleteWorkflowExecution' }]);
      real.ms += 5;
    });
    const kidClosed = only(await history(slow.call, domain, kid), 'WorkflowExecutionCompleted');
    const heard = only(await history(slow.call, domain, parent), 'ChildWorkflowExecutionCompleted');

    const observed = {
      childStartedMinusInitiatedMs: Math.round(
        (kidStarted.eventTimestamp - initiated.eventTimestamp) * 1000,
      ),
      parentHeardMinusChildClosedMs: Math.round(
        (heard.eventTimestamp - kidClosed.eventTimestamp) * 1000,
      ),
    };
    expect(observed.childStartedMinusInitiatedMs, JSON.stringify(observed)).toBeGreaterThanOrEqual(
      0,
    );
    expect(observed.parentHeardMinusChildClosedMs, JSON.stringify(observed)).toBeGreaterThanOrEqual(
      0,
    );
  });
});

describe('a child policy applied by the outbox to a parent terminated through an instance 50 ms ahead', () => {
  it("terminates the child no earlier than the parent's close", async () => {
    const { real, fast, slow, outbox } = instances();
    const domain = `pol-${Date.now()}`;
    await domainWithType(slow.call, domain);
    const parent = await startOn(slow.call, domain, 'parent', 'parent');
    const token = await pollToken(slow.call, domain, 'parent');
    await carriedOut(outbox, parent.runId, () => decide(slow.call, token, [startKid]));

    // The parent is terminated through the fast instance; its child policy ends the child.
    real.ms += 10;
    await carriedOut(outbox, parent.runId, async () => {
      await fast.call('TerminateWorkflowExecution', {
        domain,
        workflowId: 'parent',
        childPolicy: 'TERMINATE',
      });
      real.ms += 5;
    });

    const parentEvents = await history(slow.call, domain, parent);
    const parentClosed = only(parentEvents, 'WorkflowExecutionTerminated');
    const kid = kidOf(parentEvents);
    const terminated = only(await history(slow.call, domain, kid), 'WorkflowExecutionTerminated');
    expect(terminated.eventTimestamp).toBeGreaterThanOrEqual(parentClosed.eventTimestamp);
  });
});
