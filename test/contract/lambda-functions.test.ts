/**
 * Lambda tasks through the official SDK: ScheduleLambdaFunction run by the local
 * server's functions, each outcome's event and the decision task after it, the role an execution needs,
 * and that a slow function holds up nothing but itself.
 */
import {
  type Decision,
  ListOpenWorkflowExecutionsCommand,
  RegisterWorkflowTypeCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { eventsOf, eventTypes, single, uid } from '../support/decider.js';
import { domainForFile } from '../support/local.js';
import { awaitDecision, awaitHistory } from '../support/waiting.js';

const domain = 'lambda-functions';
const wf = { name: 'with-lambdas', version: '1' };
const lambdaRole = 'arn:aws:iam::000000000000:role/swf-lambda';

/** Functions that wait until the test lets them go. */
const held = new Map<string, () => void>();

const server = domainForFile(
  domain,
  { polling: { maxWaitMs: 1_000 } },
  async ({ swf, service }) => {
    await swf.send(
      new RegisterWorkflowTypeCommand({
        domain,
        ...wf,
        defaultExecutionStartToCloseTimeout: '600',
        defaultTaskStartToCloseTimeout: '60',
        defaultChildPolicy: 'TERMINATE',
      }),
    );
    service.lambda.register('upper', async (input) => input?.toUpperCase());
    service.lambda.register('boom', async () => {
      throw Object.assign(new Error('it went wrong'), { name: 'Boom' });
    });
    service.lambda.register('huge', async () => 'x'.repeat(40_000));
    service.lambda.register(
      'held',
      (input) =>
        new Promise((resolve) => {
          held.set(input ?? '', () => resolve(`released ${input}`));
        }),
    );
  },
);

const lambda = (id: string, name: string, extra: { input?: string; timeout?: string } = {}) =>
  ({
    decisionType: 'ScheduleLambdaFunction',
    scheduleLambdaFunctionDecisionAttributes: {
      id,
      name,
      ...(extra.input === undefined ? {} : { input: extra.input }),
      ...(extra.timeout === undefined ? {} : { startToCloseTimeout: extra.timeout }),
    },
  }) satisfies Decision;

/** Starts an execution (with a lambdaRole unless told otherwise) and answers its first task. */
async function startWith(decisions: Decision[], options: { role?: boolean; tag?: string } = {}) {
  const started = await server.driver.start(wf, {
    ...(options.role === false ? {} : { lambdaRole }),
    ...(options.tag === undefined ? {} : { tagList: [options.tag] }),
  });
  const task = await server.driver.pollDecision(started.taskList);
  await server.driver.respond(task.taskToken, decisions);
  return started;
}

describe('ScheduleLambdaFunction', () => {
  it('runs the function: Scheduled, Started, Completed with its result, then a decision task', async () => {
    const { execution, taskList } = await startWith([lambda('l1', 'upper', { input: 'hi' })]);
    const task = await awaitDecision(server.driver, taskList);
    expect(eventTypes(task.events).slice(4)).toEqual([
      'LambdaFunctionScheduled',
      'LambdaFunctionStarted',
      'LambdaFunctionCompleted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
    const scheduled = single(task.events, 'LambdaFunctionScheduled');
    expect(scheduled.lambdaFunctionScheduledEventAttributes).toMatchObject({
      id: 'l1',
      name: 'upper',
      input: 'hi',
      startToCloseTimeout: '900',
    });
    const started = single(task.events, 'LambdaFunctionStarted');
    expect(
      single(task.events, 'LambdaFunctionCompleted').lambdaFunctionCompletedEventAttributes,
    ).toEqual({
      scheduledEventId: scheduled.eventId,
      startedEventId: started.eventId,
      result: 'HI',
    });
    expect((await server.driver.describe(execution)).openCounts?.openLambdaFunctions).toBe(0);
  });

  it('records a function that throws as LambdaFunctionFailed with its reason and details', async () => {
    const { taskList } = await startWith([lambda('l1', 'boom')]);
    const task = await awaitDecision(server.driver, taskList);
    expect(
      single(task.events, 'LambdaFunctionFailed').lambdaFunctionFailedEventAttributes,
    ).toMatchObject({ reason: 'Boom', details: 'it went wrong' });
  });

  it('times a function out at its startToCloseTimeout', async () => {
    const key = uid('timeout');
    const { execution, taskList } = await startWith([
      lambda('l1', 'held', { input: key, timeout: '1' }),
    ]);
    expect((await server.driver.describe(execution)).openCounts?.openLambdaFunctions).toBe(1);
    const task = await awaitDecision(server.driver, taskList, 5_000);
    expect(
      single(task.events, 'LambdaFunctionTimedOut').lambdaFunctionTimedOutEventAttributes,
    ).toMatchObject({ timeoutType: 'START_TO_CLOSE' });
    // Its answer after the timeout records nothing.
    held.get(key)?.();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      eventsOf(await server.driver.history(execution), 'LambdaFunctionCompleted'),
    ).toHaveLength(0);
  });

  it('cuts a result over 32768 characters to 32768, as its event holds', async () => {
    const { taskList } = await startWith([lambda('l1', 'huge')]);
    const task = await awaitDecision(server.driver, taskList);
    const completed = single(task.events, 'LambdaFunctionCompleted');
    expect(completed.lambdaFunctionCompletedEventAttributes?.result).toHaveLength(32_768);
  });

  it('fails with OPERATION_NOT_PERMITTED in an execution without a lambdaRole', async () => {
    const { execution, taskList } = await startWith([lambda('l1', 'upper')], { role: false });
    const task = await awaitDecision(server.driver, taskList);
    expect(
      single(task.events, 'ScheduleLambdaFunctionFailed')
        .scheduleLambdaFunctionFailedEventAttributes,
    ).toMatchObject({ id: 'l1', name: 'upper', cause: 'OPERATION_NOT_PERMITTED' });
    expect(
      eventsOf(await server.driver.history(execution), 'LambdaFunctionScheduled'),
    ).toHaveLength(0);
  });

  it('holds up nothing else while a function runs: other functions, signals, lists', async () => {
    const key = uid('slow');
    const slow = await startWith([lambda('slow', 'held', { input: key, timeout: '60' })]);
    await awaitHistory(server.driver, slow.execution, (events) =>
      eventTypes(events).includes('LambdaFunctionStarted'),
    );
    const tag = uid('meanwhile');
    const other = await startWith(
      [
        lambda('quick', 'upper', { input: 'next' }),
        {
          decisionType: 'SignalExternalWorkflowExecution',
          signalExternalWorkflowExecutionDecisionAttributes: {
            workflowId: slow.execution.workflowId,
            signalName: 'meanwhile',
          },
        },
      ],
      { tag },
    );
    // Both come while the slow function still runs.
    const quick = await awaitHistory(
      server.driver,
      other.execution,
      (events) =>
        eventTypes(events).includes('LambdaFunctionCompleted') &&
        eventTypes(events).includes('ExternalWorkflowExecutionSignaled'),
      3_000,
    );
    expect(
      single(quick, 'LambdaFunctionCompleted').lambdaFunctionCompletedEventAttributes?.result,
    ).toBe('NEXT');
    const listed = await server.swf.send(
      new ListOpenWorkflowExecutionsCommand({
        domain,
        startTimeFilter: { oldestDate: new Date(0) },
        tagFilter: { tag },
      }),
    );
    expect(listed.executionInfos?.map((info) => info.execution?.runId)).toEqual([
      other.execution.runId,
    ]);
    const signaled = await awaitHistory(server.driver, slow.execution, (events) =>
      eventTypes(events).includes('WorkflowExecutionSignaled'),
    );
    expect(eventsOf(signaled, 'LambdaFunctionCompleted')).toHaveLength(0);
    held.get(key)?.();
    const done = await awaitHistory(server.driver, slow.execution, (events) =>
      eventTypes(events).includes('LambdaFunctionCompleted'),
    );
    expect(
      single(done, 'LambdaFunctionCompleted').lambdaFunctionCompletedEventAttributes?.result,
    ).toBe(`released ${key}`);
  });
});
