/**
 * The deployed path (test/support/deployed: the API function's handler in Lambda containers that are
 * processes of their own, behind API Gateway's events, with the SQS wake channel): a task scheduled
 * while 20 pollers wait, each in a container of its own, is handed out once, at once. The polls here
 * re-read their queue only when their wait ends (every 20 s), so only a wake brings a task sooner.
 * How fast it is, is the bench's (`npm run bench -- --only deployed`); this checks that it happens.
 */
import {
  PollForDecisionTaskCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DeployedApi } from '../support/deployed/deployed-api.js';
import {
  type DeployedFixture,
  startDeployedFixture,
  WORKFLOW_TYPE,
  waitUntil,
} from '../support/deployed/deployed-fixture.js';

const POLLERS = 20;
const TASKS = 5;
/** Far below the polls' 20 s: only a wake hands a task out this soon. */
const HANDED_OUT_WITHIN_MS = 3_000;
const domain = 'deployed-dispatch';
const workflowType = WORKFLOW_TYPE;

let fixture: DeployedFixture;
let api: DeployedApi;
let swf: SWFClient;

beforeAll(async () => {
  fixture = await startDeployedFixture(domain, {
    polling: { maxWaitMs: 20_000, recheckMs: 20_000 },
    wakes: true,
  });
  ({ api, swf } = fixture);
  await api.containers.warm(POLLERS + 2);
}, 180_000);

afterAll(async () => {
  await fixture?.close();
});

it('hands a task scheduled while 20 pollers wait in containers of their own to one of them, at once', async () => {
  const taskList = { name: 'waiting-crowd' };
  const handed: { token: string; workflowId: string; at: number }[] = [];
  const stop = new AbortController();
  const polls = Array.from({ length: POLLERS }, async () => {
    const client = fixture.client();
    while (!stop.signal.aborted) {
      const task = await client
        .send(new PollForDecisionTaskCommand({ domain, taskList }), { abortSignal: stop.signal })
        .catch(() => undefined);
      if (task?.taskToken !== undefined)
        handed.push({
          token: task.taskToken,
          workflowId: task.workflowExecution?.workflowId ?? '',
          at: Date.now(),
        });
    }
  });
  // Every poller is in its container, past its first look at the empty queue.
  await waitUntil(() => api.containers.busy >= POLLERS, 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const delays: number[] = [];
  for (let i = 0; i < TASKS; i++) {
    const workflowId = `wf-${i}`;
    const before = handed.length;
    await swf.send(
      new StartWorkflowExecutionCommand({ domain, workflowId, workflowType, taskList }),
    );
    const started = Date.now();
    await waitUntil(() => handed.length > before, HANDED_OUT_WITHIN_MS + 17_000);
    delays.push((handed.at(-1)?.at ?? Number.NaN) - started);
    // The poller that got it is back and waiting.
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  // Nothing more comes: each task went to exactly one poller.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  stop.abort();
  await Promise.all(polls);
  expect(handed.map((h) => h.workflowId).sort()).toEqual(
    Array.from({ length: TASKS }, (_, i) => `wf-${i}`),
  );
  expect(new Set(handed.map((h) => h.token)).size).toBe(TASKS);
  for (const delay of delays) expect(delay).toBeLessThan(HANDED_OUT_WITHIN_MS);
}, 120_000);
