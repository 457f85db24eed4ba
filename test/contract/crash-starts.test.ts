/**
 * Starts cut by a crash: `npm start -- --data DIR` killed with SIGKILL (the whole process group, its
 * DynamoDB Local too) while 24 clients start workflows as fast as they can, restarted on the same
 * data, and every start whose answer the crash took retried, as the SDKs retry a start whose
 * connection was reset. A start is all or nothing to every observer: each retry either starts the
 * workflow or answers WorkflowExecutionAlreadyStartedFault for a run that exists, one that can be
 * signalled by its workflowId, described and polled. Every start answered before the crash is there
 * too. Three crashes, each 1.5 s into the load.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ListOpenWorkflowExecutionsCommand,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../lib/local/dynamodb-local.js';
import { SwfDriver, sleep } from '../support/decider.js';
import { registerDomain, registerWorkflowType, swfClient } from '../support/local.js';
import { killGroup, npmStart, type StartedServer, waitForLine } from '../support/start-process.js';

const domain = 'crashes';
const wf = { name: 'wf', version: '1' };
const LOOPS = 24;
const CRASHES = 3;
const KILL_AFTER_MS = 1_500;

let dataDir: string;
let port: number;
let server: StartedServer | undefined;

async function startServer(): Promise<SWFClient> {
  server = npmStart(['--port', String(port), '--data', dataDir], { group: true });
  await waitForLine(server, 'Press Ctrl-C to stop.', 90_000);
  return swfClient(`http://127.0.0.1:${port}`);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swf-crash-'));
  port = await freePort();
});
afterAll(async () => {
  if (server !== undefined) await killGroup(server);
  await rm(dataDir, { recursive: true, force: true });
});

const taskListOf = (loop: number) => `crash-${loop}`;
const startInput = (workflowId: string, loop: number) => ({
  domain,
  workflowId,
  workflowType: wf,
  taskList: { name: taskListOf(loop) },
});

/** What became of the starts of one crash: those answered, and those whose answer it took. */
interface Load {
  readonly answered: Map<string, string>;
  readonly cut: { workflowId: string; loop: number }[];
}

/** LOOPS clients starting workflows one after another until the server dies under them. */
async function loadUntilCrash(swf: SWFClient, crash: number): Promise<Load> {
  const answered = new Map<string, string>();
  const cut: Load['cut'] = [];
  const loops = Array.from({ length: LOOPS }, async (_, loop) => {
    for (let n = 0; ; n++) {
      const workflowId = `c${crash}-p${loop}-${n}`;
      try {
        const { runId } = await swf.send(
          new StartWorkflowExecutionCommand(startInput(workflowId, loop)),
        );
        answered.set(workflowId, String(runId));
      } catch {
        cut.push({ workflowId, loop });
        return;
      }
    }
  });
  await sleep(KILL_AFTER_MS);
  if (server !== undefined) await killGroup(server);
  await Promise.all(loops);
  return { answered, cut };
}

/** The runId of a workflowId's open run, as visibility lists it (its row is written by the outbox). */
async function openRunOf(swf: SWFClient, workflowId: string): Promise<string | undefined> {
  for (let tries = 0; tries < 50; tries++) {
    const { executionInfos } = await swf.send(
      new ListOpenWorkflowExecutionsCommand({
        domain,
        startTimeFilter: { oldestDate: new Date(0) },
        executionFilter: { workflowId },
      }),
    );
    const runId = executionInfos?.[0]?.execution?.runId;
    if (runId !== undefined) return runId;
    await sleep(100);
  }
  return undefined;
}

/** Whether the open run of a workflowId takes a signal by its workflowId alone. */
const signalled = (swf: SWFClient, workflowId: string) =>
  swf
    .send(new SignalWorkflowExecutionCommand({ domain, workflowId, signalName: 'after-crash' }))
    .then(
      () => true,
      () => false,
    );

it('leaves no workflowId held by a run that does not exist, after three kill -9s during starts', async () => {
  let swf = await startServer();
  await registerDomain(swf, domain);
  await registerWorkflowType(swf, domain, wf);
  const answered = new Map<string, string>();
  const tally = { cut: 0, restarted: 0, alreadyStarted: 0, phantoms: [] as string[] };
  const byLoop = new Map<number, Set<string>>();
  const expectTask = (loop: number, workflowId: string) =>
    byLoop.set(loop, (byLoop.get(loop) ?? new Set()).add(workflowId));
  for (let crash = 0; crash < CRASHES; crash++) {
    const load = await loadUntilCrash(swf, crash);
    swf.destroy();
    for (const [workflowId, runId] of load.answered) answered.set(workflowId, runId);
    for (const workflowId of load.answered.keys())
      expectTask(Number(/-p(\d+)-/.exec(workflowId)?.[1]), workflowId);
    swf = await startServer();
    tally.cut += load.cut.length;
    for (const { workflowId, loop } of load.cut) {
      const retry = await swf
        .send(new StartWorkflowExecutionCommand(startInput(workflowId, loop)))
        .then(
          ({ runId }) => ({ runId: String(runId) }),
          (error: Error) => error.name,
        );
      if (typeof retry === 'object') {
        tally.restarted++;
        answered.set(workflowId, retry.runId);
      } else {
        expect(retry).toBe('WorkflowExecutionAlreadyStartedFault');
        tally.alreadyStarted++;
        if (!(await signalled(swf, workflowId))) tally.phantoms.push(workflowId);
      }
      expectTask(loop, workflowId);
    }
  }
  console.log(
    `crash-starts: ${answered.size} starts answered, ${tally.cut} cut by ${CRASHES} crashes; ` +
      `retried: ${tally.restarted} started, ${tally.alreadyStarted} already started, ` +
      `${tally.phantoms.length} of those with no run (${tally.phantoms.join(', ')})`,
  );
  expect(tally.phantoms).toEqual([]);
  const driver = new SwfDriver(swf, domain);
  // Every start answered (before a crash or on its retry) is there, with that runId.
  for (const [workflowId, runId] of answered) {
    expect(await openRunOf(swf, workflowId)).toBe(runId);
    const { executionInfo } = await driver.describe({ workflowId, runId });
    expect(executionInfo?.executionStatus).toBe('OPEN');
  }
  // Every run is polled once, on its own list, whoever started it.
  for (const [loop, workflowIds] of byLoop) {
    const polled: string[] = [];
    while (polled.length < workflowIds.size) {
      const task = await driver.pollDecision(taskListOf(loop));
      polled.push(String(task.workflowExecution?.workflowId));
    }
    expect(polled.sort()).toEqual([...workflowIds].sort());
  }
  swf.destroy();
}, 600_000);
