/**
 * Bad input to workflows as code closes the execution with a clear reason, and the worker goes on
 * serving: input that is not JSON, a throw of something that is not an Error, a result or activity
 * input over SWF's limit, a signal whose input is not JSON.
 */
import { StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { implementActivity } from '../../lib/sdk/index.js';
import { uid } from '../support/decider.js';
import { type WorkflowRig, workflowRig } from '../support/workflow-rig.js';

let rig: WorkflowRig;
let w: ReturnType<typeof define>;

function define() {
  const Echo = rig.activity<string, string>('Echo');
  const echo = implementActivity(Echo, (s) => s);
  const typed = rig.workflow('Typed', async (ctx, order: { id: string }) =>
    ctx.activity(Echo, order.id),
  );
  const throwsObject = rig.workflow('ThrowsObject', async () => {
    throw { code: 7, why: 'not an Error' };
  });
  const throwsNothing = rig.workflow('ThrowsUndefined', async () => {
    throw undefined;
  });
  const huge = rig.workflow('HugeResult', async () => 'x'.repeat(40_000));
  const hugeInput = rig.workflow('HugeActivityInput', async (ctx) =>
    ctx.activity(Echo, 'y'.repeat(40_000)),
  );
  const signalled = rig.workflow('Signalled', async (ctx) => ctx.waitForSignal<string>('Note'));
  return { echo, typed, throwsObject, throwsNothing, huge, hugeInput, signalled };
}

beforeAll(async () => {
  rig = await workflowRig('workflow-bad-input');
  w = define();
  const { echo, ...workflows } = w;
  await rig.serve(Object.values(workflows), [echo]);
}, 60_000);
afterAll(() => rig.close());

async function startRaw(name: string, input: string) {
  const workflowId = uid(name);
  const answer = await rig.client.send(
    new StartWorkflowExecutionCommand({
      domain: rig.domain,
      workflowId,
      workflowType: { name, version: '1' },
      input,
    }),
  );
  return { workflowId, runId: answer.runId ?? '' };
}

it('input that is not JSON fails the execution, naming the input and why', async () => {
  const closed = await rig.waitForClose(await startRaw('Typed', '{"id": oops}'));
  expect(closed.closeStatus).toBe('FAILED');
  expect(closed.reason).toMatch(/^The workflow's input cannot be decoded: .*JSON/);
  expect(closed.details).toBe('{"id": oops}');
});

it('a throw of something that is not an Error fails the execution with what was thrown', async () => {
  const object = await rig.waitForClose(await rig.start(w.throwsObject, null));
  expect(object).toMatchObject({
    closeStatus: 'FAILED',
    reason: 'The workflow threw a value that is not an Error: {"code":7,"why":"not an Error"}',
    details: '{"code":7,"why":"not an Error"}',
  });
  const nothing = await rig.waitForClose(await rig.start(w.throwsNothing, null));
  expect(nothing).toMatchObject({
    closeStatus: 'FAILED',
    reason: 'The workflow threw a value that is not an Error: undefined',
  });
});

it("a result or an activity's input over SWF's limit fails the execution, not the decision task", async () => {
  const result = await rig.waitForClose(await rig.start(w.huge, null));
  expect(result).toMatchObject({
    closeStatus: 'FAILED',
    reason: "The workflow's result is 40002 characters encoded; SWF takes at most 32768",
  });
  const input = await rig.waitForClose(await rig.start(w.hugeInput, null));
  expect(input).toMatchObject({
    closeStatus: 'FAILED',
    reason: 'The input of activity Echo is 40002 characters encoded; SWF takes at most 32768',
  });
});

it('a signal whose input is not JSON rejects the wait with the reason', async () => {
  const execution = await rig.start(w.signalled, null);
  await rig.untilEvent(execution, 'DecisionTaskCompleted');
  await rig.signal(execution.workflowId, 'Note', 'plain words');
  const closed = await rig.waitForClose(execution);
  expect(closed.closeStatus).toBe('FAILED');
  expect(closed.reason).toMatch(/^The input of signal Note cannot be decoded: /);
});

it('the worker keeps serving: a good execution completes after the bad ones', async () => {
  const closed = await rig.waitForClose(await rig.start(w.typed, { id: 'fine' }));
  expect(closed).toMatchObject({ closeStatus: 'COMPLETED', result: '"fine"' });
  // Bad input is the execution's failure, not the worker's: nothing went wrong in the worker.
  expect(rig.logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  expect(rig.observations.filter((o) => o.kind !== 'decided')).toEqual([]);
});
