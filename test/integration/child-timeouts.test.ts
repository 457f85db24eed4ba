/**
 * A child execution's timeout and its parent's, each first, with the timer service punctual, late or
 * stalled: what the parent records, and what its child policy does to the child.
 */
import { describe, expect, it } from 'vitest';
import { storesForFile } from '../support/stores.js';
import { parentWithChild } from '../support/timeout-domain.js';

const stores = storesForFile('child-timeouts');

/** A parent (execution timeout `parent` s, child policy `policy`) that has started one child (`child` s). */
const parentAndChild = (parent: number, child: number, policy: string) =>
  parentWithChild(stores(), { parent, child, policy });

describe("a child's timeouts, as its parent sees them", () => {
  for (const mode of ['punctual', 'late'] as const)
    it(`the child times out first: ChildWorkflowExecutionTimedOut in the parent (${mode} fire)`, async () => {
      const { service, parentRun, childRun, events, describeRun, t0 } = await parentAndChild(
        60,
        10,
        'TERMINATE',
      );
      expect((await describeRun(parentRun)).openCounts).toMatchObject({
        openChildWorkflowExecutions: 1,
      });
      if (mode === 'late') await service.advanceLate(t0 + 25_000);
      else await service.advancePunctual(t0 + 25_000);
      const child = await events(childRun);
      expect(child.at(-1)).toMatchObject({
        eventType: 'WorkflowExecutionTimedOut',
        workflowExecutionTimedOutEventAttributes: {
          timeoutType: 'START_TO_CLOSE',
          childPolicy: 'ABANDON',
        },
      });
      const parent = await events(parentRun);
      const initiated = parent.find((e) => e.eventType === 'StartChildWorkflowExecutionInitiated');
      const started = parent.find((e) => e.eventType === 'ChildWorkflowExecutionStarted');
      // ChildWorkflowExecutionStarted scheduled a decision task that no decider has taken yet: the
      // timeout joins it, no second one is scheduled.
      expect(parent.slice(-3).map((e) => e.eventType)).toEqual([
        'ChildWorkflowExecutionStarted',
        'DecisionTaskScheduled',
        'ChildWorkflowExecutionTimedOut',
      ]);
      expect(parent.at(-1)?.childWorkflowExecutionTimedOutEventAttributes).toEqual({
        workflowExecution: childRun,
        workflowType: { name: 'w', version: '1' },
        timeoutType: 'START_TO_CLOSE',
        initiatedEventId: initiated?.eventId,
        startedEventId: started?.eventId,
      });
      expect((await describeRun(parentRun)).openCounts).toMatchObject({
        openChildWorkflowExecutions: 0,
        openDecisionTasks: 1,
      });
      expect((await describeRun(childRun)).executionInfo).toMatchObject({
        executionStatus: 'CLOSED',
        closeStatus: 'TIMED_OUT',
      });
    });

  for (const policy of ['TERMINATE', 'REQUEST_CANCEL', 'ABANDON'])
    it(`the parent times out first: its child policy ${policy} is applied, and the child's own timeout later tells the closed parent nothing`, async () => {
      const { service, parentRun, childRun, events, describeRun, t0 } = await parentAndChild(
        10,
        30,
        policy,
      );
      await service.advanceLate(t0 + 15_000);
      const parent = await events(parentRun);
      expect(parent.at(-1)).toMatchObject({
        eventType: 'WorkflowExecutionTimedOut',
        workflowExecutionTimedOutEventAttributes: {
          timeoutType: 'START_TO_CLOSE',
          childPolicy: policy,
        },
      });
      const child = await events(childRun);
      const childInfo = (await describeRun(childRun)).executionInfo;
      if (policy === 'TERMINATE') {
        // The child's own policy is recorded; the cause says the parent's policy closed it.
        expect(child.at(-1)).toMatchObject({
          eventType: 'WorkflowExecutionTerminated',
          workflowExecutionTerminatedEventAttributes: {
            childPolicy: 'ABANDON',
            cause: 'CHILD_POLICY_APPLIED',
          },
        });
        expect(childInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TERMINATED' });
      } else if (policy === 'REQUEST_CANCEL') {
        expect(child.map((e) => e.eventType)).toEqual([
          'WorkflowExecutionStarted',
          'DecisionTaskScheduled',
          'WorkflowExecutionCancelRequested',
        ]);
        expect(child.at(-1)?.workflowExecutionCancelRequestedEventAttributes).toEqual({
          cause: 'CHILD_POLICY_APPLIED',
        });
        expect(childInfo).toMatchObject({ executionStatus: 'OPEN', cancelRequested: true });
      } else {
        expect(child.map((e) => e.eventType)).toEqual([
          'WorkflowExecutionStarted',
          'DecisionTaskScheduled',
        ]);
        expect(childInfo).toMatchObject({ executionStatus: 'OPEN' });
      }
      const parentLength = parent.length;
      await service.advanceLate(t0 + 45_000);
      expect((await events(parentRun)).length).toBe(parentLength);
      if (policy !== 'TERMINATE')
        expect((await events(childRun)).at(-1)?.eventType).toBe('WorkflowExecutionTimedOut');
    });

  it("a child that times out after its parent's own timeout passed, the parent's fire not come, is not reported to the parent", async () => {
    // The parent's timeout (10 s) passes first, then the child's (12 s); the timer service reaches the
    // child first. The parent timed out at 10 s: it hears of nothing after that.
    const { service, parentRun, childRun, events, t0 } = await parentAndChild(10, 12, 'ABANDON');
    const before = (await events(parentRun)).length;
    service.advanceStalled(t0 + 13_000);
    await service.deliverDue(childRun.runId);
    expect((await events(childRun)).at(-1)?.eventType).toBe('WorkflowExecutionTimedOut');
    expect((await events(parentRun)).length).toBe(before);
    await service.deliverDue();
    const parent = await events(parentRun);
    expect(parent.slice(before).map((e) => e.eventType)).toEqual(['WorkflowExecutionTimedOut']);
  });
});
