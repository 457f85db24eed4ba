/**
 * The local service (stream consumer + in-process timer heap) has its clock stepped back
 * a minute and then forward an hour while a run has timers and an activity timeout pending; a second
 * API instance (its own operations, clock 2 s ahead) serves the same table. Nothing crashes, every timer
 * and timeout fires exactly once, the history never goes back, and visibility's times stay ordered.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION, startLocalService } from '../../lib/local/local-service.js';
import { dynamoEndpoint, uniqueTableName } from '../support/local.js';
import { domainWithType, operationsOver } from '../support/operations.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('clock stepped back a minute, then forward an hour, mid-run', () => {
  it('fires each pending timer and timeout once, never out of order', async () => {
    let step = 0;
    const service = await startLocalService({
      dynamoEndpoint: dynamoEndpoint(),
      tableName: uniqueTableName('step'),
      clock: { now: () => Date.now() + step },
      polling: { maxWaitMs: 0 },
    });
    const doc = createDocumentClient({
      endpoint: dynamoEndpoint(),
      region: LOCAL_REGION,
      credentials: localCredentials,
    });
    try {
      const main = operationsOver(
        { tableName: service.tableName, doc, client: undefined as never },
        { clock: { now: () => Date.now() + step } },
      );
      const other = operationsOver(
        { tableName: service.tableName, doc, client: undefined as never },
        { clock: { now: () => Date.now() + 2_000 } },
      );
      // `main` is a set of operations on the service's clock; the service itself runs the outbox and the timer heap.
      const domain = `live-${randomUUID().slice(0, 8)}`;
      await domainWithType(main.call, domain);
      await main.call('RegisterActivityType', {
        domain,
        name: 'a',
        version: '1',
        defaultTaskList: { name: 'acts' },
        defaultTaskScheduleToStartTimeout: 'NONE',
        defaultTaskScheduleToCloseTimeout: 'NONE',
        defaultTaskStartToCloseTimeout: '5',
        defaultTaskHeartbeatTimeout: 'NONE',
      });
      const { runId } = (await main.call('StartWorkflowExecution', {
        domain,
        workflowId: 'live',
        workflowType: { name: 'w', version: '1' },
        taskList: { name: 'd' },
        executionStartToCloseTimeout: '86400',
      })) as { runId: string };
      const execution = { workflowId: 'live', runId };
      const t = await other.call('PollForDecisionTask', { domain, taskList: { name: 'd' } });
      await main.call('RespondDecisionTaskCompleted', {
        taskToken: t?.taskToken,
        decisions: [
          {
            decisionType: 'StartTimer',
            startTimerDecisionAttributes: { timerId: 't1', startToFireTimeout: '3' },
          },
          {
            decisionType: 'StartTimer',
            startTimerDecisionAttributes: { timerId: 't2', startToFireTimeout: '8' },
          },
          {
            decisionType: 'ScheduleActivityTask',
            scheduleActivityTaskDecisionAttributes: {
              activityType: { name: 'a', version: '1' },
              activityId: 'x',
            },
          },
        ],
      });
      await other.call('PollForActivityTask', { domain, taskList: { name: 'acts' } });
      step = -60_000;
      await main.call('SignalWorkflowExecution', {
        domain,
        workflowId: 'live',
        signalName: 'back',
      });
      await sleep(4_000);
      step = 3_600_000;
      await other.call('SignalWorkflowExecution', {
        domain,
        workflowId: 'live',
        signalName: 'fwd',
      });
      const history = async () =>
        (
          await main.call('GetWorkflowExecutionHistory', {
            domain,
            execution,
            maximumPageSize: 1000,
          })
        )?.events as { eventType: string; eventTimestamp: number; eventId: number }[];
      const deadline = Date.now() + 90_000;
      let events = await history();
      const done = () =>
        events.filter((e) => e.eventType === 'TimerFired').length >= 2 &&
        events.some((e) => e.eventType === 'ActivityTaskTimedOut');
      while (!done() && Date.now() < deadline) {
        await sleep(500);
        events = await history();
      }
      await sleep(2_000);
      events = await history();
      const count = (type: string) => events.filter((e) => e.eventType === type).length;
      expect({ fired: count('TimerFired'), timedOut: count('ActivityTaskTimedOut') }).toEqual({
        fired: 2,
        timedOut: 1,
      });
      for (let i = 1; i < events.length; i++)
        expect(events[i]?.eventTimestamp).toBeGreaterThanOrEqual(
          events[i - 1]?.eventTimestamp ?? 0,
        );
      step = 0;
      await other.call('TerminateWorkflowExecution', { domain, workflowId: 'live' });
      await service.streamCaughtUp();
      const info = (await main.call('DescribeWorkflowExecution', { domain, execution }))
        ?.executionInfo as { startTimestamp: number; closeTimestamp: number };
      expect(info.closeTimestamp).toBeGreaterThanOrEqual(info.startTimestamp);
      const closed = (await main.call('ListClosedWorkflowExecutions', {
        domain,
        closeTimeFilter: { oldestDate: 0 },
      })) as { executionInfos: { startTimestamp: number; closeTimestamp: number }[] };
      expect(closed.executionInfos).toHaveLength(1);
      const row = closed.executionInfos[0];
      expect(row?.closeTimestamp).toBeGreaterThanOrEqual(row?.startTimestamp ?? Infinity);
    } finally {
      doc.destroy();
      await service.close();
    }
  }, 120_000);
});
