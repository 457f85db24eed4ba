/**
 * Effects addressed to a workflowId follow it across a continue-as-new that lands between the outbox's
 * read of the workflowId's open run and its commit (another process's commit): a workflowId has an
 * open run the whole time, and the effect reaches it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import { carryOutRunChange, type OutboxDeps } from '../../lib/operations/outbox.js';
import type { ExecutionStore } from '../../lib/ports/execution-store.js';
import { decide, historyTypes, type Rig, rig, start } from '../support/outbox-rig.js';

let r: Rig;
beforeAll(async () => {
  r = await rig();
});
afterAll(() => r.close());

const state = async (runId: string) => {
  const loaded = await r.outbox.executions.loadRun(runId);
  if (loaded === undefined) throw new Error(`no run ${runId}`);
  return loaded.state;
};

/** The outbox, with `between` run once right after its first read of a workflowId's open run. */
function racing(between: () => Promise<void>): OutboxDeps {
  const real = r.outbox.executions;
  let done = false;
  const executions = Object.create(real) as ExecutionStore;
  executions.findOpenRun = async (domain, workflowId) => {
    const runId = await real.findOpenRun(domain, workflowId);
    if (!done) {
      done = true;
      await between();
    }
    return runId;
  };
  return { ...r.outbox, executions };
}

const continueAsNew = (taskList: string) =>
  decide(r, taskList, [
    {
      decisionType: 'ContinueAsNewWorkflowExecution',
      continueAsNewWorkflowExecutionDecisionAttributes: { taskList: { name: `${taskList}-2` } },
    },
  ]);

/**
 * Carries out a run's change while `workflowId` (on `taskList`) continues as new in between the
 * outbox's read of its open run and the commit; the workflowId's new run.
 */
async function carryOutAcrossContinue(
  before: ExecutionState,
  after: ExecutionState,
  taskList: string,
  workflowId: string,
  firstRunId: string | undefined,
): Promise<string> {
  await carryOutRunChange(
    racing(() => continueAsNew(taskList)),
    before,
    after,
  );
  const next = String(await r.outbox.executions.findOpenRun(r.domain, workflowId));
  expect(next).not.toBe(firstRunId);
  return next;
}

describe('a workflowId whose run continues as new meanwhile', () => {
  it('gets a signal sent to it, in its new run', async () => {
    const a = await start(r, 'SA', 'tl-sa');
    const b1 = await start(r, 'SB', 'tl-sb');
    const before = await state(a);
    await decide(r, 'tl-sa', [
      {
        decisionType: 'SignalExternalWorkflowExecution',
        signalExternalWorkflowExecutionDecisionAttributes: { workflowId: 'SB', signalName: 'go' },
      },
    ]);
    const b2 = await carryOutAcrossContinue(before, await state(a), 'tl-sb', 'SB', b1);
    expect(await historyTypes(r, b2)).toContain('WorkflowExecutionSignaled');
    const sender = await historyTypes(r, a);
    expect(sender).toContain('ExternalWorkflowExecutionSignaled');
    expect(sender).not.toContain('SignalExternalWorkflowExecutionFailed');
  });

  it("is terminated in its new run by its parent's TERMINATE child policy", async () => {
    const p = await start(r, 'P', 'tl-p');
    const s0 = await state(p);
    await decide(r, 'tl-p', [
      {
        decisionType: 'StartChildWorkflowExecution',
        startChildWorkflowExecutionDecisionAttributes: {
          workflowId: 'C',
          workflowType: { name: 'w', version: '1' },
          taskList: { name: 'tl-c' },
        },
      },
    ]);
    await carryOutRunChange(r.outbox, s0, await state(p)); // starts the child
    const c1 = await r.outbox.executions.findOpenRun(r.domain, 'C');
    const open = await state(p);
    await r.call('TerminateWorkflowExecution', {
      domain: r.domain,
      workflowId: 'P',
      childPolicy: 'TERMINATE',
    });
    const c2 = await carryOutAcrossContinue(open, await state(p), 'tl-c', 'C', c1);
    expect(await state(c2)).toMatchObject({ status: 'CLOSED', closeStatus: 'TERMINATED' });
  });
});
