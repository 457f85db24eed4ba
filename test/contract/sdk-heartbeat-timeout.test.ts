/**
 * The ActivityWorker heartbeats often enough for an activity type's registered heartbeat timeout
 * (heartbeats are sent no more often than needed to meet heartbeatTimeout and the configured
 * cancellation-check interval), whatever its configured interval: a polled task does not say its
 * timeout, so the worker describes the type once.
 */
import { RegisterActivityTypeCommand } from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ActivityWorker,
  createSwfClient,
  decide,
  type SwfCall,
  sleep,
} from '../../lib/sdk/index.js';
import { SdkFixture, types, uid } from '../sdk/sdk-fixture.js';
import { until } from '../sdk/support.js';

/** `work` again, at a version whose tasks time out after 2 s without a heartbeat. */
const QUICK = { name: 'work', version: 'quick-heartbeat' };

let fixture: SdkFixture;
const workers: ActivityWorker[] = [];

beforeAll(async () => {
  fixture = await SdkFixture.start();
  await fixture.client.send(
    new RegisterActivityTypeCommand({
      domain: fixture.domain,
      ...QUICK,
      defaultTaskList: { name: 'unused' },
      defaultTaskHeartbeatTimeout: '2',
      defaultTaskScheduleToStartTimeout: '300',
      defaultTaskStartToCloseTimeout: '300',
      defaultTaskScheduleToCloseTimeout: '600',
    }),
  );
}, 60_000);
afterAll(async () => {
  await Promise.all(workers.map((w) => w.shutdown()));
  await fixture.close();
});

describe("an ActivityWorker and its types' heartbeat timeouts", () => {
  it('beats within a type heartbeat timeout of 2 s though told to every 4 s, describing the type once', async () => {
    // The worker's calls, through a client of its own that notes them.
    const calls: string[] = [];
    const client = createSwfClient({
      endpoint: fixture.endpoint,
      maxAttempts: 1,
      observe: (call: SwfCall) => calls.push(call.action),
    });
    const { w, taskList, ends } = fixture.startWorker(
      async () => {
        await sleep(5_000);
        return 'done';
      },
      { client, heartbeatIntervalMs: 4_000 },
    );
    workers.push(w);
    const runs = [];
    for (const id of ['first', 'second']) {
      const execution = await fixture.startExecution(uid('decisions'));
      await fixture.decideOnce(execution, () => [
        decide.scheduleActivityTask({
          activityId: id,
          activityType: QUICK,
          taskList: { name: taskList },
        }),
      ]);
      runs.push(execution);
    }
    await until(() => ends.ends.length === 2, 'both activities ended', 20_000);
    for (const execution of runs) {
      const history = types(await fixture.history(execution));
      expect(history).toContain('ActivityTaskCompleted');
      expect(history).not.toContain('ActivityTaskTimedOut');
    }
    expect(ends.ends.map((e) => e.outcome)).toEqual(['completed', 'completed']);
    expect(calls.filter((c) => c === 'DescribeActivityType')).toHaveLength(1);
    // Two 5 s activities beating every 2/3 s: about 14 beats, where every 4 s would be 2.
    expect(calls.filter((c) => c === 'RecordActivityTaskHeartbeat').length).toBeGreaterThanOrEqual(
      10,
    );
    await w.shutdown();
    client.destroy();
  }, 40_000);
});
