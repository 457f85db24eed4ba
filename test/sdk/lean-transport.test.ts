/**
 * createSwfClient's lean transport against a stub SWF: it must send what the SDK's own path sends (body,
 * target, a signature the SDK's signer agrees with) and give back what the SDK's own path gives back
 * (types, Dates, faults), while retrying, aborting and reporting calls as documented.
 */
import {
  DescribeWorkflowExecutionCommand,
  ListClosedWorkflowExecutionsCommand,
  ListWorkflowTypesCommand,
  PollForDecisionTaskCommand,
  RespondActivityTaskCompletedCommand,
  StartWorkflowExecutionCommand,
  SWFServiceException,
  UnknownResourceFault,
  WorkflowExecutionAlreadyStartedFault,
} from '@aws-sdk/client-swf';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAbort } from '../../lib/sdk/errors.js';
import {
  createSwfClient,
  isRetryable,
  type SwfCall,
  type SwfClientOptions,
} from '../../lib/sdk/index.js';
import {
  type StubService,
  sdkSignature,
  signatureOf,
  startStubService,
} from '../support/stub-aws-json.js';

let stub: StubService;

beforeAll(async () => {
  stub = await startStubService();
});
afterAll(() => stub.close());
afterEach(() => {
  stub.received.length = 0;
  stub.answers.length = 0;
});

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'secret',
  sessionToken: 'tok/en=',
};
const client = (options: SwfClientOptions = {}) =>
  createSwfClient({
    endpoint: stub.endpoint,
    region: 'eu-west-1',
    credentials,
    maxAttempts: 1,
    ...options,
  });
const fault = (type: string, message: string) => ({
  __type: `com.amazonaws.swf.base.model#${type}`,
  message,
});
const withoutMetadata = ({ $metadata, ...rest }: { $metadata: unknown }) => rest;

/** What each path gives back for the same answer: the lean transport's and the SDK's own. */
async function bothPaths<T extends { $metadata: unknown }>(
  answer: unknown,
  send: (c: ReturnType<typeof createSwfClient>) => Promise<T>,
) {
  const outputs: T[] = [];
  for (const leanTransport of [true, false]) {
    const c = client({ leanTransport });
    stub.answers.push({ status: 200, body: answer });
    outputs.push(await send(c));
    c.destroy();
  }
  const [json, sdk] = outputs as [T, T];
  return { json, sdk };
}

describe('createSwfClient lean transport', () => {
  it('sends the body and target the SDK sends, signed as the SDK signs, to the endpoint path', async () => {
    const command = () =>
      new ListClosedWorkflowExecutionsCommand({
        domain: 'orders',
        startTimeFilter: {
          oldestDate: new Date(1_700_000_000_123),
          latestDate: new Date(1_800_000_000_000),
        },
        closeStatusFilter: { status: 'COMPLETED' },
        maximumPageSize: 10,
      });
    await bothPaths({ executionInfos: [] }, (c) => c.send(command()));
    const [json, sdk] = stub.received as [(typeof stub.received)[0], (typeof stub.received)[0]];
    expect(json.body).toEqual(sdk.body);
    // The SDK's path adds its own headers (an invocation id, its user agent); this one goes without.
    expect(json.headers['amz-sdk-invocation-id']).toBeUndefined();
    expect(sdk.headers['amz-sdk-invocation-id']).toBeDefined();
    expect(json.body.startTimeFilter).toEqual({
      oldestDate: 1_700_000_000.123,
      latestDate: 1_800_000_000,
    });
    expect(json.headers['x-amz-target']).toBe('SimpleWorkflowService.ListClosedWorkflowExecutions');
    expect(json.headers['content-type']).toBe(sdk.headers['content-type']);

    stub.received.length = 0;
    const gateway = client({ endpoint: `${stub.endpoint}/prod`, signingName: 'execute-api' });
    await gateway.send(command());
    gateway.destroy();
    const [request] = stub.received as [(typeof stub.received)[0]];
    expect(request.path).toBe('/prod');
    expect(request.headers['x-amz-security-token']).toBe('tok/en=');
    expect(request.headers.authorization).toMatch(/\/eu-west-1\/execute-api\/aws4_request,/);
    expect(signatureOf(request.headers.authorization)).toBe(
      await sdkSignature(request, { credentials, region: 'eu-west-1', service: 'execute-api' }),
    );
  });

  it('reads every answer as the SDK does: timestamps as Dates, everything else as sent', async () => {
    const decisionTask = {
      taskToken: 'tok',
      startedEventId: 3,
      workflowExecution: { workflowId: 'w', runId: 'r' },
      workflowType: { name: 'flow', version: '1' },
      previousStartedEventId: 0,
      events: [
        {
          eventId: 1,
          eventTimestamp: 1_764_000_000.5,
          eventType: 'WorkflowExecutionStarted',
          workflowExecutionStartedEventAttributes: {
            input: '{"eventTimestamp": 1}',
            childPolicy: 'TERMINATE',
            taskList: { name: 'tl' },
            workflowType: { name: 'flow', version: '1' },
            tagList: ['a'],
          },
        },
        {
          eventId: 2,
          eventTimestamp: 1_764_000_001,
          eventType: 'DecisionTaskScheduled',
          decisionTaskScheduledEventAttributes: {
            taskList: { name: 'tl' },
            startToCloseTimeout: '30',
          },
        },
      ],
    };
    const poll = await bothPaths(decisionTask, (c) =>
      c.send(new PollForDecisionTaskCommand({ domain: 'd', taskList: { name: 'tl' } })),
    );
    expect(poll.json.events?.[0]?.eventTimestamp).toEqual(new Date(1_764_000_000_500));
    expect(withoutMetadata(poll.json)).toEqual(withoutMetadata(poll.sdk));

    const info = {
      execution: { workflowId: 'w', runId: 'r' },
      workflowType: { name: 'f', version: '1' },
      startTimestamp: 1_764_000_000,
      closeTimestamp: 1_764_000_100.25,
      executionStatus: 'CLOSED',
      closeStatus: 'COMPLETED',
      cancelRequested: false,
    };
    const describe = await bothPaths(
      {
        executionInfo: info,
        executionConfiguration: {
          taskStartToCloseTimeout: '30',
          executionStartToCloseTimeout: '60',
          taskList: { name: 'tl' },
          childPolicy: 'TERMINATE',
        },
        openCounts: {
          openActivityTasks: 0,
          openDecisionTasks: 0,
          openTimers: 0,
          openChildWorkflowExecutions: 0,
          openLambdaFunctions: 0,
        },
        latestActivityTaskTimestamp: 1_764_000_050,
      },
      (c) =>
        c.send(
          new DescribeWorkflowExecutionCommand({
            domain: 'd',
            execution: { workflowId: 'w', runId: 'r' },
          }),
        ),
    );
    expect(describe.json.latestActivityTaskTimestamp).toEqual(new Date(1_764_000_050_000));
    expect(withoutMetadata(describe.json)).toEqual(withoutMetadata(describe.sdk));

    const list = await bothPaths({ executionInfos: [info], nextPageToken: 'p' }, (c) =>
      c.send(
        new ListClosedWorkflowExecutionsCommand({
          domain: 'd',
          startTimeFilter: { oldestDate: new Date(0) },
        }),
      ),
    );
    expect(withoutMetadata(list.json)).toEqual(withoutMetadata(list.sdk));

    const types = await bothPaths(
      {
        typeInfos: [
          {
            workflowType: { name: 'f', version: '1' },
            status: 'DEPRECATED',
            creationDate: 1_700_000_000,
            deprecationDate: 1_700_000_001,
          },
        ],
      },
      (c) =>
        c.send(new ListWorkflowTypesCommand({ domain: 'd', registrationStatus: 'DEPRECATED' })),
    );
    expect(types.json.typeInfos?.[0]?.deprecationDate).toEqual(new Date(1_700_000_001_000));
    expect(withoutMetadata(types.json)).toEqual(withoutMetadata(types.sdk));

    const empty = await bothPaths({}, (c) =>
      c.send(new RespondActivityTaskCompletedCommand({ taskToken: 't', result: 'r' })),
    );
    expect(empty.json.$metadata).toMatchObject({
      httpStatusCode: 200,
      attempts: 1,
      requestId: expect.any(String),
    });
    expect(withoutMetadata(empty.json)).toEqual(withoutMetadata(empty.sdk));
  });

  it('throws the faults the SDK throws: its classes, names, messages and metadata', async () => {
    const thrown: unknown[] = [];
    for (const leanTransport of [true, false]) {
      const c = client({ leanTransport });
      for (const answer of [
        fault('UnknownResourceFault', 'Unknown execution: w'),
        fault('WorkflowExecutionAlreadyStartedFault', 'Already started'),
        fault('ValidationException', '1 validation error detected'),
      ]) {
        stub.answers.push({ status: 400, body: answer });
        thrown.push(
          await c
            .send(
              new StartWorkflowExecutionCommand({
                domain: 'd',
                workflowId: 'w',
                workflowType: { name: 'f', version: '1' },
              }),
            )
            .catch((error: unknown) => error),
        );
      }
      c.destroy();
    }
    const [unknown, started, invalid, ...sdk] = thrown;
    expect(unknown).toBeInstanceOf(UnknownResourceFault);
    expect(started).toBeInstanceOf(WorkflowExecutionAlreadyStartedFault);
    expect(invalid).toBeInstanceOf(SWFServiceException);
    const fields = (e: unknown) => {
      const { name, message, $fault } = e as SWFServiceException;
      return {
        name,
        message,
        $fault,
        httpStatusCode: (e as SWFServiceException).$metadata.httpStatusCode,
      };
    };
    expect([unknown, started, invalid].map(fields)).toEqual(sdk.map(fields));
    expect(fields(invalid)).toEqual({
      name: 'ValidationException',
      message: '1 validation error detected',
      $fault: 'client',
      httpStatusCode: 400,
    });
    expect((unknown as UnknownResourceFault).$metadata.requestId).toMatch(/^req-/);
  });

  it('retries throttling and 5xx answers up to its attempts; throttling it gave up on stays retryable', async () => {
    const c = client({ maxAttempts: 3 });
    stub.answers.push({ status: 503, body: fault('ServiceUnavailable', 'busy') });
    const answered = await c.send(new RespondActivityTaskCompletedCommand({ taskToken: 't' }));
    expect(answered.$metadata.attempts).toBe(2);
    expect(stub.received).toHaveLength(2);

    stub.received.length = 0;
    for (let i = 0; i < 3; i++)
      stub.answers.push({ status: 400, body: fault('ThrottlingException', `slow ${i}`) });
    const error = await c
      .send(new RespondActivityTaskCompletedCommand({ taskToken: 't' }))
      .catch((e: unknown) => e);
    expect(stub.received).toHaveLength(3);
    expect(error).toMatchObject({
      name: 'ThrottlingException',
      message: 'slow 2',
      $metadata: { attempts: 3 },
    });
    expect(isRetryable(error)).toBe(true);

    stub.received.length = 0;
    stub.answers.push({ status: 400, body: fault('UnknownResourceFault', 'gone') });
    await expect(
      c.send(new RespondActivityTaskCompletedCommand({ taskToken: 't' })),
    ).rejects.toBeInstanceOf(UnknownResourceFault);
    expect(stub.received).toHaveLength(1); // a client fault is not retried
    c.destroy();
  });

  it('stops a call when its abort signal fires, with an AbortError, and never retries it', async () => {
    const c = client({ maxAttempts: 3 });
    stub.answers.push({ status: 200, body: { taskToken: 'late' }, delayMs: 3_000 });
    const polls = new AbortController();
    const started = Date.now();
    const poll = c.send(new PollForDecisionTaskCommand({ domain: 'd', taskList: { name: 'tl' } }), {
      abortSignal: polls.signal,
    });
    setTimeout(() => polls.abort(new Error('worker shutting down')), 50);
    const error = await poll.catch((e: unknown) => e);
    expect(isAbort(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(stub.received).toHaveLength(1);
    c.destroy();
  });

  it("stops twenty calls sharing one signal, as a worker's pollers do, without a listener warning", async () => {
    const c = client({ maxAttempts: 1 });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const polls = new AbortController();
    for (let i = 0; i < 20; i++) stub.answers.push({ status: 200, body: {}, delayMs: 3_000 });
    const calls = Array.from({ length: 20 }, () =>
      c
        .send(new PollForDecisionTaskCommand({ domain: 'd', taskList: { name: 'tl' } }), {
          abortSignal: polls.signal,
        })
        .catch((e: unknown) => e),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    polls.abort();
    const errors = await Promise.all(calls);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(errors.every(isAbort)).toBe(true);
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    c.destroy();
  });

  it('tells its observer of every call it made, answered or not', async () => {
    const calls: SwfCall[] = [];
    const c = client({ observe: (call) => calls.push(call) });
    stub.answers.push({ status: 200, body: { taskToken: 'tok', events: [] } });
    stub.answers.push({ status: 400, body: fault('UnknownResourceFault', 'gone') });
    await c.send(new PollForDecisionTaskCommand({ domain: 'd', taskList: { name: 'tl' } }));
    await c.send(new RespondActivityTaskCompletedCommand({ taskToken: 'x' })).catch(() => {});
    c.destroy();
    expect(calls.map((call) => call.action)).toEqual([
      'PollForDecisionTask',
      'RespondActivityTaskCompleted',
    ]);
    expect(calls[0]?.output?.taskToken).toBe('tok');
    expect(calls[1]?.input).toEqual({ taskToken: 'x' });
    expect(calls[1]?.error).toBeInstanceOf(UnknownResourceFault);
    expect(calls.every((call) => call.durationMs >= 0)).toBe(true);
  });

  it('answers the call as it went when its observer throws (a poll keeps its task)', async () => {
    const c = client({
      observe: () => {
        throw new Error('metrics: bad label');
      },
    });
    stub.answers.push({ status: 200, body: { taskToken: 'tok', events: [] } });
    const task = await c.send(
      new PollForDecisionTaskCommand({ domain: 'd', taskList: { name: 'tl' } }),
    );
    c.destroy();
    expect(task.taskToken).toBe('tok');
  });

  it("goes the SDK's own way for middleware added to the client and for callback-style calls", async () => {
    const c = client();
    const seen: string[] = [];
    c.middlewareStack.add(
      (next, context) => async (args) => {
        seen.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'mine' },
    );
    stub.answers.push({
      status: 200,
      body: {
        taskToken: 'tok',
        events: [{ eventId: 1, eventTimestamp: 1, eventType: 'WorkflowExecutionStarted' }],
      },
    });
    const task = await c.send(
      new PollForDecisionTaskCommand({ domain: 'd', taskList: { name: 'tl' } }),
    );
    expect(seen).toEqual(['PollForDecisionTaskCommand']);
    expect(task.events?.[0]?.eventTimestamp).toEqual(new Date(1_000));
    // The SDK's path sends its own headers (user agent, invocation id): the lean transport sends none.
    expect(stub.received[0]?.headers['amz-sdk-invocation-id']).toBeDefined();

    const plain = client();
    stub.answers.push({ status: 200, body: {} });
    const viaCallback = await new Promise((resolve, reject) =>
      plain.send(new RespondActivityTaskCompletedCommand({ taskToken: 't' }), (error, output) =>
        error ? reject(error) : resolve(output),
      ),
    );
    expect(viaCallback).toMatchObject({ $metadata: { httpStatusCode: 200 } });
    expect(stub.received[1]?.headers['amz-sdk-invocation-id']).toBeDefined();
    c.destroy();
    plain.destroy();
  });
});
