import {
  PollForDecisionTaskCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  RespondDecisionTaskCompletedCommand,
  StartWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { expect, it } from 'vitest';
import { serverForFile } from '../support/local.js';

const domain = 'timers';

const server = serverForFile({ polling: { maxWaitMs: 5_000 } }, async ({ swf }) => {
  await swf.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      name: 'wf',
      version: '1',
      defaultTaskList: { name: 'd' },
      defaultExecutionStartToCloseTimeout: '600',
      defaultTaskStartToCloseTimeout: '30',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
});

it('fires a timer on time', async () => {
  await server.swf.send(
    new StartWorkflowExecutionCommand({
      domain,
      workflowId: 't1',
      workflowType: { name: 'wf', version: '1' },
    }),
  );
  const first = await server.swf.send(
    new PollForDecisionTaskCommand({ domain, taskList: { name: 'd' } }),
  );
  await server.swf.send(
    new RespondDecisionTaskCompletedCommand({
      taskToken: first.taskToken,
      decisions: [
        {
          decisionType: 'StartTimer',
          startTimerDecisionAttributes: { timerId: 'x', startToFireTimeout: '1' },
        },
      ],
    }),
  );
  const second = await server.swf.send(
    new PollForDecisionTaskCommand({ domain, taskList: { name: 'd' } }),
  );
  const started = second.events?.find((e) => e.eventType === 'TimerStarted');
  const fired = second.events?.find((e) => e.eventType === 'TimerFired');
  expect(fired?.timerFiredEventAttributes).toEqual({
    timerId: 'x',
    startedEventId: started?.eventId,
  });
  const lateness =
    (fired?.eventTimestamp?.getTime() ?? 0) - (started?.eventTimestamp?.getTime() ?? 0) - 1000;
  expect(lateness).toBeGreaterThanOrEqual(0);
  expect(lateness).toBeLessThan(100);
});
