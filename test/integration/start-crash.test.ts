/**
 * A StartWorkflowExecution cut by a crash at each point of its writes (the process dies just before a
 * write goes out, or just after it lands, and never runs another line), then retried by a process of
 * its own, as an SDK retries a start whose connection was reset. A start is all or nothing to every
 * observer: the retry either starts the workflow or answers WorkflowExecutionAlreadyStartedFault for
 * a run that exists, one that can be described, signalled by its workflowId and polled. And a start
 * that is merely slow between its writes never becomes a second open run of its workflowId.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import type { DynamoIntercept } from '../../lib/adapters/dynamodb/doc-client.js';
import type { Json } from '../../lib/aws-json/rpc-client.js';
import { SwfFault } from '../../lib/core/faults.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION } from '../../lib/local/local-service.js';
import { dynamoEndpoint, tableForFile } from '../support/local.js';
import {
  type CallOperation,
  domainWithType,
  operationsOver,
  startW,
} from '../support/operations.js';

const table = tableForFile('start-crash');
const clients: { destroy(): void }[] = [];
afterAll(() => {
  for (const client of clients) client.destroy();
});

const WRITES = new Set([
  'PutItem',
  'DeleteItem',
  'UpdateItem',
  'TransactWriteItems',
  'BatchWriteItem',
]);

/** The service's operations over the file's table, each DynamoDB request seen by `intercept`. */
function processWith(intercept?: DynamoIntercept): ReturnType<typeof operationsOver> {
  const doc = createDocumentClient({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: localCredentials,
    ...(intercept === undefined ? {} : { intercept }),
  });
  clients.push(doc);
  return operationsOver({ ...table(), doc });
}

/** A write as a name: its operation and the kind of item (the key's prefix). */
function writeName(operation: string, input: Json): string {
  const item = input as { Item?: { pk?: { S?: string } }; Key?: { pk?: { S?: string } } };
  const pk = (item.Item ?? item.Key)?.pk?.S ?? '';
  return `${operation} ${pk.split('|')[0]}`;
}

/** The writes a start makes, in order, as a start that meets no crash makes them. */
async function writesOfAStart(domain: string): Promise<string[]> {
  const writes: string[] = [];
  let counting = false;
  const { call } = processWith(async (operation, input, send) => {
    if (counting && WRITES.has(operation)) writes.push(writeName(operation, input));
    return send();
  });
  await domainWithType(call, domain);
  counting = true;
  await startW(call, domain, 'probe');
  return writes;
}

/**
 * A process that dies at its `index`-th write (from 0) once `armed`: before the write goes out, or
 * just after it lands. Nothing it would do next happens: the request never answers.
 */
function crashingProcess(index: number, landed: boolean) {
  let writes = 0;
  let armed = false;
  let crashed: () => void = () => {};
  const died = new Promise<void>((resolve) => {
    crashed = resolve;
  });
  const { call } = processWith(async (operation, _input, send) => {
    if (!armed || !WRITES.has(operation) || writes++ !== index) return send();
    if (landed) await send();
    crashed();
    return new Promise<never>(() => {});
  });
  return { call, died, arm: () => (armed = true) };
}

/** What every observer must find of a workflowId's run: it is described, signalled and polled. */
async function expectReachable(
  call: CallOperation,
  domain: string,
  workflowId: string,
  runId: string,
) {
  const described = await call('DescribeWorkflowExecution', {
    domain,
    execution: { workflowId, runId },
  });
  expect(described).toMatchObject({ executionInfo: { executionStatus: 'OPEN' } });
  await call('SignalWorkflowExecution', { domain, workflowId, signalName: 'reached' });
  const task = await call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
  expect(task?.workflowExecution).toEqual({ workflowId, runId });
}

/** The writes of a start, in order: its first decision task's queue entry, its pointer, its run. */
const START_WRITES = ['PutItem Q', 'PutItem OPEN', 'PutItem RUN'];

describe('a start cut by a crash at each of its writes, then retried', () => {
  it('writes its queue entry, its pointer and its run, one after another', async () => {
    expect(await writesOfAStart('crash-probe')).toEqual(START_WRITES);
  });

  for (const [index, write] of START_WRITES.entries())
    for (const landed of [false, true])
      it(`${landed ? 'after' : 'before'} ${write}: the retry starts it, or finds the run the crash left`, async () => {
        const domain = `crash-${index}-${landed}`;
        const crashing = crashingProcess(index, landed);
        await domainWithType(crashing.call, domain);
        crashing.arm();
        const cut = startW(crashing.call, domain, 'wf');
        await Promise.race([crashing.died, cut]);
        const restarted = processWith();
        const retry = await startW(restarted.call, domain, 'wf').then(
          (started) => String(started?.runId),
          (error: Error) => (error instanceof SwfFault ? error.type : String(error)),
        );
        if (retry === 'WorkflowExecutionAlreadyStartedFault') {
          // Only a start whose run landed whole may be told its workflowId is taken, for that run.
          expect({ index, landed }).toEqual({ index: START_WRITES.length - 1, landed: true });
          const held = await restarted.deps.runs.findOpenRun(domain, 'wf');
          await expectReachable(restarted.call, domain, 'wf', String(held));
        } else await expectReachable(restarted.call, domain, 'wf', retry);
      });
});

describe('a start slow between its pointer and its run', () => {
  it('loses its workflowId to a start that finds its run missing, and never opens a second run', async () => {
    const domain = 'slow-start';
    let reachedRun: () => void = () => {};
    const atRun = new Promise<void>((resolve) => {
      reachedRun = resolve;
    });
    let go: () => void = () => {};
    const resumed = new Promise<void>((resolve) => {
      go = resolve;
    });
    let slowRun: string | undefined;
    const slow = processWith(async (operation, input, send) => {
      if (slowRun === undefined && writeName(operation, input) === 'PutItem RUN') {
        slowRun = (input as { Item: { pk: { S: string } } }).Item.pk.S.slice('RUN|'.length);
        reachedRun();
        await resumed;
      }
      return send();
    });
    await domainWithType(slow.call, domain);
    const slowStart = startW(slow.call, domain, 'wf').then(
      (started) => String(started?.runId),
      (error: Error) => (error instanceof SwfFault ? error.type : String(error)),
    );
    await atRun;
    const fast = processWith();
    const fastRunId = String((await startW(fast.call, domain, 'wf'))?.runId);
    go();
    expect(await slowStart).toBe('WorkflowExecutionAlreadyStartedFault');
    expect(await fast.deps.runs.findOpenRun(domain, 'wf')).toBe(fastRunId);
    await expectReachable(fast.call, domain, 'wf', fastRunId);
    // The slow start's run was never written, nor will it be.
    expect(slowRun).toBeDefined();
    expect(await fast.deps.runs.loadRun(String(slowRun))).toBeUndefined();
  });
});
