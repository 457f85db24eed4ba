import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2WithIAMAuthorizer, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiHandler } from '../../functions/shared/api-handler.js';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import type { DynamoDocClient } from '../../lib/adapters/dynamodb/doc-client.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_IDENTITY, LOCAL_REGION } from '../../lib/local/local-service.js';
import { decide, SwfDriver, single } from '../support/decider.js';
import { iamAuthorizer } from '../support/lambda-events.js';
import { dynamoEndpoint, registerDomain, startTestServer } from '../support/local.js';

/**
 * The Lambda handler and the local server are two faces of one dispatcher: the same request, sent as an
 * API Gateway (HTTP API, payload v2) event and as HTTP, gets the same status, content type and body.
 * Both run over the same table on DynamoDB Local.
 */

interface WireRequest {
  /** The X-Amz-Target header; omitted when undefined. */
  readonly target: string | undefined;
  /** The raw body; undefined sends none. */
  readonly body: string | undefined;
}

interface Answer {
  readonly statusCode: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

type Encoding = 'plain' | 'base64';

const POLL_MS = 500;
/** The local server's account: the fake context's ARN carries it, so domain ARNs match. */
const FUNCTION_ARN = `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_IDENTITY.accountId}:function:swf-api`;

let server: Awaited<ReturnType<typeof startTestServer>>;
let doc: DynamoDocClient;
let handler: ReturnType<typeof createApiHandler>;

beforeAll(async () => {
  server = await startTestServer({ polling: { maxWaitMs: POLL_MS } });
  doc = createDocumentClient({
    endpoint: dynamoEndpoint(),
    region: LOCAL_REGION,
    credentials: localCredentials,
  });
  // No accountId: the handler reads it from the invoked function's ARN, as in Lambda without ACCOUNT_ID.
  handler = createApiHandler(
    {
      doc,
      tableName: server.service.tableName,
      region: LOCAL_REGION,
      polling: { maxWaitMs: POLL_MS },
    },
    { timeoutEarlyInMillis: 0, windDownMs: 200 },
  );
});

afterAll(async () => {
  doc.destroy();
  await server.close();
});

const swf = (action: string, input: unknown): WireRequest => ({
  target: `SimpleWorkflowService.${action}`,
  body: JSON.stringify(input),
});

async function viaHttp(request: WireRequest): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.0' };
  if (request.target !== undefined) headers['x-amz-target'] = request.target;
  const response = await fetch(server.service.endpoint, {
    method: 'POST',
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  expect(response.headers.get('x-amzn-requestid')).toBeTruthy();
  return {
    statusCode: response.status,
    contentType: response.headers.get('content-type') ?? undefined,
    body: await response.text(),
  };
}

async function viaLambda(
  request: WireRequest,
  encoding: Encoding,
  call: ReturnType<typeof createApiHandler> = handler,
  context: Context = lambdaContext(),
  front: FrontDoor = 'http-api',
): Promise<Answer> {
  const result = await call(apiGatewayEvent(request, encoding, front), context);
  expect(result.headers?.['x-amzn-requestid']).toBeTruthy();
  expect(result.isBase64Encoded).toBe(false);
  const contentType = result.headers?.['content-type'];
  return {
    statusCode: result.statusCode ?? 200,
    contentType: contentType === undefined ? undefined : String(contentType),
    body: result.body ?? '',
  };
}

/**
 * Sends the request as HTTP, then as plain and base64 events from API Gateway and from a function
 * URL (the two front doors the stack offers): one answer for all five.
 */
async function expectSameAnswer(request: WireRequest): Promise<Answer> {
  const http = await viaHttp(request);
  for (const front of ['http-api', 'function-url'] as const) {
    expect(await viaLambda(request, 'plain', handler, lambdaContext(), front)).toEqual(http);
    expect(await viaLambda(request, 'base64', handler, lambdaContext(), front)).toEqual(http);
  }
  return http;
}

const faultType = (answer: Answer): unknown => {
  const parsed: unknown = JSON.parse(answer.body);
  return typeof parsed === 'object' && parsed !== null && '__type' in parsed
    ? parsed.__type
    : undefined;
};

describe('the Lambda handler and the local server', () => {
  const domain = `lambda-${randomUUID().slice(0, 8)}`;

  it('register domains alike, in the same table', async () => {
    const register = (name: string) =>
      swf('RegisterDomain', { name, workflowExecutionRetentionPeriodInDays: '3' });

    const answers = [
      await viaHttp(register(`${domain}-http`)),
      await viaLambda(register(`${domain}-plain`), 'plain'),
      await viaLambda(register(`${domain}-b64`), 'base64'),
    ];

    for (const answer of answers) {
      expect(answer).toEqual({
        statusCode: 200,
        contentType: 'application/x-amz-json-1.0',
        body: '',
      });
    }
    for (const name of [`${domain}-http`, `${domain}-plain`, `${domain}-b64`]) {
      const described = await expectSameAnswer(swf('DescribeDomain', { name }));
      expect(JSON.parse(described.body)).toMatchObject({
        domainInfo: {
          name,
          status: 'REGISTERED',
          arn: expect.stringContaining(LOCAL_IDENTITY.accountId),
        },
      });
    }
  });

  it('refuse a domain that exists with DomainAlreadyExistsFault', async () => {
    const answer = await expectSameAnswer(
      swf('RegisterDomain', {
        name: `${domain}-http`,
        workflowExecutionRetentionPeriodInDays: '3',
      }),
    );
    expect(answer.statusCode).toBe(400);
    expect(faultType(answer)).toMatch(/DomainAlreadyExistsFault$/);
  });

  it('answer UnknownResourceFault for a domain that does not exist', async () => {
    const answer = await expectSameAnswer(swf('DescribeDomain', { name: `${domain}-missing` }));
    expect(answer.statusCode).toBe(400);
    expect(faultType(answer)).toMatch(/UnknownResourceFault$/);
  });

  it.each([
    [
      'a name over 256 characters',
      { name: 'x'.repeat(257), workflowExecutionRetentionPeriodInDays: '1' },
    ],
    ['a missing required member', { name: `${domain}-no-retention` }],
  ])('answer ValidationException for %s', async (_, input) => {
    const answer = await expectSameAnswer(swf('RegisterDomain', input));
    expect(answer.statusCode).toBe(400);
    expect(faultType(answer)).toMatch(/ValidationException$/);
  });

  it('answer ValidationException for a request with no body', async () => {
    const answer = await expectSameAnswer({
      target: 'SimpleWorkflowService.ListDomains',
      body: undefined,
    });
    expect(faultType(answer)).toMatch(/ValidationException$/);
  });

  it.each([
    ['an unknown action', { target: 'SimpleWorkflowService.FlyToTheMoon', body: '{}' }],
    ['another service', { target: 'AmazonSQS.ListQueues', body: '{}' }],
    ['no X-Amz-Target', { target: undefined, body: '{}' }],
  ])('answer UnknownOperationException for %s', async (_, request) => {
    const answer = await expectSameAnswer(request);
    expect(answer.statusCode).toBe(400);
    expect(faultType(answer)).toMatch(/UnknownOperationException$/);
  });

  it.each([
    ['malformed JSON', '{"name": '],
    ['a value of the wrong type', '{"name": 5, "workflowExecutionRetentionPeriodInDays": "1"}'],
  ])('answer SerializationException for %s', async (_, body) => {
    const answer = await expectSameAnswer({ target: 'SimpleWorkflowService.RegisterDomain', body });
    expect(answer.statusCode).toBe(400);
    expect(faultType(answer)).toMatch(/SerializationException$/);
  });

  it('answer an empty long poll alike', async () => {
    const answer = await expectSameAnswer(
      swf('PollForActivityTask', {
        domain: `${domain}-http`,
        taskList: { name: 'nobody-queues-here' },
      }),
    );
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).not.toHaveProperty('taskToken');
  });
});

describe('the Lambda handler', () => {
  it('reads header names in any case', async () => {
    const request = swf('DescribeDomain', { name: 'no-such-domain' });
    const event = apiGatewayEvent(request, 'plain');
    const shouted = {
      ...event,
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': request.target },
    };

    const result = await handler(shouted, lambdaContext());

    expect(result.statusCode).toBe(400);
    expect(result.body).toContain('UnknownResourceFault');
  });

  it('ends a long poll with an empty task before the Lambda deadline', async () => {
    // Polls may wait a minute here; the deadline signal (200 ms before a 700 ms deadline) ends it.
    const patient = createApiHandler(
      {
        doc,
        tableName: server.service.tableName,
        region: LOCAL_REGION,
        polling: { maxWaitMs: 60_000 },
      },
      { timeoutEarlyInMillis: 0, windDownMs: 200 },
    );
    const poll = swf('PollForDecisionTask', { domain: 'anywhere', taskList: { name: 'idle' } });
    await viaHttp(
      swf('RegisterDomain', { name: 'anywhere', workflowExecutionRetentionPeriodInDays: '1' }),
    );
    const started = Date.now();

    const answer = await viaLambda(poll, 'plain', patient, lambdaContext({ remainingMs: 700 }));

    expect(Date.now() - started).toBeLessThan(3_000);
    expect(answer).toEqual(await viaHttp(poll));
    expect(JSON.parse(answer.body)).toMatchObject({ startedEventId: 0 });
  });

  it('answers a poll with the task its claim started as the deadline drew near (its caller is still waiting)', async () => {
    // The claim's commit is held 1.5 s; the deadline signal fires 500 ms into the poll.
    let holdWritesMs = 0;
    const slow = createDocumentClient({
      endpoint: dynamoEndpoint(),
      region: LOCAL_REGION,
      credentials: localCredentials,
      intercept: async (operation, input, send) => {
        // Only the claim's commit (the run's state): the poll's lease is taken before it.
        const item = (input as { Item?: { pk?: unknown } }).Item;
        const runWrite = String(item?.pk).startsWith('RUN|');
        if (operation === 'PutItem' && runWrite && holdWritesMs > 0)
          await new Promise((resolve) => setTimeout(resolve, holdWritesMs));
        return send();
      },
    });
    const container = createApiHandler(
      { doc: slow, tableName: server.service.tableName, region: LOCAL_REGION },
      { timeoutEarlyInMillis: 0, windDownMs: 3_000 },
    );
    const domain = `deadline-${randomUUID().slice(0, 8)}`;
    const driver = new SwfDriver(server.swf, domain);
    await registerDomain(server.swf, domain);
    await driver.registerTypes({ name: 'wf', version: '1' }, { name: 'act', version: '1' });
    try {
      const { taskList, execution } = await driver.start({ name: 'wf', version: '1' });
      const decision = await driver.pollDecision(taskList);
      await driver.respond(decision.taskToken, [
        decide.scheduleActivity({
          activityType: { name: 'act', version: '1' },
          activityId: 'a1',
          taskList: { name: 'workers' },
        }),
      ]);
      const poll = (identity: string) =>
        viaLambda(
          swf('PollForActivityTask', { domain, taskList: { name: 'workers' }, identity }),
          'plain',
          container,
          lambdaContext({ remainingMs: 3_500 }),
        );
      holdWritesMs = 1_500;
      const first = await poll('w1').finally(() => {
        holdWritesMs = 0;
      });
      single(await driver.history(execution), 'ActivityTaskStarted');
      // Before, it answered an empty task and its container kept the task for a later request.
      expect(JSON.parse(first.body)).toMatchObject({ activityId: 'a1' });
      expect(JSON.parse((await poll('w2')).body).activityId).toBeUndefined();
    } finally {
      slow.destroy();
    }
  });

  it('answers InternalFailure (500, SWF shape) when it cannot be wired, and logs why', async () => {
    const unwired = createApiHandler(
      { doc, tableName: server.service.tableName, region: LOCAL_REGION },
      { timeoutEarlyInMillis: 0, windDownMs: 200 },
    );
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const answer = await viaLambda(
        swf('ListDomains', { registrationStatus: 'REGISTERED' }),
        'plain',
        unwired,
        lambdaContext({ arn: 'not-a-function-arn' }),
      );

      expect(answer.statusCode).toBe(500);
      expect(answer.contentType).toBe('application/x-amz-json-1.0');
      expect(JSON.parse(answer.body)).toEqual({
        __type: 'com.amazon.coral.service#InternalFailure',
        message: 'Internal failure',
      });
      expect(logged).toHaveBeenCalledWith(expect.stringContaining('not-a-function-arn'));
    } finally {
      logged.mockRestore();
    }
  });
});

type FrontDoor = 'http-api' | 'function-url';

/**
 * A payload v2 event as API Gateway's HTTP API sends it after IAM authorization, or as a function
 * URL with IAM authorization does (the same format: another host, route key `$default`).
 */
function apiGatewayEvent(
  request: WireRequest,
  encoding: Encoding,
  front: FrontDoor = 'http-api',
): APIGatewayProxyEventV2WithIAMAuthorizer {
  const viaUrl = front === 'function-url';
  const apiId = viaUrl ? 'u7x3k2lq5yzwvbn4uf5ktzkzdm0twtpl' : 'abc123';
  const domainName = viaUrl
    ? `${apiId}.lambda-url.us-east-1.on.aws`
    : `${apiId}.execute-api.us-east-1.amazonaws.com`;
  const routeKey = viaUrl ? '$default' : 'POST /';
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    host: domainName,
    'user-agent': 'aws-sdk-js/3 ua/2.1 os/linux lang/js md/nodejs#20',
    'x-amz-date': '20250101T000000Z',
    authorization: `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/${viaUrl ? 'lambda' : 'execute-api'}/aws4_request`,
    'content-length': String(Buffer.byteLength(request.body ?? '')),
  };
  if (request.target !== undefined) headers['x-amz-target'] = request.target;
  const event: APIGatewayProxyEventV2WithIAMAuthorizer = {
    version: '2.0',
    routeKey,
    rawPath: '/',
    rawQueryString: '',
    headers,
    requestContext: {
      accountId: LOCAL_IDENTITY.accountId,
      apiId,
      domainName,
      domainPrefix: apiId,
      http: {
        method: 'POST',
        path: '/',
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'aws-sdk-js/3',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: '01/Jan/2025:00:00:00 +0000',
      timeEpoch: Date.now(),
      authorizer: iamAuthorizer(headers.authorization),
    },
    isBase64Encoded: encoding === 'base64',
  };
  if (request.body === undefined) return event;
  const body = encoding === 'base64' ? Buffer.from(request.body).toString('base64') : request.body;
  return { ...event, body };
}

/** A Lambda context whose deadline is `remainingMs` away. */
function lambdaContext(options: { remainingMs?: number; arn?: string } = {}): Context {
  const deadline = Date.now() + (options.remainingMs ?? 30_000);
  const unused = () => undefined;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'swf-api',
    functionVersion: '$LATEST',
    invokedFunctionArn: options.arn ?? FUNCTION_ARN,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/swf-api',
    logStreamName: '2025/01/01/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unused,
    fail: unused,
    succeed: unused,
  };
}
