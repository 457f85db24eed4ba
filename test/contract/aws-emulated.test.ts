/**
 * The deployed functions (functions/api.ts, stream.ts, timer.ts, lambda-task.ts, the very modules
 * Lambda loads, configured by the environment the CDK stack gives them) driven only by the events AWS
 * would send them: an official SWF client over HTTP → payload 2.0 events; DynamoDB Local's stream →
 * Lambda stream records, filtered with the synthesized event source mapping's FilterCriteria; an
 * emulated SQS queue and Scheduler; Lambda's asynchronous Invoke of the Lambda-task function. No
 * local stream poller or local timer runs: whatever the workflows get, these functions did.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import {
  type Decision,
  type HistoryEvent,
  ListClosedWorkflowExecutionsCommand,
  RecordActivityTaskHeartbeatCommand,
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  StartWorkflowExecutionCommand,
  SWFClient,
} from '@aws-sdk/client-swf';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { APIGatewayProxyEventV2WithIAMAuthorizer } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createApiHandler } from '../../functions/shared/api-handler.js';
import { SwfStack } from '../../infra/swf-stack.js';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import {
  EmulatedQueue,
  type EmulatedSchedule,
  parseAt,
  StreamPump,
  TimerPump,
} from '../support/aws-emulator.js';
import { decide, eventTypes, SwfDriver, sleep, uid } from '../support/decider.js';
import { iamAuthorizer, lambdaContext } from '../support/lambda-events.js';
import { dynamoClient, dynamoEndpoint, freshTable } from '../support/local.js';
import {
  answersProblems,
  isEmptyPoll,
  type RawAnswer,
  recordAnswers,
} from '../support/output-shapes.js';

// The functions' DynamoDB client goes to DynamoDB Local instead of dynamodb.<region>.amazonaws.com.
vi.mock('../../functions/shared/config.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../functions/shared/config.js')>();
  const { createDocumentClient } = await import('../../lib/adapters/dynamodb/client.js');
  const { localCredentials: credentials } = await import('../../lib/local/dynamodb-local.js');
  const { dynamoEndpoint } = await import('../support/local.js');
  return {
    ...original,
    functionDocClient: (region: string) =>
      createDocumentClient({
        region,
        endpoint: dynamoEndpoint(),
        credentials,
        requestTimeoutMs: original.FUNCTION_DYNAMO_TIMEOUT_MS,
      }),
  };
});

const ACCOUNT = '000000000000';
const REGION = 'us-east-1';
const QUEUE_ARN = `arn:aws:sqs:${REGION}:${ACCOUNT}:SwfStack-OutboxTimerQueue`;
const QUEUE_URL = `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/SwfStack-OutboxTimerQueue`;
const GROUP = 'SwfStack-Outbox-ScheduleGroup-91EBFE44';
const SCHEDULER_ROLE = `arn:aws:iam::${ACCOUNT}:role/SwfStack-OutboxSchedulerRole`;
const LAMBDA_TASK_FUNCTION = 'SwfStack-OutboxLambdaTaskHandler';
const API_FUNCTION = 'SwfStack-ApiHandler';
const LAMBDA_ROLE = `arn:aws:iam::${ACCOUNT}:role/swf-lambda`;

const sqsMock = mockClient(SQSClient);
const schedulerMock = mockClient(SchedulerClient);
const lambdaMock = mockClient(LambdaClient);
const stsMock = mockClient(STSClient);

const queue = new EmulatedQueue(2_000, 5);
const schedules = new Map<string, EmulatedSchedule>();
const scheduleCalls: { op: 'create' | 'delete'; name: string; group: string }[] = [];
const userFunctionCalls: { name: string; payload: string }[] = [];
const lambdaTaskEvents: unknown[] = [];
const asyncInvocations: Promise<unknown>[] = [];

let table: Awaited<ReturnType<typeof freshTable>>;
let streams: DynamoDBStreamsClient;
let streamPump: StreamPump;
let timerPump: TimerPump;
let server: Server;
let swf: SWFClient;
/** The raw answers the SDK client was given through the API function (test/support/output-shapes). */
let answers: RawAnswer[] = [];
let driver: SwfDriver;
let filters: Record<string, unknown>[];
let apiHandler: typeof import('../../functions/api.js').handler;
const apiEvents: APIGatewayProxyEventV2WithIAMAuthorizer[] = [];
/** The audit lines functions/api.ts logged. */
const auditLines: string[] = [];
let base64Next = false;
let sqsOutageUntil = 0;
let sqsThrottled = 0;

/**
 * The API function's access policies: the test's client (sessions of the role `test`) may do
 * everything; sessions of `readers` (configured with its path) may only read.
 */
const ACCESS_POLICIES = {
  [`arn:aws:iam::${ACCOUNT}:role/test`]: {
    Version: '2012-10-17',
    Statement: { Effect: 'Allow', Action: '*', Resource: '*' },
  },
  [`arn:aws:iam::${ACCOUNT}:role/team/readers`]: {
    Version: '2012-10-17',
    Statement: {
      Effect: 'Allow',
      Action: ['swf:List*', 'swf:Describe*', 'swf:Get*', 'swf:Count*'],
      Resource: `arn:aws:swf:${REGION}:${ACCOUNT}:/domain/*`,
    },
  },
};
function accessPoliciesFile(): string {
  const file = join(tmpdir(), `${uid('emulated-access')}.json`);
  writeFileSync(file, JSON.stringify(ACCESS_POLICIES));
  return file;
}

const domain = 'emulated';
const parent = { name: 'emu-parent', version: '1' };
const child = { name: 'emu-child', version: '1' };
const work = { name: 'emu-work', version: '1' };

beforeAll(async () => {
  // The event source mapping's filters as synthesized (bundling skipped: only the template matters).
  const template = Template.fromStack(
    new SwfStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'FilterStack'),
  );
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
  const withFilters = mappings.find((m) => m.Properties.FilterCriteria !== undefined);
  filters = withFilters?.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) =>
    JSON.parse(f.Pattern),
  );
  expect(filters.length).toBeGreaterThan(0);

  table = await freshTable('emu');
  const env: Record<string, string> = {
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_LAMBDA_FUNCTION_NAME: API_FUNCTION,
    TABLE_NAME: table.tableName,
    ACCOUNT_ID: ACCOUNT,
    POLL_MAX_WAIT_MS: '2000',
    POLL_RECHECK_MS: '150',
    TIMER_QUEUE_URL: QUEUE_URL,
    TIMER_QUEUE_ARN: QUEUE_ARN,
    SCHEDULE_GROUP: GROUP,
    SCHEDULER_ROLE_ARN: SCHEDULER_ROLE,
    LAMBDA_TASK_FUNCTION,
    // The deployed path's access control: callers are the sessions API Gateway authenticated.
    SWF_ACCESS_POLICIES_FILE: accessPoliciesFile(),
    SWF_LAMBDA_TASK_ROLES: JSON.stringify([LAMBDA_ROLE]),
  };
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  // functions/api.ts writes one audit line per call to its log (stdout): kept here, for the test
  // that reads them, instead of filling the test's output.
  const log = console.log.bind(console);
  vi.spyOn(console, 'log').mockImplementation((line?: unknown, ...rest: unknown[]) => {
    if (typeof line === 'string' && line.startsWith('{"audit":"swf-call"')) auditLines.push(line);
    else log(line, ...rest);
  });

  sqsMock.on(SendMessageCommand).callsFake((input) => {
    expect(input.QueueUrl).toBe(QUEUE_URL);
    if (Date.now() < sqsOutageUntil) {
      sqsThrottled++;
      throw Object.assign(new Error('Rate exceeded'), {
        name: 'ThrottlingException',
        $fault: 'client',
        $retryable: { throttling: true },
        $metadata: { httpStatusCode: 400 },
      });
    }
    return { MessageId: queue.send(input.MessageBody ?? '', input.DelaySeconds ?? 0) };
  });
  schedulerMock.on(CreateScheduleCommand).callsFake((input) => {
    const name = input.Name ?? '';
    scheduleCalls.push({ op: 'create', name, group: input.GroupName ?? 'default' });
    if (!/^[0-9a-zA-Z-_.]{1,64}$/.test(name)) throw new Error(`bad schedule name ${name}`);
    const key = `${input.GroupName}/${name}`;
    if (schedules.has(key))
      throw new ConflictException({ Message: 'exists', message: 'exists', $metadata: {} });
    const fireAtMs = parseAt(input.ScheduleExpression ?? '', input.ScheduleExpressionTimezone);
    if (fireAtMs <= Date.now()) throw new Error('ValidationException: at() in the past');
    schedules.set(key, {
      name,
      group: input.GroupName ?? 'default',
      expression: input.ScheduleExpression ?? '',
      timezone: input.ScheduleExpressionTimezone,
      fireAtMs,
      input: input.Target?.Input ?? '',
      targetArn: input.Target?.Arn ?? '',
      roleArn: input.Target?.RoleArn ?? '',
      actionAfterCompletion: input.ActionAfterCompletion,
    });
    return { ScheduleArn: `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${key}` };
  });
  schedulerMock.on(DeleteScheduleCommand).callsFake((input) => {
    const key = `${input.GroupName}/${input.Name}`;
    scheduleCalls.push({ op: 'delete', name: input.Name ?? '', group: input.GroupName ?? '' });
    if (!schedules.delete(key))
      throw new ResourceNotFoundException({
        Message: 'no such schedule',
        message: 'no such schedule',
        $metadata: {},
      });
    return {};
  });
  stsMock.on(AssumeRoleCommand).resolves({
    Credentials: {
      AccessKeyId: 'ASIA',
      SecretAccessKey: 's',
      SessionToken: 't',
      Expiration: new Date(Date.now() + 3_600_000),
    },
  });

  const { handler: api } = await import('../../functions/api.js');
  const { handler: stream } = await import('../../functions/stream.js');
  const { handler: timer } = await import('../../functions/timer.js');
  const { handler: lambdaTask } = await import('../../functions/lambda-task.js');
  apiHandler = api;

  lambdaMock.on(InvokeCommand).callsFake(async (input) => {
    const payload = Buffer.from(input.Payload ?? new Uint8Array()).toString('utf8');
    if (input.FunctionName === LAMBDA_TASK_FUNCTION) {
      expect(input.InvocationType).toBe('Event');
      const event = JSON.parse(payload);
      lambdaTaskEvents.push(event);
      // Lambda queues the event and runs the function later, at least once: here twice at once.
      for (let i = 0; i < 2; i++)
        asyncInvocations.push(
          sleep(20).then(() =>
            lambdaTask(event, lambdaContext({ remainingMs: 900_000, name: LAMBDA_TASK_FUNCTION })),
          ),
        );
      return { StatusCode: 202 };
    }
    userFunctionCalls.push({ name: input.FunctionName ?? '', payload });
    if (input.FunctionName === 'upper')
      return { StatusCode: 200, Payload: Buffer.from(JSON.stringify(payload.toUpperCase())) };
    return {
      StatusCode: 200,
      FunctionError: 'Unhandled',
      Payload: Buffer.from('{"errorMessage":"nope"}'),
    };
  });

  // The front door: HTTP as API Gateway's HTTP API receives it → a payload 2.0 event.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
      base64Next = !base64Next;
      const event: APIGatewayProxyEventV2WithIAMAuthorizer = {
        version: '2.0',
        routeKey: 'POST /',
        rawPath: req.url ?? '/',
        rawQueryString: '',
        headers,
        requestContext: {
          accountId: ACCOUNT,
          apiId: 'abc123',
          domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
          domainPrefix: 'abc123',
          http: {
            method: req.method ?? 'POST',
            path: req.url ?? '/',
            protocol: 'HTTP/1.1',
            sourceIp: '203.0.113.7',
            userAgent: headers['user-agent'] ?? '',
          },
          requestId: uid('req'),
          routeKey: 'POST /',
          stage: '$default',
          time: new Date().toUTCString(),
          timeEpoch: Date.now(),
          authorizer: iamAuthorizer(headers.authorization),
        },
        isBase64Encoded: base64Next,
        ...(raw.length === 0
          ? {}
          : { body: base64Next ? raw.toString('base64') : raw.toString('utf8') }),
      };
      apiEvents.push(event);
      void api(event, lambdaContext({ remainingMs: 28_000, name: API_FUNCTION })).then(
        (result) => {
          const r = typeof result === 'string' ? { statusCode: 200, body: result } : result;
          res.writeHead(r.statusCode ?? 200, (r.headers ?? {}) as Record<string, string>);
          res.end(r.isBase64Encoded ? Buffer.from(r.body ?? '', 'base64') : (r.body ?? ''));
        },
        (error: unknown) => {
          res.writeHead(502);
          res.end(String(error));
        },
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  swf = new SWFClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: REGION,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  driver = new SwfDriver(swf, domain);
  answers = recordAnswers(swf);

  streams = new DynamoDBStreamsClient({
    endpoint: dynamoEndpoint(),
    region: REGION,
    credentials: localCredentials,
  });
  streamPump = new StreamPump({
    dynamo: dynamoClient(),
    streams,
    tableName: table.tableName,
    filters,
    batchSize: 100,
    handler: stream,
    duplicate: true,
  });
  streamPump.start();
  timerPump = new TimerPump(queue, timer, schedules, true);
  timerPump.start();

  await swf.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
  );
  const defaults = {
    domain,
    defaultTaskList: { name: 'unused' },
    defaultExecutionStartToCloseTimeout: '3600',
    defaultTaskStartToCloseTimeout: '60',
    defaultChildPolicy: 'TERMINATE' as const,
    defaultLambdaRole: LAMBDA_ROLE,
  };
  await swf.send(new RegisterWorkflowTypeCommand({ ...defaults, ...parent }));
  await swf.send(new RegisterWorkflowTypeCommand({ ...defaults, ...child }));
  await swf.send(
    new RegisterActivityTypeCommand({
      domain,
      ...work,
      defaultTaskList: { name: 'unused' },
      defaultTaskScheduleToStartTimeout: '60',
      defaultTaskScheduleToCloseTimeout: '120',
      defaultTaskStartToCloseTimeout: '60',
      defaultTaskHeartbeatTimeout: 'NONE',
    }),
  );
}, 120_000);

afterAll(async () => {
  await streamPump?.stop();
  await timerPump?.stop();
  await Promise.allSettled(asyncInvocations);
  swf?.destroy();
  streams?.destroy();
  server?.close();
  table?.doc.destroy();
  table?.client.destroy();
  sqsMock.restore();
  schedulerMock.restore();
  lambdaMock.restore();
  stsMock.restore();
  vi.unstubAllEnvs();
});

/** Polls for a decision task until one comes whose history satisfies `ready`. */
async function decisionWhen(
  taskList: string,
  ready: (events: HistoryEvent[]) => boolean,
  withinMs = 20_000,
) {
  const deadline = Date.now() + withinMs;
  let last: HistoryEvent[] = [];
  while (Date.now() < deadline) {
    const task = await driver.swf.send(
      new (await import('@aws-sdk/client-swf')).PollForDecisionTaskCommand({
        domain,
        taskList: { name: taskList },
      }),
    );
    if (task.taskToken) {
      // What the decision task was started with: an event recorded after it (a timeout that fires
      // as the task starts) is the next task's, and a decision that counted it would be refused.
      const events = (
        await driver.history({
          workflowId: task.workflowExecution?.workflowId ?? '',
          runId: task.workflowExecution?.runId ?? '',
        })
      ).filter((e) => (e.eventId ?? 0) <= (task.startedEventId ?? 0));
      last = events;
      if (ready(events)) return { taskToken: task.taskToken, events };
      await driver.respond(task.taskToken, []);
    }
  }
  throw new Error(`not ready within ${withinMs} ms: ${eventTypes(last).join(', ')}`);
}

const count = (events: HistoryEvent[], type: string) =>
  events.filter((e) => e.eventType === type).length;

describe('a workflow run by the deployed functions alone', () => {
  it('gets its timer, timeouts, child and signal exactly once, and closes', async () => {
    const { execution, taskList } = await driver.start(parent);
    const childList = uid('child-deciders');
    const activities = uid('workers');
    const first = await driver.pollDecision(taskList);
    await driver.respond(first.taskToken, [
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
    const task = await driver.pollActivity(activities);
    await swf.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: task.taskToken, details: 'beat' }),
    );
    // The child's decider completes it.
    const childTask = await driver.pollDecision(childList);
    await driver.respond(childTask.taskToken, [decide.complete('child done')]);
    await driver.signal(execution, 'poke', 'hello');

    const done = (events: HistoryEvent[]) =>
      count(events, 'TimerFired') === 1 &&
      count(events, 'ActivityTaskTimedOut') === 2 &&
      count(events, 'ChildWorkflowExecutionCompleted') === 1 &&
      count(events, 'WorkflowExecutionSignaled') === 1;
    const ready = await decisionWhen(taskList, done, 25_000);
    await driver.respond(ready.taskToken, [decide.complete('ok')]);

    await sleep(3_000);
    const history = await driver.history(execution);
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
    const listed = await swf.send(
      new ListClosedWorkflowExecutionsCommand({
        domain,
        startTimeFilter: { oldestDate: new Date(Date.now() - 600_000) },
        executionFilter: { workflowId: execution.workflowId },
      }),
    );
    expect(listed.executionInfos?.map((i) => i.closeStatus)).toEqual(['COMPLETED']);
    expect(queue.deadLetters).toEqual([]);
    expect(streamPump.errors).toEqual([]);
    expect(timerPump.errors).toEqual([]);
  }, 60_000);

  it('runs its Lambda tasks: each function invoked once, its outcome recorded', async () => {
    const { execution, taskList } = await driver.start(parent, { lambdaRole: LAMBDA_ROLE });
    const first = await driver.pollDecision(taskList);
    const calls = userFunctionCalls.length;
    await driver.respond(first.taskToken, [
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
      history = await driver.history(execution);
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
    expect(userFunctionCalls.slice(calls).map((c) => c.name)).toEqual(['upper']);
  }, 30_000);

  it('arms a deadline over 15 minutes away as a one-time schedule, and deletes it when cancelled', async () => {
    // Decision tasks of 2 s: the run's alarm, left at the first task's timeout, fires soon and moves
    // to the timer (the alarm is brought forward at once, and moved back only when it fires).
    const { execution, taskList } = await driver.start(parent, { taskStartToCloseTimeout: '2' });
    const first = await driver.pollDecision(taskList);
    await driver.respond(first.taskToken, [decide.startTimer('long', '1200')]);
    const started = async () =>
      (await driver.history(execution)).find((e) => e.eventType === 'TimerStarted');
    const fireAt = ((await started())?.eventTimestamp?.getTime() ?? 0) + 1_200_000;
    const timerSchedule = () =>
      [...schedules.entries()].find(([, s]) => Math.abs(s.fireAtMs - (fireAt - 60_000)) < 2_000);
    const deadline = Date.now() + 10_000;
    while (timerSchedule() === undefined && Date.now() < deadline) await sleep(50);
    const found = timerSchedule();
    expect(
      found,
      JSON.stringify({
        s: [...schedules.values()],
        calls: scheduleCalls,
        errors: streamPump.errors.map(String),
        failures: streamPump.failures,
        sent: queue.sent.slice(-5),
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
    await driver.signal(execution);
    const next = await driver.pollDecision(taskList);
    await driver.respond(next.taskToken, [decide.cancelTimer('long')]);
    const until = Date.now() + 10_000;
    while (schedules.has(key) && Date.now() < until) await sleep(50);
    expect(schedules.has(key)).toBe(false);
  }, 40_000);
});

describe('through an SQS outage and duplicate fires', () => {
  it('hands the failed stream records back (batchItemFailures) and still fires each deadline once', async () => {
    queue.duplicateOnSend = true;
    try {
      const { execution, taskList } = await driver.start(parent);
      const first = await driver.pollDecision(taskList);
      const failuresBefore = streamPump.failures.length;
      sqsOutageUntil = Date.now() + 3_000;
      await driver.respond(first.taskToken, [
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
      const ready = await decisionWhen(taskList, done, 25_000);
      await driver.respond(ready.taskToken, [decide.complete()]);
      await sleep(2_000);
      const history = await driver.history(execution);
      expect(count(history, 'TimerFired')).toBe(2);
      expect(count(history, 'ActivityTaskTimedOut')).toBe(1);
      expect(count(history, 'WorkflowExecutionCompleted')).toBe(1);
      expect(sqsThrottled).toBeGreaterThan(0);
      expect(streamPump.failures.length).toBeGreaterThan(failuresBefore);
      expect(streamPump.errors).toEqual([]);
      expect(timerPump.errors).toEqual([]);
    } finally {
      queue.duplicateOnSend = false;
    }
  }, 40_000);
});

describe('the API function behind API Gateway', () => {
  const event = (
    target: string | undefined,
    body: string | undefined,
    extra: { base64?: boolean; headers?: Record<string, string>; method?: string } = {},
  ): APIGatewayProxyEventV2WithIAMAuthorizer => ({
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    headers: {
      ...(target === undefined ? {} : { 'x-amz-target': target }),
      ...extra.headers,
    },
    requestContext: {
      accountId: ACCOUNT,
      apiId: 'u7x3',
      domainName: 'u7x3.lambda-url.us-east-1.on.aws',
      domainPrefix: 'u7x3',
      http: {
        method: extra.method ?? 'POST',
        path: '/',
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'x',
      },
      requestId: 'r',
      routeKey: '$default',
      stage: '$default',
      time: '',
      timeEpoch: Date.now(),
      authorizer: iamAuthorizer('Credential=test/'),
    },
    isBase64Encoded: extra.base64 === true,
    ...(body === undefined
      ? {}
      : { body: extra.base64 === true ? Buffer.from(body).toString('base64') : body }),
  });
  const call = async (e: APIGatewayProxyEventV2WithIAMAuthorizer, remainingMs = 28_000) => {
    const r = await apiHandler(e, lambdaContext({ remainingMs, name: API_FUNCTION }));
    if (typeof r === 'string') throw new Error('string result');
    return { ...r, json: r.body === undefined || r.body === '' ? {} : JSON.parse(r.body) };
  };

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

  it("ends a long poll before the function's deadline, and within POLL_MAX_WAIT_MS", async () => {
    const poll = event(
      'SimpleWorkflowService.PollForActivityTask',
      JSON.stringify({ domain, taskList: { name: uid('idle') } }),
    );
    let t = Date.now();
    const full = await call(poll, 28_000);
    const fullMs = Date.now() - t;
    expect(full.statusCode).toBe(200);
    expect(fullMs).toBeGreaterThanOrEqual(1_900);
    expect(fullMs).toBeLessThan(3_500);
    t = Date.now();
    const short = await call(poll, 3_800);
    const shortMs = Date.now() - t;
    expect(short.statusCode).toBe(200);
    expect(short.json.taskToken).toBeUndefined();
    expect(shortMs).toBeLessThan(1_500);
  });

  it('finds a task another container scheduled within POLL_RECHECK_MS (nothing else wakes it)', async () => {
    // Another container of the function: its own dispatcher, whose commits wake none of this one's polls.
    const otherDoc = createDocumentClient({
      endpoint: dynamoEndpoint(),
      region: REGION,
      credentials: localCredentials,
    });
    onTestFinished(() => otherDoc.destroy());
    const other = createApiHandler({
      doc: otherDoc,
      tableName: table.tableName,
      region: REGION,
      accountId: ACCOUNT,
    });
    const list = uid('recheck');
    const waiting = call(
      event(
        'SimpleWorkflowService.PollForDecisionTask',
        JSON.stringify({ domain, taskList: { name: list } }),
      ),
    );
    // Just after the poll's first look: at the default second, its next comes ~950 ms later.
    await sleep(50);
    const started = await other(
      event(
        'SimpleWorkflowService.StartWorkflowExecution',
        JSON.stringify({
          domain,
          workflowId: uid('recheck'),
          workflowType: parent,
          taskList: { name: list },
        }),
      ),
      lambdaContext({ remainingMs: 28_000, name: API_FUNCTION }),
    );
    const at = Date.now();
    expect(typeof started === 'string' ? started : started.statusCode).toBe(200);
    const polled = await waiting;
    // Found at the poll's next look, 150 ms apart (it would be up to a second at the default).
    expect(polled.json.taskToken).toEqual(expect.any(String));
    expect(Date.now() - at).toBeLessThan(500);
  });

  it('saw both plain and base64 bodies, with lower-case header names', () => {
    expect(apiEvents.some((e) => e.isBase64Encoded)).toBe(true);
    expect(apiEvents.some((e) => !e.isBase64Encoded)).toBe(true);
    expect(Object.keys(apiEvents[0]?.headers ?? {})).toContain('x-amz-target');
    void apiHandler;
  });
});

describe('the API function, judging the caller API Gateway authenticated', () => {
  it("lets a readers' session read, refuses it a start, and refuses a caller no policy names", async () => {
    const endpoint = await swf.config.endpoint?.();
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
    const lines = auditLines.map((l) => JSON.parse(l) as Record<string, unknown>);
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
    const checked = answers.filter((answer) => !isEmptyPoll(answer));
    expect(checked.filter((answer) => answer.status === 200).length).toBeGreaterThan(20);
    expect(answersProblems(checked)).toEqual([]);
  });
});
