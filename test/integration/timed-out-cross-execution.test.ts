/**
 * What another execution does to a run past its own execution timeout, its fire not come yet. The API's
 * SignalWorkflowExecution, RequestCancelWorkflowExecution and TerminateWorkflowExecution are refused
 * then (c1a9639: "Once a workflow execution has timed out, you can't take any action on it other than
 * visibility calls"), and a child's close after its parent's timeout is not reported to the parent
 * (42c66ad); the same requests carried by the outbox must not beat the timeout either: a parent's
 * child policy, and a SignalExternalWorkflowExecution decision.
 */
import { describe, expect, it } from 'vitest';
import { storesForFile } from '../support/stores.js';
import { MAIN_LIST, parentWithChild } from '../support/timeout-domain.js';

const stores = storesForFile('timed-out-cross');

/** A parent (timeout 60 s, child policy `policy`) with one child (timeout 10 s) started. */
async function parentAndChild(policy: string) {
  const started = await parentWithChild(stores(), { parent: 60, child: 10, policy });
  const describeRun = async (execution: { workflowId: string; runId: string }) =>
    (await started.describeRun(execution)).executionInfo;
  return { ...started, describeRun };
}

describe('a child past its own timeout, its fire not come', () => {
  it("is not terminated by its parent's child policy: it times out", async () => {
    const { service, domain, parentRun, childRun, events, describeRun, t0 } =
      await parentAndChild('TERMINATE');
    // The child's timeout (10 s) passes; the timer service stalls.
    service.advanceStalled(t0 + 12_000);
    // The parent is terminated (its own timeout is 60 s): its policy reaches the child.
    await service.must('TerminateWorkflowExecution', { domain, ...parentRun, reason: 'r' });
    await service.deliverDue();
    expect((await events(childRun)).at(-1)?.eventType).toBe('WorkflowExecutionTimedOut');
    expect(await describeRun(childRun)).toMatchObject({ closeStatus: 'TIMED_OUT' });
  });

  it('is not signalled by a SignalExternalWorkflowExecution decision: the signal fails', async () => {
    const { service, domain, parentRun, childRun, events } = await parentAndChild('ABANDON');
    const childBefore = (await events(childRun)).length;
    // The parent's next decision task (a signal to the parent itself schedules one).
    await service.must('SignalWorkflowExecution', { domain, ...parentRun, signalName: 'go' });
    const t0 = service.clock.ms;
    const task = await service.must('PollForDecisionTask', {
      domain,
      taskList: { name: MAIN_LIST },
    });
    service.advanceStalled(t0 + 12_000);
    await service.must('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [
        {
          decisionType: 'SignalExternalWorkflowExecution',
          signalExternalWorkflowExecutionDecisionAttributes: {
            workflowId: childRun.workflowId,
            signalName: 'late',
          },
        },
      ],
    });
    // The child had timed out when the signal reached it: nothing is recorded in it but its timeout.
    expect((await events(childRun)).length).toBe(childBefore);
    await service.deliverDue(childRun.runId);
    expect((await events(childRun)).slice(childBefore).map((e) => e.eventType)).toEqual([
      'WorkflowExecutionTimedOut',
    ]);
  });
});
