/**
 * Deadlines survive a restart of the local stack (swf-api.md §9): the scheduler keeps them in memory,
 * and a stack started on the same DynamoDB Local data directory arms them again from the table.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../lib/local/stack.js';
import { at, decide, eventTypes, SwfKit, single } from '../support/decider.js';
import { swfClient } from '../support/local.js';
import { awaitDecision, latenessMs } from '../support/waiting.js';

const domain = 'restart-contract';
const wf = { name: 'wf', version: '1' };
const tableName = 'swf-restart';
let dataDir: string;
const open: { stack: LocalStack; swf: SWFClient }[] = [];

async function start(): Promise<{ stack: LocalStack; swf: SWFClient; kit: SwfKit }> {
  const stack = await startLocalStack({ dataDir, tableName, polling: { maxWaitMs: 1_000 } });
  const swf = swfClient(stack.endpoint);
  open.push({ stack, swf });
  return { stack, swf, kit: new SwfKit(swf, domain) };
}

async function stop(stack: LocalStack): Promise<void> {
  const index = open.findIndex((o) => o.stack === stack);
  const [entry] = open.splice(index, 1);
  entry?.swf.destroy();
  await stack.close();
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swf-restart-'));
});
afterAll(async () => {
  for (const { stack, swf } of open.splice(0)) {
    swf.destroy();
    await stack.close();
  }
  await rm(dataDir, { recursive: true, force: true });
});

it('fires a timer started before the stack stopped, once a new stack runs on the same data', async () => {
  const first = await start();
  await first.swf.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  await first.swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...wf,
      defaultTaskList: { name: 'unused' },
      defaultExecutionStartToCloseTimeout: '600',
      defaultTaskStartToCloseTimeout: '30',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
  const { execution, taskList } = await first.kit.start(wf);
  const task = await first.kit.pollDecision(taskList);
  await first.kit.respond(task.taskToken, [decide.startTimer('t', '3')]);
  expect(eventTypes(await first.kit.history(execution)).at(-1)).toBe('TimerStarted');
  await stop(first.stack);

  const second = await start();
  const readyAt = Date.now();
  const fired = await awaitDecision(second.kit, taskList, 15_000);
  const started = single(fired.events, 'TimerStarted');
  const timerFired = single(fired.events, 'TimerFired');
  expect(timerFired.timerFiredEventAttributes).toEqual({
    timerId: 't',
    startedEventId: started.eventId,
  });
  // never early; on time if the new stack was up before the deadline, else right after it came up
  expect(latenessMs(timerFired, started, 3)).toBeGreaterThanOrEqual(0);
  expect(at(timerFired)).toBeLessThan(Math.max(at(started) + 3_000, readyAt) + 500);
  await second.kit.respond(fired.taskToken, [decide.complete()]);
  expect((await second.kit.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  await stop(second.stack);
}, 120_000);
