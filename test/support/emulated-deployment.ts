/**
 * The deployed functions (functions/api.ts, stream.ts, timer.ts, lambda-task.ts, configured by the
 * environment the CDK stack gives them) driven only by the events AWS would send them: HTTP as API
 * Gateway's HTTP API receives it → payload 2.0 events; DynamoDB Local's stream → Lambda stream records,
 * filtered with the synthesized event source mapping's FilterCriteria; an emulated SQS queue and
 * Scheduler; Lambda's asynchronous Invoke of the Lambda-task function.
 *
 * The test file that uses it mocks functions/shared/config.js so that the functions' DynamoDB client
 * reaches DynamoDB Local (vi.mock is hoisted only in a test file).
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
import { type HistoryEvent, PollForDecisionTaskCommand, SWFClient } from '@aws-sdk/client-swf';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { APIGatewayProxyEventV2WithIAMAuthorizer } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { SwfStack } from '../../infra/swf-stack.js';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import {
  EmulatedQueue,
  type EmulatedSchedule,
  parseAt,
  StreamPump,
  TimerPump,
} from './aws-emulator.js';
import { eventTypes, SwfDriver, sleep, uid } from './decider.js';
import { apiEventOf, writeApiAnswer } from './deployed/api-front-door.js';
import { lambdaContext } from './lambda-events.js';
import { dynamoClient, dynamoEndpoint, freshTable, registerParentChildTypes } from './local.js';
import { type RawAnswer, recordAnswers } from './output-shapes.js';

export const ACCOUNT = '000000000000';
export const REGION = 'us-east-1';
export const QUEUE_ARN = `arn:aws:sqs:${REGION}:${ACCOUNT}:SwfStack-OutboxTimerQueue`;
const QUEUE_URL = `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/SwfStack-OutboxTimerQueue`;
export const GROUP = 'SwfStack-Outbox-ScheduleGroup-91EBFE44';
export const SCHEDULER_ROLE = `arn:aws:iam::${ACCOUNT}:role/SwfStack-OutboxSchedulerRole`;
const LAMBDA_TASK_FUNCTION = 'SwfStack-OutboxLambdaTaskHandler';
export const API_FUNCTION = 'SwfStack-ApiHandler';
export const LAMBDA_ROLE = `arn:aws:iam::${ACCOUNT}:role/swf-lambda`;

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

export const domain = 'emulated';
export const parent = { name: 'emu-parent', version: '1' };
export const child = { name: 'emu-child', version: '1' };
export const work = { name: 'emu-work', version: '1' };

type ApiHandler = typeof import('../../functions/api.js').handler;
type LambdaTaskHandler = typeof import('../../functions/lambda-task.js').handler;

/** The emulated AWS around the deployed functions, and what it saw them do. */
export class EmulatedDeployment {
  readonly queue = new EmulatedQueue(2_000, 5);
  readonly schedules = new Map<string, EmulatedSchedule>();
  readonly scheduleCalls: { op: 'create' | 'delete'; name: string; group: string }[] = [];
  readonly userFunctionCalls: { name: string; payload: string }[] = [];
  readonly lambdaTaskEvents: unknown[] = [];
  readonly apiEvents: APIGatewayProxyEventV2WithIAMAuthorizer[] = [];
  /** The audit lines functions/api.ts logged. */
  readonly auditLines: string[] = [];
  /** Until when SendMessage is throttled, and how many times it was. */
  sqsOutageUntil = 0;
  sqsThrottled = 0;
  table!: Awaited<ReturnType<typeof freshTable>>;
  streamPump!: StreamPump;
  timerPump!: TimerPump;
  swf!: SWFClient;
  /** The raw answers the SDK client was given through the API function (test/support/output-shapes). */
  answers: RawAnswer[] = [];
  driver!: SwfDriver;
  apiHandler!: ApiHandler;

  private readonly sqsMock = mockClient(SQSClient);
  private readonly schedulerMock = mockClient(SchedulerClient);
  private readonly lambdaMock = mockClient(LambdaClient);
  private readonly stsMock = mockClient(STSClient);
  private readonly asyncInvocations: Promise<unknown>[] = [];
  private streams: DynamoDBStreamsClient | undefined;
  private server: Server | undefined;
  private base64Next = false;

  async start(): Promise<void> {
    const filters = synthesizedStreamFilters();
    this.table = await freshTable('emu');
    stubFunctionEnvironment(this.table.tableName);
    this.keepAuditLines();
    this.emulateSqs();
    this.emulateScheduler();
    this.stsMock.on(AssumeRoleCommand).resolves({
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
    this.apiHandler = api;
    this.emulateLambda(lambdaTask);
    await this.openFrontDoor();
    this.streams = new DynamoDBStreamsClient({
      endpoint: dynamoEndpoint(),
      region: REGION,
      credentials: localCredentials,
    });
    this.streamPump = new StreamPump({
      dynamo: dynamoClient(),
      streams: this.streams,
      tableName: this.table.tableName,
      filters,
      batchSize: 100,
      handler: stream,
      duplicate: true,
    });
    this.streamPump.start();
    this.timerPump = new TimerPump(this.queue, timer, this.schedules, true);
    this.timerPump.start();
    await registerParentChildTypes(this.swf, domain, {
      parent,
      child,
      work,
      lambdaRole: LAMBDA_ROLE,
    });
  }

  async stop(): Promise<void> {
    await this.streamPump?.stop();
    await this.timerPump?.stop();
    await Promise.allSettled(this.asyncInvocations);
    this.swf?.destroy();
    this.streams?.destroy();
    this.server?.close();
    this.table?.doc.destroy();
    this.table?.client.destroy();
    this.sqsMock.restore();
    this.schedulerMock.restore();
    this.lambdaMock.restore();
    this.stsMock.restore();
    vi.unstubAllEnvs();
  }

  /**
   * functions/api.ts writes one audit line per call to its log (stdout): kept here, for the test
   * that reads them, instead of filling the test's output.
   */
  private keepAuditLines(): void {
    const log = console.log.bind(console);
    vi.spyOn(console, 'log').mockImplementation((line?: unknown, ...rest: unknown[]) => {
      if (typeof line === 'string' && line.startsWith('{"audit":"swf-call"'))
        this.auditLines.push(line);
      else log(line, ...rest);
    });
  }

  private emulateSqs(): void {
    this.sqsMock.on(SendMessageCommand).callsFake((input) => {
      expect(input.QueueUrl).toBe(QUEUE_URL);
      if (Date.now() < this.sqsOutageUntil) {
        this.sqsThrottled++;
        throw Object.assign(new Error('Rate exceeded'), {
          name: 'ThrottlingException',
          $fault: 'client',
          $retryable: { throttling: true },
          $metadata: { httpStatusCode: 400 },
        });
      }
      return { MessageId: this.queue.send(input.MessageBody ?? '', input.DelaySeconds ?? 0) };
    });
  }

  private emulateScheduler(): void {
    this.schedulerMock.on(CreateScheduleCommand).callsFake((input) => {
      const name = input.Name ?? '';
      this.scheduleCalls.push({ op: 'create', name, group: input.GroupName ?? 'default' });
      if (!/^[0-9a-zA-Z-_.]{1,64}$/.test(name)) throw new Error(`bad schedule name ${name}`);
      const key = `${input.GroupName}/${name}`;
      if (this.schedules.has(key))
        throw new ConflictException({ Message: 'exists', message: 'exists', $metadata: {} });
      const fireAtMs = parseAt(input.ScheduleExpression ?? '', input.ScheduleExpressionTimezone);
      if (fireAtMs <= Date.now()) throw new Error('ValidationException: at() in the past');
      this.schedules.set(key, {
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
    this.schedulerMock.on(DeleteScheduleCommand).callsFake((input) => {
      const key = `${input.GroupName}/${input.Name}`;
      this.scheduleCalls.push({
        op: 'delete',
        name: input.Name ?? '',
        group: input.GroupName ?? '',
      });
      if (!this.schedules.delete(key))
        throw new ResourceNotFoundException({
          Message: 'no such schedule',
          message: 'no such schedule',
          $metadata: {},
        });
      return {};
    });
  }

  /** Lambda: the Lambda-task function invoked asynchronously, and the users' functions `upper` and a failing one. */
  private emulateLambda(lambdaTask: LambdaTaskHandler): void {
    this.lambdaMock.on(InvokeCommand).callsFake(async (input) => {
      const payload = Buffer.from(input.Payload ?? new Uint8Array()).toString('utf8');
      if (input.FunctionName === LAMBDA_TASK_FUNCTION) {
        expect(input.InvocationType).toBe('Event');
        const event = JSON.parse(payload);
        this.lambdaTaskEvents.push(event);
        // Lambda queues the event and runs the function later, at least once: here twice at once.
        for (let i = 0; i < 2; i++)
          this.asyncInvocations.push(
            sleep(20).then(() =>
              lambdaTask(
                event,
                lambdaContext({ remainingMs: 900_000, name: LAMBDA_TASK_FUNCTION }),
              ),
            ),
          );
        return { StatusCode: 202 };
      }
      this.userFunctionCalls.push({ name: input.FunctionName ?? '', payload });
      if (input.FunctionName === 'upper')
        return { StatusCode: 200, Payload: Buffer.from(JSON.stringify(payload.toUpperCase())) };
      return {
        StatusCode: 200,
        FunctionError: 'Unhandled',
        Payload: Buffer.from('{"errorMessage":"nope"}'),
      };
    });
  }

  /** The front door: HTTP as API Gateway's HTTP API receives it → a payload 2.0 event. */
  private async openFrontDoor(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.answerHttp(req, Buffer.concat(chunks), res));
    });
    this.server = server;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    this.swf = new SWFClient({
      endpoint: `http://127.0.0.1:${port}`,
      region: REGION,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    this.driver = new SwfDriver(this.swf, domain);
    this.answers = recordAnswers(this.swf);
  }

  /** Calls the API function as API Gateway would, with `remainingMs` of its time left. */
  async callApi(event: APIGatewayProxyEventV2WithIAMAuthorizer, remainingMs = 28_000) {
    const r = await this.apiHandler(event, lambdaContext({ remainingMs, name: API_FUNCTION }));
    if (typeof r === 'string') throw new Error('string result');
    return { ...r, json: r.body === undefined || r.body === '' ? {} : JSON.parse(r.body) };
  }

  /** Every other request's body is base64-encoded, as API Gateway may send it. */
  private answerHttp(req: IncomingMessage, raw: Buffer, res: ServerResponse): void {
    this.base64Next = !this.base64Next;
    const event = apiEventOf(req, raw, this.base64Next);
    this.apiEvents.push(event);
    void this.apiHandler(event, lambdaContext({ remainingMs: 28_000, name: API_FUNCTION })).then(
      (result) => writeApiAnswer(res, result),
      (error: unknown) => {
        res.writeHead(502);
        res.end(String(error));
      },
    );
  }
}

/**
 * A `vi.mock` factory of functions/shared/config.js: the functions' DynamoDB client goes to the
 * file's DynamoDB Local instead of dynamodb.<region>.amazonaws.com.
 */
export async function configOnDynamoDbLocal(
  importOriginal: () => Promise<typeof import('../../functions/shared/config.js')>,
) {
  const original = await importOriginal();
  return {
    ...original,
    functionDocClient: (region: string) =>
      createDocumentClient({
        region,
        endpoint: dynamoEndpoint(),
        credentials: localCredentials,
        requestTimeoutMs: original.FUNCTION_DYNAMO_TIMEOUT_MS,
      }),
  };
}

/** The emulated deployment, started before the file's tests and stopped after them. */
export function emulatedDeployment(): EmulatedDeployment {
  const deployment = new EmulatedDeployment();
  beforeAll(() => deployment.start(), 120_000);
  afterAll(() => deployment.stop());
  return deployment;
}

/** The event source mapping's filters as synthesized (bundling skipped: only the template matters). */
function synthesizedStreamFilters(): Record<string, unknown>[] {
  const template = Template.fromStack(
    new SwfStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'FilterStack'),
  );
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
  const withFilters = mappings.find((m) => m.Properties.FilterCriteria !== undefined);
  const filters = withFilters?.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) =>
    JSON.parse(f.Pattern),
  );
  expect(filters.length).toBeGreaterThan(0);
  return filters;
}

/** The environment the CDK stack gives the functions. */
function stubFunctionEnvironment(tableName: string): void {
  const env: Record<string, string> = {
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_LAMBDA_FUNCTION_NAME: API_FUNCTION,
    TABLE_NAME: tableName,
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
}

/** Polls for a decision task until one comes whose history satisfies `ready`. */
export async function decisionWhen(
  driver: SwfDriver,
  taskList: string,
  ready: (events: HistoryEvent[]) => boolean,
  withinMs = 20_000,
) {
  const deadline = Date.now() + withinMs;
  let last: HistoryEvent[] = [];
  while (Date.now() < deadline) {
    const task = await driver.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList } }),
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
