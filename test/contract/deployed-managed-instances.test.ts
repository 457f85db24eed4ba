/**
 * The API function on Lambda Managed Instances (test/support/deployed with one container serving many
 * invocations at once, sharing its module state): 50 polls wait in one process; tasks scheduled
 * meanwhile are each handed out once, through the wake channel, within the dispatch latency; the
 * starts and responds of the same workflows are served by the same process while the polls wait.
 * How fast it is, is the bench's (`npm run bench -- --only deployed`); this checks that it happens.
 */
import {
  PollForDecisionTaskCommand,
  type PollForDecisionTaskCommandOutput,
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decide } from '../../lib/sdk/index.js';
import type { DeployedApi } from '../support/deployed/deployed-api.js';
import {
  type DeployedFixture,
  startDeployedFixture,
  WORKFLOW_TYPE,
  waitUntil,
} from '../support/deployed/deployed-fixture.js';

const POLLERS = 50;
const TASKS = 10;
/** The stack's default PerExecutionEnvironmentMaxConcurrency: the polls and every other call fit. */
const PER_CONTAINER = 64;
/** Far below the polls' 20 s: only a wake hands a task out this soon. */
const HANDED_OUT_WITHIN_MS = 3_000;
const domain = 'deployed-managed-instances';
const workflowType = WORKFLOW_TYPE;

let fixture: DeployedFixture;
let api: DeployedApi;
let swf: SWFClient;

beforeAll(async () => {
  fixture = await startDeployedFixture(domain, {
    polling: { maxWaitMs: 20_000, recheckMs: 20_000 },
    wakes: true,
    perContainerConcurrency: PER_CONTAINER,
  });
  ({ api, swf } = fixture);
  await api.containers.warm(1);
}, 180_000);

afterAll(async () => {
  await fixture?.close();
});

type Handed = { task: PollForDecisionTaskCommandOutput; at: number };

/** `POLLERS` pollers of one list until `stop` fires; every task any of them got, in order. */
function startPollers(taskList: { name: string }, stop: AbortSignal) {
  const handed: Handed[] = [];
  const loops = Array.from({ length: POLLERS }, async () => {
    const client = fixture.client();
    while (!stop.aborted) {
      const task = await client
        .send(new PollForDecisionTaskCommand({ domain, taskList }), { abortSignal: stop })
        .catch(() => undefined);
      if (task?.taskToken !== undefined) handed.push({ task, at: Date.now() });
    }
  });
  return { handed, done: Promise.all(loops) };
}

it('hands each task scheduled while 50 polls wait in one process to one of them, and serves the rest meanwhile', async () => {
  const taskList = { name: 'one-process-crowd' };
  const stop = new AbortController();
  const pollers = startPollers(taskList, stop.signal);
  // Every poll is in flight, all in the one container, past its first look at the empty queue.
  await waitUntil(() => api.containers.busy >= POLLERS, 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(api.containers.containers).toBe(1);
  const delays: number[] = [];
  for (let i = 0; i < TASKS; i++) {
    const before = pollers.handed.length;
    const workflowId = `wf-${i}`;
    await swf.send(
      new StartWorkflowExecutionCommand({ domain, workflowId, workflowType, taskList }),
    );
    const started = Date.now();
    await waitUntil(() => pollers.handed.length > before, HANDED_OUT_WITHIN_MS + 17_000);
    const got = pollers.handed.at(-1);
    delays.push((got?.at ?? Number.NaN) - started);
    // The respond goes through the same process while the other 49 polls still wait in it.
    expect(api.containers.busy).toBeGreaterThanOrEqual(POLLERS - 1);
    await swf.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: got?.task.taskToken ?? '',
        decisions: [decide.completeWorkflowExecution()],
      }),
    );
  }
  // Nothing more comes: each task went to exactly one poll.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  stop.abort();
  await pollers.done;
  const ids = pollers.handed.map((h) => h.task.workflowExecution?.workflowId).sort();
  expect(ids).toEqual(Array.from({ length: TASKS }, (_, i) => `wf-${i}`).sort());
  for (const delay of delays) expect(delay).toBeLessThan(HANDED_OUT_WITHIN_MS);
  // Every call of the test, polls, starts and responds, ran in that one process (a poll is counted
  // when its invocation ends: those whose callers left end as the process sees it, or at their time).
  await waitUntil(() => api.containers.counters.invocations >= POLLERS + 2 * TASKS, 25_000);
  expect(api.containers.containers).toBe(1);
}, 120_000);
