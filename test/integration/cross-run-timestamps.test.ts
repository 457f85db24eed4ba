/**
 * Events one run causes in another are never dated before their cause, over DynamoDB Local, with a
 * clock the test sets: a writer may read its clock before another writer's commit lands, and the
 * processes' clocks may differ.
 */
import { describe, expect, it } from 'vitest';
import { carryOutRunChange } from '../../lib/operations/outbox.js';
import { domainWithType, operationsOver, startW } from '../support/operations.js';
import { storesForFile } from '../support/stores.js';

const stores = storesForFile('cross-run-time');

interface WireEvent {
  eventId: number;
  eventTimestamp: number;
  eventType: string;
  [attributes: string]: unknown;
}

function service() {
  const clock = { ms: Date.now(), now: () => clock.ms };
  const { deps, call } = operationsOver(stores(), { clock });
  const history = async (domain: string, execution: { workflowId: string; runId: unknown }) =>
    ((await call('GetWorkflowExecutionHistory', { domain, execution }))?.events ??
      []) as WireEvent[];
  const only = (events: WireEvent[], type: string) => {
    const found = events.filter((e) => e.eventType === type);
    expect(found, type).toHaveLength(1);
    return found[0] as WireEvent;
  };
  return { clock, deps, call, history, only };
}

describe('a start of a workflowId whose run closes as it commits', () => {
  it('is dated at that close, not at the earlier moment it read its clock', async () => {
    const { clock, call, history, only } = service();
    const domain = `restart-${Date.now()}`;
    await domainWithType(call, domain);
    const t0 = clock.ms;
    const first = await startW(call, domain, 'again');
    clock.ms = t0 + 2_000;
    await call('TerminateWorkflowExecution', { domain, workflowId: 'again' });
    clock.ms = t0 + 1_000; // read before the close landed

    const second = await startW(call, domain, 'again');

    const closed = only(
      await history(domain, { workflowId: 'again', runId: first?.runId }),
      'WorkflowExecutionTerminated',
    );
    const started = only(
      await history(domain, { workflowId: 'again', runId: second?.runId }),
      'WorkflowExecutionStarted',
    );
    expect(closed.eventTimestamp).toBe((t0 + 2_000) / 1000);
    expect(started.eventTimestamp).toBe(closed.eventTimestamp);
  });
});

describe('a child start of a workflowId whose run closed after the outbox read its clock', () => {
  it('starts the child at that close instead of failing it as already running', async () => {
    const { clock, deps, call, history, only } = service();
    const domain = `child-restart-${Date.now()}`;
    await domainWithType(call, domain);
    const t0 = clock.ms;
    const parent = await startW(call, domain, 'parent');
    const task = await call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    await call('RespondDecisionTaskCompleted', {
      taskToken: task?.taskToken,
      decisions: [
        {
          decisionType: 'StartChildWorkflowExecution',
          startChildWorkflowExecutionDecisionAttributes: {
            workflowType: { name: 'w', version: '1' },
            workflowId: 'kid',
          },
        },
      ],
    });
    const previous = await startW(call, domain, 'kid');
    clock.ms = t0 + 5_000; // closed by a process whose clock is ahead
    await call('TerminateWorkflowExecution', { domain, workflowId: 'kid' });
    clock.ms = t0 + 1_000;

    const loaded = await deps.runs.loadRun(String(parent?.runId));
    if (loaded === undefined) throw new Error('no parent');
    await carryOutRunChange({ ...deps, scheduler: noDeadlines }, undefined, loaded.state, true);

    const parentEvents = await history(domain, { workflowId: 'parent', runId: parent?.runId });
    const started = only(parentEvents, 'ChildWorkflowExecutionStarted');
    const kid = (
      started.childWorkflowExecutionStartedEventAttributes as {
        workflowExecution: { workflowId: string; runId: string };
      }
    ).workflowExecution;
    expect(kid.runId).not.toBe(previous?.runId);
    const closed = only(
      await history(domain, { workflowId: 'kid', runId: previous?.runId }),
      'WorkflowExecutionTerminated',
    );
    const kidStarted = only(await history(domain, kid), 'WorkflowExecutionStarted');
    expect(kidStarted.eventTimestamp).toBe(closed.eventTimestamp);
  });
});

describe("a signal to another execution whose history is ahead of the outbox's clock", () => {
  it('is heard by its sender no earlier than the target recorded it', async () => {
    const { clock, deps, call, history, only } = service();
    const domain = `signals-${Date.now()}`;
    await domainWithType(call, domain);
    const t0 = clock.ms;
    const target = await startW(call, domain, 'target');
    const sender = await startW(call, domain, 'sender');
    const task = await call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    const senderRun = { workflowId: 'sender', runId: sender?.runId };
    const taskOf = task?.workflowExecution as { workflowId: string } | undefined;
    const senderTask =
      taskOf?.workflowId === 'sender'
        ? task
        : await call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    await call('RespondDecisionTaskCompleted', {
      taskToken: senderTask?.taskToken,
      decisions: [
        {
          decisionType: 'SignalExternalWorkflowExecution',
          signalExternalWorkflowExecutionDecisionAttributes: {
            workflowId: 'target',
            signalName: 'from-sender',
          },
        },
      ],
    });
    // The target is signalled through another process whose clock is 5 s ahead.
    clock.ms = t0 + 5_000;
    await call('SignalWorkflowExecution', { domain, workflowId: 'target', signalName: 'api' });
    clock.ms = t0 + 1_000;

    const loaded = await deps.runs.loadRun(String(sender?.runId));
    if (loaded === undefined) throw new Error('no sender');
    await carryOutRunChange({ ...deps, scheduler: noDeadlines }, undefined, loaded.state, true);

    const received = (await history(domain, { workflowId: 'target', runId: target?.runId })).find(
      (e) =>
        e.eventType === 'WorkflowExecutionSignaled' && JSON.stringify(e).includes('from-sender'),
    );
    const heard = only(await history(domain, senderRun), 'ExternalWorkflowExecutionSignaled');
    expect(received?.eventTimestamp).toBe((t0 + 5_000) / 1000);
    expect(heard.eventTimestamp).toBeGreaterThanOrEqual(received?.eventTimestamp ?? Infinity);
  });
});

const noDeadlines = { arm: async () => {}, disarm: async () => {} };
