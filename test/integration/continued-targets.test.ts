/**
 * Effects addressed to a workflowId follow it across a continue-as-new that lands between the outbox's
 * read of the workflowId's open run and its commit (another process's commit): a workflowId has an
 * open run the whole time, and the effect reaches it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionState } from '../../lib/core/execution-state.js';
import { UnknownResourceFault } from '../../lib/core/faults.js';
import { operationsByAction } from '../../lib/http/operations-by-action.js';
import { carryOutRunChange, type OutboxDeps } from '../../lib/operations/outbox.js';
import type { RunStore } from '../../lib/ports/run-store.js';
import {
  decide,
  historyTypes,
  type OutboxFixture,
  outboxFixture,
  start,
} from '../support/outbox-fixture.js';

let r: OutboxFixture;
beforeAll(async () => {
  r = await outboxFixture();
});
afterAll(() => r.close());

const state = async (runId: string) => {
  const loaded = await r.outbox.runs.loadRun(runId);
  if (loaded === undefined) throw new Error(`no run ${runId}`);
  return loaded.state;
};

/**
 * The outbox's dependencies (the API's too), with `between` run right after the first read of a
 * workflowId's open run (`findOpenRun`), or of a run (`loadRun`: the reader then holds the run as it
 * was before `between`, and commits on it).
 */
function racing(
  between: () => Promise<void>,
  after: 'findOpenRun' | 'loadRun' = 'findOpenRun',
): OutboxDeps {
  const real = r.outbox.runs;
  let done = false;
  const once = async () => {
    if (done) return;
    done = true;
    await between();
  };
  const runs = Object.create(real) as RunStore;
  if (after === 'findOpenRun')
    runs.findOpenRun = async (domain, workflowId) => {
      const runId = await real.findOpenRun(domain, workflowId);
      await once();
      return runId;
    };
  else
    runs.loadRun = async (runId) => {
      const loaded = await real.loadRun(runId);
      await once();
      return loaded;
    };
  return { ...r.outbox, runs };
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
  const next = String(await r.outbox.runs.findOpenRun(r.domain, workflowId));
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
    const c1 = await r.outbox.runs.findOpenRun(r.domain, 'C');
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

/** An SWF action called with dependencies whose reads of the workflowId's open run race. */
const callRacing = (
  action:
    | 'SignalWorkflowExecution'
    | 'RequestCancelWorkflowExecution'
    | 'TerminateWorkflowExecution',
  input: Record<string, unknown>,
  between: () => Promise<void>,
  after: 'findOpenRun' | 'loadRun' = 'findOpenRun',
) =>
  operationsByAction[action]?.(input, racing(between, after), {
    requestId: 'race',
    signal: new AbortController().signal,
  });

describe('an API request by workflowId whose run continues as new between its read and its commit', () => {
  // Continue-as-new closes a run and opens the next in one commit: the workflowId always had an open
  // run, so the request reaches the new one instead of answering UnknownResourceFault.
  const cases = [
    ['SignalWorkflowExecution', { signalName: 'go' }, 'WorkflowExecutionSignaled'],
    ['RequestCancelWorkflowExecution', {}, 'WorkflowExecutionCancelRequested'],
    ['TerminateWorkflowExecution', { reason: 'stop' }, 'WorkflowExecutionTerminated'],
  ] as const;

  const windows = ['findOpenRun', 'loadRun'] as const;
  it.each(
    cases.flatMap(([action, extra, recorded]) =>
      windows.map((after) => [action, after, extra, recorded] as const),
    ),
  )('%s reaches the new run (continued after its %s)', async (action, after, extra, recorded) => {
    const workflowId = `api-${action}-${after}`;
    const taskList = `tl-${action}-${after}`;
    const first = await start(r, workflowId, taskList);
    await callRacing(
      action,
      { domain: r.domain, workflowId, ...extra },
      () => continueAsNew(taskList),
      after,
    );
    const newer = (await state(first)).newExecutionRunId;
    expect(newer).toEqual(expect.any(String));
    expect(await historyTypes(r, String(newer))).toContain(recorded);
    expect(await historyTypes(r, first)).not.toContain(recorded);
  });

  it('follows a few continues at most, and a request naming the closed run gets the fault', async () => {
    const workflowId = 'api-hops';
    const first = await start(r, workflowId, 'tl-hops');
    // Every run continues as new just before it is read: the request gives up after five runs.
    let lists = ['tl-hops'];
    const real = r.outbox.runs;
    const runs = Object.create(real) as RunStore;
    runs.loadRun = async (runId) => {
      const loaded = await real.loadRun(runId);
      if (loaded?.state.status === 'OPEN' && lists.length < 20) {
        await continueAsNew(lists.at(-1) ?? '');
        lists = [...lists, `${lists.at(-1)}-2`];
      }
      return real.loadRun(runId);
    };
    const endless = operationsByAction.SignalWorkflowExecution?.(
      { domain: r.domain, workflowId, signalName: 'go' },
      { ...r.outbox, runs },
      { requestId: 'race', signal: new AbortController().signal },
    );
    await expect(endless).rejects.toBeInstanceOf(UnknownResourceFault);
    expect(lists.length - 1).toBe(5);
    const named = callRacing(
      'SignalWorkflowExecution',
      { domain: r.domain, workflowId, runId: first, signalName: 'go' },
      async () => {},
    );
    await expect(named).rejects.toBeInstanceOf(UnknownResourceFault);
  });

  it('a request naming the run by runId is not carried to the new run', async () => {
    const workflowId = 'api-by-run-id';
    const first = await start(r, workflowId, 'tl-by-run-id');
    const named = callRacing(
      'SignalWorkflowExecution',
      { domain: r.domain, workflowId, runId: first, signalName: 'go' },
      () => continueAsNew('tl-by-run-id'),
      'loadRun',
    );
    await expect(named).rejects.toBeInstanceOf(UnknownResourceFault);
    const newer = String((await state(first)).newExecutionRunId);
    expect(await historyTypes(r, newer)).not.toContain('WorkflowExecutionSignaled');
    expect(await historyTypes(r, first)).not.toContain('WorkflowExecutionSignaled');
  });
});
