/**
 * Deadlines survive a restart of the local service: the scheduler keeps them in memory,
 * and a service started on the same DynamoDB Local data directory arms them again from the table.
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
import { type LocalService, startLocalService } from '../../lib/local/local-service.js';
import { at, decide, eventTypes, SwfDriver, single } from '../support/decider.js';
import { swfClient } from '../support/local.js';
import { awaitDecision, latenessMs } from '../support/waiting.js';

const domain = 'restart-contract';
const wf = { name: 'wf', version: '1' };
const tableName = 'swf-restart';
let dataDir: string;
const open: { service: LocalService; swf: SWFClient }[] = [];

async function start(): Promise<{ service: LocalService; swf: SWFClient; driver: SwfDriver }> {
  const service = await startLocalService({ dataDir, tableName, polling: { maxWaitMs: 1_000 } });
  const swf = swfClient(service.endpoint);
  open.push({ service, swf });
  return { service, swf, driver: new SwfDriver(swf, domain) };
}

async function stop(service: LocalService): Promise<void> {
  const index = open.findIndex((o) => o.service === service);
  const [entry] = open.splice(index, 1);
  entry?.swf.destroy();
  await service.close();
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swf-restart-'));
});
afterAll(async () => {
  for (const { service, swf } of open.splice(0)) {
    swf.destroy();
    await service.close();
  }
  await rm(dataDir, { recursive: true, force: true });
});

it('fires a timer started before the service stopped, once a new service runs on the same data', async () => {
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
  const { execution, taskList } = await first.driver.start(wf);
  const task = await first.driver.pollDecision(taskList);
  await first.driver.respond(task.taskToken, [decide.startTimer('t', '3')]);
  expect(eventTypes(await first.driver.history(execution)).at(-1)).toBe('TimerStarted');
  await stop(first.service);

  const second = await start();
  const readyAt = Date.now();
  const fired = await awaitDecision(second.driver, taskList, 15_000);
  const started = single(fired.events, 'TimerStarted');
  const timerFired = single(fired.events, 'TimerFired');
  expect(timerFired.timerFiredEventAttributes).toEqual({
    timerId: 't',
    startedEventId: started.eventId,
  });
  // never early; on time if the new service was up before the deadline, else right after it came up
  expect(latenessMs(timerFired, started, 3)).toBeGreaterThanOrEqual(0);
  expect(at(timerFired)).toBeLessThan(Math.max(at(started) + 3_000, readyAt) + 500);
  await second.driver.respond(fired.taskToken, [decide.complete()]);
  expect((await second.driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  await stop(second.service);
}, 120_000);
