/**
 * What another execution does to a run past its own execution timeout, its fire not come yet. The API's
 * SignalWorkflowExecution, RequestCancelWorkflowExecution and TerminateWorkflowExecution are refused
 * then (c1a9639: "Once a workflow execution has timed out, you can't take any action on it other than
 * visibility calls"), and a child's close after its parent's timeout is not reported to the parent
 * (42c66ad); the same requests carried by the outbox must not beat the timeout either: a parent's
 * child policy, and a SignalExternalWorkflowExecution decision.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClockService } from '../support/manual-clock-service.js';
import { storesForFile } from '../support/stores.js';

const stores = storesForFile('timed-out-cross');
const LIST = 'deciders';
let clockBase = Date.UTC(2031, 0, 1);

type Event = { eventType: string; [k: string]: unknown };

/** A parent (timeout 60 s, child policy `policy`) with one child (timeout 10 s) started. */
async function parentAndChild(policy: string) {
  clockBase += 30 * 86_400_000;
  const service = new ManualClockService(stores(), clockBase);
  const domain = `tc-${randomUUID().slice(0, 8)}`;
  await service.must('RegisterDomain', {
    name: domain,
    workflowExecutionRetentionPeriodInDays: '1',
  });
  await service.must('RegisterWorkflowType', {
    domain,
    name: 'w',
    version: '1',
    defaultTaskList: { name: LIST },
    defaultExecutionStartToCloseTimeout: '600',
    defaultTaskStartToCloseTimeout: 'NONE',
    defaultChildPolicy: 'ABANDON',
  });
  service.clock.ms += 1_000;
  const started = await service.must('StartWorkflowExecution', {
    domain,
    workflowId: 'parent',
    workflowType: { name: 'w', version: '1' },
    executionStartToCloseTimeout: '60',
    childPolicy: policy,
  });
  const parentRun = { workflowId: 'parent', runId: started.runId as string };
  const task = await service.must('PollForDecisionTask', { domain, taskList: { name: LIST } });
  await service.must('RespondDecisionTaskCompleted', {
    taskToken: task.taskToken,
    decisions: [
      {
        decisionType: 'StartChildWorkflowExecution',
        startChildWorkflowExecutionDecisionAttributes: {
          workflowType: { name: 'w', version: '1' },
          workflowId: 'child',
          taskList: { name: 'child-deciders' },
          executionStartToCloseTimeout: '10',
          childPolicy: 'ABANDON',
        },
      },
    ],
  });
  const events = async (execution: { workflowId: string; runId: string }) =>
    ((await service.must('GetWorkflowExecutionHistory', { domain, execution })).events ??
      []) as Event[];
  const childStarted = (await events(parentRun)).find(
    (e) => e.eventType === 'ChildWorkflowExecutionStarted',
  );
  if (childStarted === undefined) throw new Error('the child did not start');
  const childRun = (
    childStarted.childWorkflowExecutionStartedEventAttributes as {
      workflowExecution: { workflowId: string; runId: string };
    }
  ).workflowExecution;
  const describeRun = async (execution: { workflowId: string; runId: string }) =>
    (await service.must('DescribeWorkflowExecution', { domain, execution })).executionInfo;
  return { service, domain, parentRun, childRun, events, describeRun, t0: service.clock.ms };
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
    const task = await service.must('PollForDecisionTask', { domain, taskList: { name: LIST } });
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
