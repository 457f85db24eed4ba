/**
 * Scenarios of the SWF Developer Guide, end to end through the official SDK, on the order system of
 * test/support/order-system.ts: continue-as-new for a recursive workflow.
 */
import { RespondActivityTaskCompletedCommand } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { decide, eventTypes, expectFault, single, uid } from '../support/decider.js';
import { activity, loopWorkflow, orderSystemForFile } from '../support/order-system.js';

const orders = orderSystemForFile();

describe('continue-as-new: a recursive workflow that counts its loops with a marker', () => {
  it('runs three generations under one workflowId, each continuing the previous one', async () => {
    const deciders = uid('deciders');
    const workers = uid('batches');
    const workflowId = uid('batch-loop');
    const first = await orders.driver.start(loopWorkflow, {
      workflowId,
      taskList: { name: deciders },
      input: '1',
    });
    const runs: string[] = [first.execution.runId];

    for (let generation = 1; generation <= 3; generation++) {
      const task = await orders.driver.pollDecision(deciders);
      expect(task.workflowExecution).toEqual({ workflowId, runId: runs.at(-1) });
      const started = task.events[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.input).toBe(String(generation));
      expect(started?.continuedExecutionRunId).toBe(generation === 1 ? undefined : runs.at(-2));
      await orders.driver.respond(task.taskToken, [
        decide.scheduleActivity({
          activityType: activity('ProcessBatch'),
          activityId: 'batch',
          taskList: { name: workers },
          input: String(generation),
        }),
      ]);
      const batch = await orders.driver.pollActivity(workers);
      expect(batch.workflowExecution).toEqual({ workflowId, runId: runs.at(-1) });
      await orders.swf.send(
        new RespondActivityTaskCompletedCommand({ taskToken: batch.taskToken }),
      );
      const after = await orders.driver.pollDecision(deciders);
      if (generation < 3) {
        await orders.driver.respond(after.taskToken, [
          decide.marker('loops', String(generation)),
          decide.continueAsNew({ input: String(generation + 1), taskList: { name: deciders } }),
        ]);
        const continued = single(
          await orders.driver.history({ workflowId, runId: runs.at(-1) }),
          'WorkflowExecutionContinuedAsNew',
        );
        runs.push(
          continued.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? '',
        );
      } else {
        await orders.driver.respond(after.taskToken, [
          decide.marker('loops', '3'),
          decide.complete('3 loops'),
        ]);
      }
    }

    expect(new Set(runs).size).toBe(3);
    const statuses = await Promise.all(
      runs.map(
        async (runId) =>
          (await orders.driver.describe({ workflowId, runId })).executionInfo?.closeStatus,
      ),
    );
    expect(statuses).toEqual(['CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'COMPLETED']);
    for (const runId of runs) {
      const history = await orders.driver.history({ workflowId, runId });
      expect(eventTypes(history).slice(-2)[0]).toBe('MarkerRecorded');
    }
    // no run of the workflowId is open any more
    await expectFault(orders.driver.signal({ workflowId }), 'UnknownResourceFault');
  });
});
