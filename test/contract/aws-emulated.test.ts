/**
 * The deployed functions (functions/api.ts, stream.ts, timer.ts, lambda-task.ts, the very modules
 * Lambda loads, configured by the environment the CDK stack gives them) driven only by the events AWS
 * would send them: an official SWF client over HTTP → payload 2.0 events; DynamoDB Local's stream →
 * Lambda stream records, filtered with the synthesized event source mapping's FilterCriteria; an
 * emulated SQS queue and Scheduler; Lambda's asynchronous Invoke of the Lambda-task function. No
 * local stream poller or local timer runs: whatever the workflows get, these functions did. The
 * emulated AWS is test/support/emulated-deployment.ts.
 */
import {
  type Decision,
  type HistoryEvent,
  ListClosedWorkflowExecutionsCommand,
  RecordActivityTaskHeartbeatCommand,
  StartWorkflowExecutionCommand,
  SWFClient,
} from '@aws-sdk/client-swf';
import type { APIGatewayProxyEventV2WithIAMAuthorizer } from 'aws-lambda';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { decide, eventTypes, sleep, uid } from '../support/decider.js';
import {
  ACCOUNT,
  child,
  decisionWhen,
  domain,
  emulatedDeployment,
  GROUP,
  LAMBDA_ROLE,
  parent,
  QUEUE_ARN,
  REGION,
  SCHEDULER_ROLE,
  work,
} from '../support/emulated-deployment.js';
import { functionUrlEvent } from '../support/lambda-events.js';
import { answersProblems, isEmptyPoll } from '../support/output-shapes.js';

// The functions' DynamoDB client goes to DynamoDB Local instead of dynamodb.<region>.amazonaws.com.
vi.mock('../../functions/shared/config.js', async (importOriginal) =>
  (await import('../support/emulated-deployment.js')).configOnDynamoDbLocal(importOriginal),
);

const aws = emulatedDeployment();

const count = (events: HistoryEvent[], type: string) =>
  events.filter((e) => e.eventType === type).length;

describe('a workflow run by the deployed functions alone', () => {
  it('gets its timer, timeouts, child and signal exactly once, and closes', async () => {
    const { execution, taskList } = await aws.driver.start(parent);
    const childList = uid('child-deciders');
    const activities = uid('workers');
    const first = await aws.driver.pollDecision(taskList);
    await aws.driver.respond(first.taskToken, [
      decide.startTimer('t1', '2'),
      decide.scheduleActivity({
        activityId: 'hb',
        activityType: work,
        taskList: { name: activities },
        heartbeatTimeout: '2',
      }),
      decide.scheduleActivity({
        activityId: 'nobody',
        activityType: work,
        taskList: { name: uid('nobody') },
        scheduleToStartTimeout: '2',
      }),
      {
        decisionType: 'StartChildWorkflowExecution',
        startChildWorkflowExecutionDecisionAttributes: {
          workflowId: uid('child'),
          workflowType: child,
          taskList: { name: childList },
        },
      },
    ] satisfies Decision[]);

    // The activity worker starts the heartbeat activity, beats once, then goes silent.
    const task = await aws.driver.pollActivity(activities);
    await aws.swf.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: task.taskToken, details: 'beat' }),
    );
    // The child's decider completes it.
    const childTask = await aws.driver.pollDecision(childList);
    await aws.driver.respond(childTask.taskToken, [decide.complete('child done')]);
    await aws.driver.signal(execution, 'poke', 'hello');

    const done = (events: HistoryEvent[]) =>
      count(events, 'TimerFired') === 1 &&
      count(events, 'ActivityTaskTimedOut') === 2 &&
      count(events, 'ChildWorkflowExecutionCompleted') === 1 &&
      count(events, 'WorkflowExecutionSignaled') === 1;
    const ready = await decisionWhen(aws.driver, taskList, done, 25_000);
    await aws.driver.respond(ready.taskToken, [decide.complete('ok')]);

    await sleep(3_000);
    const history = await aws.driver.history(execution);
    const types = eventTypes(history);
    for (const once of [
      'TimerStarted',
      'TimerFired',
      'StartChildWorkflowExecutionInitiated',
      'ChildWorkflowExecutionStarted',
      'ChildWorkflowExecutionCompleted',
      'WorkflowExecutionSignaled',
      'WorkflowExecutionCompleted',
    ])
      expect(count(history, once), `${once} in ${types.join(', ')}`).toBe(1);
    expect(count(history, 'ActivityTaskTimedOut')).toBe(2);
    const timeouts = history
      .filter((e) => e.eventType === 'ActivityTaskTimedOut')
      .map((e) => e.activityTaskTimedOutEventAttributes?.timeoutType)
      .sort();
    expect(timeouts).toEqual(['HEARTBEAT', 'SCHEDULE_TO_START']);
    const hb = history.find(
      (e) => e.activityTaskTimedOutEventAttributes?.timeoutType === 'HEARTBEAT',
    );
    expect(hb?.activityTaskTimedOutEventAttributes?.details).toBe('beat');
    // Visibility rows are the stream's work: the closed run is listed.
    const listed = await aws.swf.send(
      new ListClosedWorkflowExecutionsCommand({
        domain,
        startTimeFilter: { oldestDate: new Date(Date.now() - 600_000) },
        executionFilter: { workflowId: execution.workflowId },
      }),
    );
    expect(listed.executionInfos?.map((i) => i.closeStatus)).toEqual(['COMPLETED']);
    expect(aws.queue.deadLetters).toEqual([]);
    expect(aws.streamPump.errors).toEqual([]);
    expect(aws.timerPump.errors).toEqual([]);
  }, 60_000);

  it('runs its Lambda tasks: each function invoked once, its outcome recorded', async () => {
    const { execution, taskList } = await aws.driver.start(parent, { lambdaRole: LAMBDA_ROLE });
    const first = await aws.driver.pollDecision(taskList);
    const calls = aws.userFunctionCalls.length;
    await aws.driver.respond(first.taskToken, [
      {
        decisionType: 'ScheduleLambdaFunction',
        scheduleLambdaFunctionDecisionAttributes: {
          id: 'l1',
          name: 'upper',
          input: 'hi',
          startToCloseTimeout: '3',
        },
      },
    ] satisfies Decision[]);
    const deadline = Date.now() + 8_000;
    let history: HistoryEvent[] = [];
    while (Date.now() < deadline) {
      history = await aws.driver.history(execution);
      if (count(history, 'LambdaFunctionCompleted') + count(history, 'LambdaFunctionTimedOut') > 0)
        break;
      await sleep(200);
    }
    // Before the invoker rounded the time left to whole milliseconds: LambdaFunctionStarted, then
    // LambdaFunctionTimedOut (START_TO_CLOSE) at the task's timeout, the function never invoked
    // (functions/lambda-task.ts rejected with a RangeError from AbortSignal.timeout).
    const lambdaEvents = eventTypes(history).filter((t) => t.startsWith('LambdaFunction'));
    expect(lambdaEvents).toEqual([
      'LambdaFunctionScheduled',
      'LambdaFunctionStarted',
      'LambdaFunctionCompleted',
    ]);
    expect(aws.userFunctionCalls.slice(calls).map((c) => c.name)).toEqual(['upper']);
  }, 30_000);

  it('arms a deadline over 15 minutes away as a one-time schedule, and deletes it when cancelled', async () => {
    // Decision tasks of 2 s: the run's alarm, left at the first task's timeout, fires soon and moves
    // to the timer (the alarm is brought forward at once, and moved back only when it fires).
    const { execution, taskList } = await aws.driver.start(parent, {
      taskStartToCloseTimeout: '2',
    });
    const first = await aws.driver.pollDecision(taskList);
    await aws.driver.respond(first.taskToken, [decide.startTimer('long', '1200')]);
    const started = async () =>
      (await aws.driver.history(execution)).find((e) => e.eventType === 'TimerStarted');
    const fireAt = ((await started())?.eventTimestamp?.getTime() ?? 0) + 1_200_000;
    const timerSchedule = () =>
      [...aws.schedules.entries()].find(
        ([, s]) => Math.abs(s.fireAtMs - (fireAt - 60_000)) < 2_000,
      );
    const deadline = Date.now() + 10_000;
    while (timerSchedule() === undefined && Date.now() < deadline) await sleep(50);
    const found = timerSchedule();
    expect(
      found,
      JSON.stringify({
        s: [...aws.schedules.values()],
        calls: aws.scheduleCalls,
        errors: aws.streamPump.errors.map(String),
        failures: aws.streamPump.failures,
        sent: aws.queue.sent.slice(-5),
        fireAt,
      }),
    ).toBeDefined();
    const [key, schedule] = found ?? ['', undefined];
    // One minute early, in UTC, to the queue, as the scheduler role, deleting itself after.
    expect(schedule).toMatchObject({
      group: GROUP,
      timezone: 'UTC',
      targetArn: QUEUE_ARN,
      roleArn: SCHEDULER_ROLE,
      actionAfterCompletion: 'DELETE',
    });
    expect(JSON.parse(schedule?.input ?? '{}')).toMatchObject({ runId: execution.runId });
    await aws.driver.signal(execution);
    const next = await aws.driver.pollDecision(taskList);
    await aws.driver.respond(next.taskToken, [decide.cancelTimer('long')]);
    const until = Date.now() + 10_000;
    while (aws.schedules.has(key) && Date.now() < until) await sleep(50);
    expect(aws.schedules.has(key)).toBe(false);
  }, 40_000);
});

describe('through an SQS outage and duplicate fires', () => {
  it('hands the failed stream records back (batchItemFailures) and still fires each deadline once', async () => {
    aws.queue.duplicateOnSend = true;
    try {
      const { execution, taskList } = await aws.driver.start(parent);
      const first = await aws.driver.pollDecision(taskList);
      const failuresBefore = aws.streamPump.failures.length;
      aws.sqsOutageUntil = Date.now() + 3_000;
      await aws.driver.respond(first.taskToken, [
        decide.startTimer('t1', '1'),
        decide.startTimer('t2', '2'),
        decide.scheduleActivity({
          activityId: 'nobody',
          activityType: work,
          taskList: { name: uid('nobody') },
          scheduleToStartTimeout: '1',
        }),
      ]);
      const done = (events: HistoryEvent[]) =>
        count(events, 'TimerFired') === 2 && count(events, 'ActivityTaskTimedOut') === 1;
      const ready = await decisionWhen(aws.driver, taskList, done, 25_000);
      await aws.driver.respond(ready.taskToken, [decide.complete()]);
      await sleep(2_000);
      const history = await aws.driver.history(execution);
      expect(count(history, 'TimerFired')).toBe(2);
      expect(count(history, 'ActivityTaskTimedOut')).toBe(1);
      expect(count(history, 'WorkflowExecutionCompleted')).toBe(1);
      expect(aws.sqsThrottled).toBeGreaterThan(0);
      expect(aws.streamPump.failures.length).toBeGreaterThan(failuresBefore);
      expect(aws.streamPump.errors).toEqual([]);
      expect(aws.timerPump.errors).toEqual([]);
    } finally {
      aws.queue.duplicateOnSend = false;
    }
  }, 40_000);
});

describe('the API function behind API Gateway', () => {
  const event = functionUrlEvent;
  const call = (e: APIGatewayProxyEventV2WithIAMAuthorizer, remainingMs?: number) =>
    aws.callApi(e, remainingMs);

  it('answers a call with no content-type, and one whose body is exactly 1 MB in base64', async () => {
    const plain = await call(
      event('SimpleWorkflowService.ListDomains', '{"registrationStatus":"REGISTERED"}'),
    );
    expect(plain.statusCode).toBe(200);
    expect(plain.headers?.['content-type']).toBe('application/x-amz-json-1.0');
    const pad = (n: number) => {
      const head = '{"registrationStatus":"REGISTERED","x":"';
      return `${head}${'a'.repeat(n - head.length - 2)}"}`;
    };
    const atLimit = await call(
      event('SimpleWorkflowService.ListDomains', pad(1_048_576), { base64: true }),
    );
    // Not refused for its size (an unknown member is SWF's to judge, not the size limit's).
    expect(atLimit.json.message ?? '').not.toMatch(/maximum request size/);
    const over = await call(
      event('SimpleWorkflowService.ListDomains', pad(1_048_577), { base64: true }),
    );
    expect(over.statusCode).toBe(400);
    expect(over.json.__type).toMatch(/ValidationException$/);
  });

  it('answers other methods and a missing target in the SWF shape (function URL)', async () => {
    const get = await call(event(undefined, undefined, { method: 'GET' }));
    expect(get.statusCode).toBe(400);
    expect(get.json.__type).toMatch(/UnknownOperationException$/);
  });

  it('saw both plain and base64 bodies, with lower-case header names', () => {
    expect(aws.apiEvents.some((e) => e.isBase64Encoded)).toBe(true);
    expect(aws.apiEvents.some((e) => !e.isBase64Encoded)).toBe(true);
    expect(Object.keys(aws.apiEvents[0]?.headers ?? {})).toContain('x-amz-target');
    void aws.apiHandler;
  });
});

describe('the API function, judging the caller API Gateway authenticated', () => {
  it("lets a readers' session read, refuses it a start, and refuses a caller no policy names", async () => {
    const endpoint = await aws.swf.config.endpoint?.();
    const as = (accessKeyId: string) =>
      new SWFClient({
        endpoint: `${endpoint?.protocol}//${endpoint?.hostname}:${endpoint?.port}`,
        region: REGION,
        credentials: { accessKeyId, secretAccessKey: 'x' },
        maxAttempts: 1,
      });
    const readers = as('readers');
    const strangers = as('strangers');
    onTestFinished(() => {
      readers.destroy();
      strangers.destroy();
    });
    const listed = await readers.send(
      new ListClosedWorkflowExecutionsCommand({
        domain,
        startTimeFilter: { oldestDate: new Date(0) },
      }),
    );
    expect(listed.executionInfos).toBeDefined();
    const start = new StartWorkflowExecutionCommand({
      domain,
      workflowId: uid('r'),
      workflowType: parent,
    });
    await expect(readers.send(start)).rejects.toMatchObject({
      name: 'OperationNotPermittedFault',
      message: `User: arn:aws:sts::${ACCOUNT}:assumed-role/readers/sdk-session is not authorized to perform: swf:StartWorkflowExecution on resource: arn:aws:swf:${REGION}:${ACCOUNT}:/domain/${domain} because no identity-based policy allows the action`,
    });
    await expect(strangers.send(start)).rejects.toMatchObject({
      name: 'OperationNotPermittedFault',
      message: expect.stringMatching(
        /assumed-role\/strangers\/sdk-session .*: no access policy names this caller$/,
      ),
    });
    // Each call's audit line: the session API Gateway authenticated, the action, the domain, how
    // it ended, and the Lambda invocation it was.
    const lines = aws.auditLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual({
      audit: 'swf-call',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      invocationId: expect.any(String),
      caller: `arn:aws:sts::${ACCOUNT}:assumed-role/readers/sdk-session`,
      action: 'StartWorkflowExecution',
      domain,
      outcome: 'OperationNotPermittedFault',
      statusCode: 400,
    });
    expect(lines).toContainEqual(
      expect.objectContaining({
        caller: `arn:aws:sts::${ACCOUNT}:assumed-role/test/sdk-session`,
        action: 'RespondDecisionTaskCompleted',
        domain,
        outcome: 'ok',
      }),
    );
  });
});

describe("the API function's answers", () => {
  it('each conform to its output shape in the service model (empty polls excused)', () => {
    const checked = aws.answers.filter((answer) => !isEmptyPoll(answer));
    expect(checked.filter((answer) => answer.status === 200).length).toBeGreaterThan(20);
    expect(answersProblems(checked)).toEqual([]);
  });
});
