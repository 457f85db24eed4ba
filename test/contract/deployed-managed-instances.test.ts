/**
 * The API function on Lambda Managed Instances (test/support/deployed with one container serving many
 * invocations at once, sharing its module state): 50 polls wait in one process; tasks scheduled
 * meanwhile are each handed out once, through the wake channel, within the dispatch latency; the
 * starts and responds of the same workflows are served by the same process while the polls wait.
 * How fast it is, is the bench's (`npm run bench -- --only deployed`); this checks that it happens.
 */
import {
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { expect, it } from 'vitest';
import { decide } from '../../lib/sdk/index.js';
import {
  deployedFixtureForFile,
  HANDED_OUT_WITHIN_MS,
  POLL_WAIT_MS,
  startPollers,
  WORKFLOW_TYPE,
  waitUntil,
} from '../support/deployed/deployed-fixture.js';

const POLLERS = 50;
const TASKS = 10;
/** The stack's default PerExecutionEnvironmentMaxConcurrency: the polls and every other call fit. */
const PER_CONTAINER = 64;
const domain = 'deployed-managed-instances';
const workflowType = WORKFLOW_TYPE;

const fixture = deployedFixtureForFile(domain, { warm: 1, perContainerConcurrency: PER_CONTAINER });

it('hands each task scheduled while 50 polls wait in one process to one of them, and serves the rest meanwhile', async () => {
  const taskList = { name: 'one-process-crowd' };
  const stop = new AbortController();
  const pollers = startPollers(fixture, { domain, taskList, count: POLLERS }, stop.signal);
  // Every poll is in flight, all in the one container, past its first look at the empty queue.
  await waitUntil(() => fixture.api.containers.busy >= POLLERS, 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(fixture.api.containers.containers).toBe(1);
  const delays: number[] = [];
  for (let i = 0; i < TASKS; i++) {
    const before = pollers.handed.length;
    const workflowId = `wf-${i}`;
    await fixture.swf.send(
      new StartWorkflowExecutionCommand({ domain, workflowId, workflowType, taskList }),
    );
    const started = Date.now();
    await waitUntil(() => pollers.handed.length > before, POLL_WAIT_MS);
    const got = pollers.handed.at(-1);
    delays.push((got?.at ?? Number.NaN) - started);
    // The respond goes through the same process while the other 49 polls still wait in it.
    expect(fixture.api.containers.busy).toBeGreaterThanOrEqual(POLLERS - 1);
    await fixture.swf.send(
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
  // Every call of the test, polls, starts and responds, ran in that one process. A poll is counted
  // when its invocation ends, and neither API Gateway nor Lambda ends an invocation whose caller
  // left: the aborted polls run on to the end of their wait.
  await waitUntil(
    () => fixture.api.containers.counters.invocations >= POLLERS + 2 * TASKS,
    POLL_WAIT_MS + 5_000,
  );
  expect(fixture.api.containers.containers).toBe(1);
}, 120_000);
