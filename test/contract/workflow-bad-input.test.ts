/**
 * Bad input to workflows as code closes the execution with a clear reason, and the worker goes on
 * serving: input that is not JSON, a throw of something that is not an Error, a result or activity
 * input over SWF's limit, a signal whose input is not JSON.
 */
import { StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { implementActivity } from '../../lib/sdk/index.js';
import {
  type CodeWorkflowService,
  startCodeWorkflowService,
} from '../support/code-workflow-service.js';
import { uid } from '../support/decider.js';

let codeService: CodeWorkflowService;
let w: ReturnType<typeof define>;

function define() {
  const Echo = codeService.activity<string, string>('Echo');
  const echo = implementActivity(Echo, (s) => s);
  const typed = codeService.workflow('Typed', async (ctx, order: { id: string }) =>
    ctx.activity(Echo, order.id),
  );
  const throwsObject = codeService.workflow('ThrowsObject', async () => {
    throw { code: 7, why: 'not an Error' };
  });
  const throwsNothing = codeService.workflow('ThrowsUndefined', async () => {
    throw undefined;
  });
  const huge = codeService.workflow('HugeResult', async () => 'x'.repeat(40_000));
  const hugeInput = codeService.workflow('HugeActivityInput', async (ctx) =>
    ctx.activity(Echo, 'y'.repeat(40_000)),
  );
  const signalled = codeService.workflow('Signalled', async (ctx) =>
    ctx.waitForSignal<string>('Note'),
  );
  return { echo, typed, throwsObject, throwsNothing, huge, hugeInput, signalled };
}

beforeAll(async () => {
  codeService = await startCodeWorkflowService('workflow-bad-input');
  w = define();
  const { echo, ...workflows } = w;
  await codeService.serve(Object.values(workflows), [echo]);
}, 60_000);
afterAll(() => codeService.close());

async function startRaw(name: string, input: string) {
  const workflowId = uid(name);
  const answer = await codeService.client.send(
    new StartWorkflowExecutionCommand({
      domain: codeService.domain,
      workflowId,
      workflowType: { name, version: '1' },
      input,
    }),
  );
  return { workflowId, runId: answer.runId ?? '' };
}

it('input that is not JSON fails the execution, naming the input and why', async () => {
  const closed = await codeService.waitForClose(await startRaw('Typed', '{"id": oops}'));
  expect(closed.closeStatus).toBe('FAILED');
  expect(closed.reason).toMatch(/^The workflow's input cannot be decoded: .*JSON/);
  expect(closed.details).toBe('{"id": oops}');
});

it('a throw of something that is not an Error fails the execution with what was thrown', async () => {
  const object = await codeService.waitForClose(await codeService.start(w.throwsObject, null));
  expect(object).toMatchObject({
    closeStatus: 'FAILED',
    reason: 'The workflow threw a value that is not an Error: {"code":7,"why":"not an Error"}',
    details: '{"code":7,"why":"not an Error"}',
  });
  const nothing = await codeService.waitForClose(await codeService.start(w.throwsNothing, null));
  expect(nothing).toMatchObject({
    closeStatus: 'FAILED',
    reason: 'The workflow threw a value that is not an Error: undefined',
  });
});

it("a result or an activity's input over SWF's limit fails the execution, not the decision task", async () => {
  const result = await codeService.waitForClose(await codeService.start(w.huge, null));
  expect(result).toMatchObject({
    closeStatus: 'FAILED',
    reason: "The workflow's result is 40002 characters encoded; SWF takes at most 32768",
  });
  const input = await codeService.waitForClose(await codeService.start(w.hugeInput, null));
  expect(input).toMatchObject({
    closeStatus: 'FAILED',
    reason: 'The input of activity Echo is 40002 characters encoded; SWF takes at most 32768',
  });
});

it('a signal whose input is not JSON rejects the wait with the reason', async () => {
  const execution = await codeService.start(w.signalled, null);
  await codeService.untilEvent(execution, 'DecisionTaskCompleted');
  await codeService.signal(execution.workflowId, 'Note', 'plain words');
  const closed = await codeService.waitForClose(execution);
  expect(closed.closeStatus).toBe('FAILED');
  expect(closed.reason).toMatch(/^The input of signal Note cannot be decoded: /);
});

it('the worker keeps serving: a good execution completes after the bad ones', async () => {
  const closed = await codeService.waitForClose(await codeService.start(w.typed, { id: 'fine' }));
  expect(closed).toMatchObject({ closeStatus: 'COMPLETED', result: '"fine"' });
  // Bad input is the execution's failure, not the worker's: nothing went wrong in the worker.
  expect(codeService.logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  expect(codeService.observations.filter((o) => o.kind !== 'decided')).toEqual([]);
});
