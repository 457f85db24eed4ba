/**
 * The replay bench decides a history built event by event (bench/replay-history.ts), not recorded:
 * a run of the same workflow through the local service records the same events in the same order,
 * and the built history replays to the decisions it holds.
 */
import { afterAll, expect, it } from 'vitest';
import {
  Double,
  REPLAY_ACTIVITIES,
  replayBenchHistory,
  replayBenchWorkflow,
} from '../../bench/replay-history.js';
import {
  ActivityWorker,
  activityFunctions,
  DeciderWorker,
  implementActivity,
  registerTypes,
  silentLogger,
  startWorkflow,
} from '../../lib/sdk/index.js';
import { shapeOf } from '../sdk/golden/files.js';
import { history } from '../support/code-workflow-service.js';
import { uid } from '../support/decider.js';
import { domainForFile } from '../support/local.js';
import { replayDifferences } from '../support/workflow-replay-check.js';

const domain = 'workflow-bench-history';
const workers: { shutdown(): Promise<void> }[] = [];

const server = domainForFile(domain, { polling: { maxWaitMs: 1_000 } }, async ({ swf: client }) => {
  const double = implementActivity(Double, (n) => n * 2);
  await registerTypes(client, domain, { workflows: [replayBenchWorkflow], activities: [Double] });
  const common = { client, domain, logger: silentLogger, shutdownSignals: [] };
  workers.push(
    new DeciderWorker({
      ...common,
      taskList: 'replay-bench-decisions',
      workflows: [replayBenchWorkflow],
    }).start(),
    new ActivityWorker({
      ...common,
      taskList: REPLAY_ACTIVITIES,
      activities: activityFunctions(double),
    }).start(),
  );
});
// Registered after the server's hooks, so it runs before the server closes.
afterAll(() => Promise.all(workers.map((w) => w.shutdown())));

it('a recorded run has the events of the built history, in order', async () => {
  const client = server.swf;
  const execution = await startWorkflow(client, {
    domain,
    workflow: replayBenchWorkflow,
    workflowId: uid('bench'),
    input: 15,
  });
  let recorded = await history(client, domain, execution);
  for (let i = 0; i < 300 && recorded.at(-1)?.eventType !== 'WorkflowExecutionCompleted'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    recorded = await history(client, domain, execution);
  }
  expect(recorded.at(-1)?.workflowExecutionCompletedEventAttributes?.result).toBe(
    // 1..15 doubled, without the timer steps 7 and 14.
    String(2 * (120 - 7 - 14)),
  );
  // Up to the last decision task, whose answer closes the recorded run and continues the built one.
  const upTo = recorded.map((e) => e.eventType).lastIndexOf('DecisionTaskStarted') + 1;
  const built = replayBenchHistory(upTo);
  expect(built.steps).toBe(15);
  expect(shapeOf(built.events)).toEqual(shapeOf(recorded.slice(0, upTo)));
});

it('the built history replays, task by task, to the decisions it holds', async () => {
  const built = replayBenchHistory(400);
  expect(await replayDifferences(replayBenchWorkflow, built)).toEqual([]);
});
