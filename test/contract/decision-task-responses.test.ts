/**
 * What RespondDecisionTaskCompleted refuses, through the official SDK: a close the decider decided
 * without seeing every event (UNHANDLED_DECISION), invalid decisions and used or forged tokens.
 */
import {
  type Decision,
  RequestCancelWorkflowExecutionCommand,
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { decide, eventTypes, expectFault, single, uid } from '../support/decider.js';
import {
  act,
  domain,
  nextTask,
  serveDecisionTasks,
  startAndDecide,
  wf,
} from '../support/decision-tasks.js';
import { servedForFile } from '../support/local.js';

const server = servedForFile(serveDecisionTasks);

describe('UNHANDLED_DECISION', () => {
  it.each([
    ['CompleteWorkflowExecution', decide.complete('r'), 'CompleteWorkflowExecutionFailed'],
    ['FailWorkflowExecution', decide.fail('r'), 'FailWorkflowExecutionFailed'],
    ['CancelWorkflowExecution', decide.cancel('r'), 'CancelWorkflowExecutionFailed'],
    [
      'ContinueAsNewWorkflowExecution',
      decide.continueAsNew({}),
      'ContinueAsNewWorkflowExecutionFailed',
    ],
  ] as const)(
    'refuses %s when a signal arrived while the task was out',
    async (_name, close, failed) => {
      const { execution, taskList } = await server.driver.start(wf);
      const task = await server.driver.pollDecision(taskList);
      await server.driver.signal(execution, 'late');
      await server.driver.respond(task.taskToken, [decide.marker('before-close'), close]);

      const history = await server.driver.history(execution);
      expect(eventTypes(history)).toEqual([
        'WorkflowExecutionStarted',
        'DecisionTaskScheduled',
        'DecisionTaskStarted',
        'WorkflowExecutionSignaled',
        'DecisionTaskCompleted',
        'MarkerRecorded',
        failed,
        'DecisionTaskScheduled',
      ]);
      const event = history[6];
      const attributes =
        event?.completeWorkflowExecutionFailedEventAttributes ??
        event?.failWorkflowExecutionFailedEventAttributes ??
        event?.cancelWorkflowExecutionFailedEventAttributes ??
        event?.continueAsNewWorkflowExecutionFailedEventAttributes;
      expect(attributes).toEqual({ cause: 'UNHANDLED_DECISION', decisionTaskCompletedEventId: 5 });
      expect((await server.driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');

      // the next task shows the signal; closing now works
      const next = await server.driver.pollDecision(taskList);
      expect(next.previousStartedEventId).toBe(3);
      expect(eventTypes(next.events)).toContain('WorkflowExecutionSignaled');
      await server.driver.respond(next.taskToken, [decide.complete('now')]);
      expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe(
        'COMPLETED',
      );
    },
  );

  it('refuses the close when an activity completed while the task was out', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await startAndDecide(server.driver, [
      decide.scheduleActivity({ activityType: act, activityId: 'a', taskList: { name: workers } }),
    ]);
    const activity = await server.driver.pollActivity(workers);
    const task = await nextTask(server.driver, execution, taskList);
    await server.swf.send(
      new RespondActivityTaskCompletedCommand({ taskToken: activity.taskToken, result: 'late' }),
    );
    await server.driver.respond(task.taskToken, [decide.complete()]);
    const history = await server.driver.history(execution);
    expect(eventTypes(history).slice(-3)).toEqual([
      'DecisionTaskCompleted',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect((await server.driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
  });

  it('refuses CancelWorkflowExecution when a cancel request arrived while the task was out', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    await server.swf.send(
      new RequestCancelWorkflowExecutionCommand({
        domain,
        workflowId: execution.workflowId,
        runId: execution.runId,
      }),
    );
    await server.driver.respond(task.taskToken, [decide.cancel()]);
    const history = await server.driver.history(execution);
    expect(
      single(history, 'CancelWorkflowExecutionFailed').cancelWorkflowExecutionFailedEventAttributes
        ?.cause,
    ).toBe('UNHANDLED_DECISION');
    const next = await server.driver.pollDecision(taskList);
    expect(eventTypes(next.events)).toContain('WorkflowExecutionCancelRequested');
    await server.driver.respond(next.taskToken, [decide.cancel('now')]);
    expect((await server.driver.describe(execution)).executionInfo).toMatchObject({
      closeStatus: 'CANCELED',
      cancelRequested: true,
    });
  });

  it('does not count events that schedule no decision task (ActivityTaskStarted)', async () => {
    const workers = uid('workers');
    const { execution, taskList } = await startAndDecide(server.driver, [
      decide.scheduleActivity({ activityType: act, activityId: 'a', taskList: { name: workers } }),
    ]);
    const task = await nextTask(server.driver, execution, taskList);
    await server.driver.pollActivity(workers);
    await server.driver.respond(task.taskToken, [decide.complete()]);
    expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});

describe('validation of RespondDecisionTaskCompleted', () => {
  it.each([
    ['CompleteWorkflowExecution', decide.complete()],
    ['ContinueAsNewWorkflowExecution', decide.continueAsNew({})],
  ] as const)(
    'refuses %s before another decision; records nothing; the token stays usable',
    async (_n, close) => {
      const { execution, taskList } = await server.driver.start(wf);
      const task = await server.driver.pollDecision(taskList);
      const before = await server.driver.history(execution);
      await expectFault(
        server.driver.respond(task.taskToken, [close, decide.marker('after')]),
        'ValidationException',
        /Close must be last decision in list/,
      );
      expect(await server.driver.history(execution)).toEqual(before);
      await server.driver.respond(task.taskToken, [decide.marker('after'), decide.complete('ok')]);
      expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe(
        'COMPLETED',
      );
    },
  );

  it('answers a used token UnknownResourceFault before judging its decisions', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [decide.marker('once')]);
    const before = await server.driver.history(execution);
    await expectFault(
      server.driver.respond(task.taskToken, [decide.complete(), decide.marker('after')]),
      'UnknownResourceFault',
      /Unknown decision task/,
    );
    expect(await server.driver.history(execution)).toEqual(before);
  });

  it.each([
    ['ScheduleActivityTask'],
    ['RequestCancelActivityTask'],
    ['RecordMarker'],
    ['StartTimer'],
    ['CancelTimer'],
  ] as const)(
    'refuses a %s decision without its attributes; the token stays usable',
    async (decisionType) => {
      const { execution, taskList } = await server.driver.start(wf);
      const task = await server.driver.pollDecision(taskList);
      const before = await server.driver.history(execution);
      await expectFault(
        server.driver.respond(task.taskToken, [decide.marker('ok'), { decisionType }]),
        'ValidationException',
        /decisions\.2\.member/,
      );
      expect(await server.driver.history(execution)).toEqual(before);
      await server.driver.respond(task.taskToken, []);
      expect(eventTypes(await server.driver.history(execution)).at(-1)).toBe(
        'DecisionTaskCompleted',
      );
    },
  );

  it('refuses an unknown decisionType with ValidationException', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    const before = await server.driver.history(execution);
    await expectFault(
      server.swf.send(
        new RespondDecisionTaskCompletedCommand({
          taskToken: task.taskToken,
          decisions: [{ decisionType: 'LaunchRocket' as Decision['decisionType'] }],
        }),
      ),
      'ValidationException',
      /decisionType/,
    );
    expect(await server.driver.history(execution)).toEqual(before);
  });

  it('refuses attributes that break their constraints, naming the member', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    const before = await server.driver.history(execution);
    await expectFault(
      server.driver.respond(task.taskToken, [
        {
          decisionType: 'StartTimer',
          startTimerDecisionAttributes: { timerId: 't', startToFireTimeout: '' },
        },
      ]),
      'ValidationException',
      /decisions\.1\.member\.startTimerDecisionAttributes\.startToFireTimeout/,
    );
    await expectFault(
      server.driver.respond(task.taskToken, [
        decide.scheduleActivity({ activityType: act, activityId: 'x'.repeat(257) }),
      ]),
      'ValidationException',
      /activityId/,
    );
    expect(await server.driver.history(execution)).toEqual(before);
  });
});

describe('decision task tokens', () => {
  it('refuses a token used twice with UnknownResourceFault', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [decide.marker('once')]);
    const after = await server.driver.history(execution);
    await expectFault(
      server.driver.respond(task.taskToken, [decide.marker('twice')]),
      'UnknownResourceFault',
    );
    expect(await server.driver.history(execution)).toEqual(after);
    // an old token does not open the next task either
    const next = await nextTask(server.driver, execution, taskList);
    await expectFault(server.driver.respond(task.taskToken, []), 'UnknownResourceFault');
    await server.driver.respond(next.taskToken, []);
  });

  it('refuses a tampered token with UnknownResourceFault', async () => {
    const { taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    const middle = Math.floor(task.taskToken.length / 2);
    const flipped = task.taskToken[middle] === 'A' ? 'B' : 'A';
    const tampered = `${task.taskToken.slice(0, middle)}${flipped}${task.taskToken.slice(middle + 1)}`;
    await expectFault(server.driver.respond(tampered, []), 'UnknownResourceFault');
    await server.driver.respond(task.taskToken, []);
  });

  it('refuses the token of a task whose response closed the execution', async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const task = await server.driver.pollDecision(taskList);
    await server.swf.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: task.taskToken,
        decisions: [decide.complete()],
      }),
    );
    await expectFault(server.driver.respond(task.taskToken, []), 'UnknownResourceFault');
    expect((await server.driver.describe(execution)).executionInfo?.closeStatus).toBe('COMPLETED');
  });
});
