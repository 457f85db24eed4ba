/**
 * The deployed path (test/support/deployed: the API function's handler in Lambda containers that are
 * processes of their own, behind API Gateway's events, with the SQS wake channel): a task scheduled
 * while 20 pollers wait, each in a container of its own, is handed out once, at once. The polls here
 * re-read their queue only when their wait ends (every 20 s), so only a wake brings a task sooner.
 * How fast it is, is the bench's (`npm run bench -- --only deployed`); this checks that it happens.
 */
import { StartWorkflowExecutionCommand } from '@aws-sdk/client-swf';
import { expect, it } from 'vitest';
import {
  deployedFixtureForFile,
  HANDED_OUT_WITHIN_MS,
  POLL_WAIT_MS,
  startPollers,
  WORKFLOW_TYPE,
  waitUntil,
} from '../support/deployed/deployed-fixture.js';

const POLLERS = 20;
const TASKS = 5;
const domain = 'deployed-dispatch';
const workflowType = WORKFLOW_TYPE;

const fixture = deployedFixtureForFile(domain, { warm: POLLERS + 2 });

it('hands a task scheduled while 20 pollers wait in containers of their own to one of them, at once', async () => {
  const taskList = { name: 'waiting-crowd' };
  const stop = new AbortController();
  const pollers = startPollers(fixture, { domain, taskList, count: POLLERS }, stop.signal);
  const { handed } = pollers;
  // Every poller is in its container, past its first look at the empty queue.
  await waitUntil(() => fixture.api.containers.busy >= POLLERS, 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const delays: number[] = [];
  for (let i = 0; i < TASKS; i++) {
    const workflowId = `wf-${i}`;
    const before = handed.length;
    await fixture.swf.send(
      new StartWorkflowExecutionCommand({ domain, workflowId, workflowType, taskList }),
    );
    const started = Date.now();
    await waitUntil(() => handed.length > before, POLL_WAIT_MS);
    delays.push((handed.at(-1)?.at ?? Number.NaN) - started);
    // The poller that got it is back and waiting.
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  // Nothing more comes: each task went to exactly one poller.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  stop.abort();
  await pollers.done;
  expect(handed.map((h) => h.task.workflowExecution?.workflowId).sort()).toEqual(
    Array.from({ length: TASKS }, (_, i) => `wf-${i}`),
  );
  expect(new Set(handed.map((h) => h.task.taskToken)).size).toBe(TASKS);
  for (const delay of delays) expect(delay).toBeLessThan(HANDED_OUT_WITHIN_MS);
}, 120_000);
