/**
 * The SDK's Lambda handlers of push task lists against a stub SWF: a pushed task (the poll's answer in
 * SWF's JSON) is run or decided as a polled one would be, and answered through the API.
 */
import { InvokeCommand, type InvokeCommandOutput, LambdaClient } from '@aws-sdk/client-lambda';
import { RespondActivityTaskCompletedCommand, UnknownResourceFault } from '@aws-sdk/client-swf';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ActivityCancelledError,
  type ActivityContext,
  ActivityFailure,
  activityTaskHandler,
  createSwfClient,
  decide,
  decisionTaskHandler,
  type PushedTaskEvent,
  RESULT_NOT_SERIALIZABLE,
  WORKER_SHUTDOWN,
  type WorkflowState,
} from '../../lib/sdk/index.js';
import { lambdaContext } from '../support/lambda-events.js';
import { type Received, type StubService, startStubService } from '../support/stub-aws-json.js';
import { recordingLogger } from './support.js';

let stub: StubService;

beforeAll(async () => {
  stub = await startStubService();
});
afterAll(() => stub.close());
afterEach(() => {
  stub.received.length = 0;
  stub.answers.length = 0;
  vi.unstubAllEnvs();
});

const client = () =>
  createSwfClient({
    endpoint: stub.endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });

/** A Lambda function's result as Invoke returns it (the SDK's blob is a Uint8Array underneath). */
const payloadOf = (result: object) =>
  new TextEncoder().encode(JSON.stringify(result)) as NonNullable<InvokeCommandOutput['Payload']>;

/** The calls the stub received, as `Action body`. */
const calls = () =>
  stub.received.map((r: Received) => ({
    action: String(r.headers['x-amz-target']).replace('SimpleWorkflowService.', ''),
    body: r.body,
  }));

const activityEvent = (task: Record<string, unknown> = {}): PushedTaskEvent => ({
  source: 'swf.pushed-task',
  kind: 'activity',
  domain: 'orders',
  taskList: 'resize-fn',
  task: {
    taskToken: 'tok-1',
    activityId: 'a1',
    activityType: { name: 'resize', version: '1' },
    workflowExecution: { workflowId: 'w1', runId: 'r1' },
    startedEventId: 6,
    input: '{"n":2}',
    ...task,
  },
});

/** An activity that waits for its signal, then throws its reason (reporting the cancellation). */
const waitsForSignal = (seen: { ctx?: ActivityContext; abortedAtStart?: boolean }) => {
  return (_input: string | undefined, ctx: ActivityContext) =>
    new Promise((_resolve, reject) => {
      seen.ctx = ctx;
      seen.abortedAtStart = ctx.signal.aborted;
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
    });
};

describe('activityTaskHandler', () => {
  it('runs a pushed activity with its input and ids, and reports it completed', async () => {
    let seen: { input: string | undefined; ctx: ActivityContext } | undefined;
    const ends: unknown[] = [];
    const handler = activityTaskHandler({
      client: client(),
      logger: recordingLogger(),
      onTaskEnd: (end) => ends.push(end),
      activities: {
        resize: (input, ctx) => {
          seen = { input, ctx };
          return { doubled: 4 };
        },
      },
    });

    const end = await handler(activityEvent(), lambdaContext());

    expect(seen?.input).toBe('{"n":2}');
    expect(seen?.ctx).toMatchObject({
      taskToken: 'tok-1',
      activityId: 'a1',
      activityType: { name: 'resize', version: '1' },
      workflowExecution: { workflowId: 'w1', runId: 'r1' },
      startedEventId: 6,
      input: '{"n":2}',
    });
    expect(end).toMatchObject({ outcome: 'completed', reported: 'sent', activityId: 'a1' });
    expect(ends).toEqual([end]);
    expect(calls()).toEqual([
      {
        action: 'RespondActivityTaskCompleted',
        body: { taskToken: 'tok-1', result: '{"doubled":4}' },
      },
    ]);
  });

  it('reports a failing activity as failed and resolves rather than throwing', async () => {
    const handler = activityTaskHandler({
      client: client(),
      logger: recordingLogger(),
      activities: {
        resize: () => {
          throw new ActivityFailure('too big', 'max 10 MB');
        },
      },
    });

    const end = await handler(activityEvent());

    expect(end).toMatchObject({ outcome: 'failed', reported: 'sent' });
    expect(calls()).toEqual([
      {
        action: 'RespondActivityTaskFailed',
        body: { taskToken: 'tok-1', reason: 'too big', details: 'max 10 MB' },
      },
    ]);
  });

  it('fails a task whose type has no activity, even a name every object inherits', async () => {
    const handler = activityTaskHandler({
      client: client(),
      logger: recordingLogger(),
      activities: { resize: () => 'resized' },
    });

    const end = await handler(
      activityEvent({ activityType: { name: 'constructor', version: '1' } }),
    );

    expect(end).toMatchObject({ outcome: 'failed', reported: 'sent' });
    expect(calls()).toEqual([
      {
        action: 'RespondActivityTaskFailed',
        body: { taskToken: 'tok-1', reason: 'unknown activity type constructor' },
      },
    ]);
  });

  it('fails a task whose result has no JSON, and a hook that throws fails nothing', async () => {
    const logger = recordingLogger();
    const handler = activityTaskHandler({
      client: client(),
      logger,
      onTaskEnd: () => {
        throw new Error('metrics sink down');
      },
      activities: { resize: () => ({ count: 10n }) },
    });

    const end = await handler(activityEvent());

    expect(end).toMatchObject({ outcome: 'failed', reported: 'sent' });
    expect(calls()).toMatchObject([
      {
        action: 'RespondActivityTaskFailed',
        body: { reason: RESULT_NOT_SERIALIZABLE, details: expect.stringMatching(/BigInt/) },
      },
    ]);
    expect(logger.lines.map((l) => l.message)).toContain('onTaskEnd threw');
  });

  it('fires ctx.signal when a heartbeat answers cancelRequested and reports it canceled', async () => {
    stub.answers.push({ status: 200, body: { cancelRequested: true } });
    const seen: { ctx?: ActivityContext } = {};
    const handler = activityTaskHandler({
      client: client(),
      logger: recordingLogger(),
      heartbeatIntervalMs: 20,
      activities: { resize: waitsForSignal(seen) },
    });

    const end = await handler(activityEvent(), lambdaContext());

    expect(seen.ctx?.cancelReason).toBe('cancelRequested');
    // docs/sdk.md: the signal's reason is an ActivityCancelledError of that reason (throwIfAborted throws it)
    expect(seen.ctx?.signal.reason).toBeInstanceOf(ActivityCancelledError);
    expect(seen.ctx?.signal.reason).toMatchObject({ reason: 'cancelRequested' });
    expect(() => seen.ctx?.signal.throwIfAborted()).toThrow(ActivityCancelledError);
    expect(seen.ctx?.shuttingDown.aborted).toBe(false);
    expect(end).toMatchObject({ outcome: 'canceled', cancelReason: 'cancelRequested' });
    expect(calls().map((c) => c.action)).toEqual([
      'RecordActivityTaskHeartbeat',
      'RespondActivityTaskCanceled',
    ]);
    expect(calls()[1]?.body).toMatchObject({ taskToken: 'tok-1' });
  });

  it('shuts the activity down at once when less than cancelGraceMs + 2 s remain', async () => {
    const seen: { ctx?: ActivityContext; abortedAtStart?: boolean } = {};
    const logger = recordingLogger();
    const handler = activityTaskHandler({
      client: client(),
      logger,
      cancelGraceMs: 500,
      activities: { resize: waitsForSignal(seen) },
    });

    const end = await handler(activityEvent(), lambdaContext({ remainingMs: 2_400 }));

    // the first warning says why, and what to do (Lambda's default timeout is 3 s)
    const [warning] = logger.warnings();
    expect(warning?.message).toMatch(
      /^the function has \d+ ms left, no more than cancelGraceMs \+ 2 s \(2500 ms\).*timeout above/,
    );
    expect(Number(/has (\d+) ms/.exec(warning?.message ?? '')?.[1])).toBeLessThanOrEqual(2_400);
    expect(seen.ctx?.cancelReason).toBe('shutdown');
    expect(seen.ctx?.shuttingDown.aborted).toBe(true);
    expect(end).toMatchObject({ outcome: 'failed', cancelReason: 'shutdown', reported: 'sent' });
    expect(calls()).toMatchObject([
      { action: 'RespondActivityTaskFailed', body: { reason: WORKER_SHUTDOWN } },
    ]);
  });

  it('shuts the activity down when the remaining time falls to cancelGraceMs + 2 s', async () => {
    const seen: { ctx?: ActivityContext; abortedAtStart?: boolean } = {};
    const logger = recordingLogger();
    const handler = activityTaskHandler({
      client: client(),
      logger,
      cancelGraceMs: 50,
      activities: { resize: waitsForSignal(seen) },
    });
    const started = Date.now();

    const end = await handler(activityEvent(), lambdaContext({ remainingMs: 2_250 }));

    expect(logger.warnings().map((w) => w.message)).toEqual([
      'the function is about to time out: cancelling the activity',
    ]);
    expect(seen.abortedAtStart).toBe(false);
    expect((end.signalledAt ?? 0) - started).toBeGreaterThanOrEqual(150);
    expect(end).toMatchObject({ outcome: 'failed', cancelReason: 'shutdown' });
  });

  it('rejects an event that is not a pushed activity task', async () => {
    const handler = activityTaskHandler({ client: client(), activities: {} });
    const event = activityEvent();

    await expect(handler({ ...event, source: 'aws.events' } as never)).rejects.toThrow(
      /not a pushed activity task: source aws\.events/,
    );
    await expect(handler({ ...event, kind: 'decision' })).rejects.toThrow(
      /not a pushed activity task: kind decision/,
    );
    await expect(handler(activityEvent({ taskToken: undefined }))).rejects.toThrow(
      /not a pushed activity task: its task has no taskToken/,
    );
    await expect(handler({ hello: 'world' } as never)).rejects.toThrow(/not a pushed activity/);
    expect(stub.received).toEqual([]);
  });
});

const wireEvent = (eventId: number, eventType: string, attributes: Record<string, unknown>) => ({
  eventId,
  eventTimestamp: 1_764_000_000 + eventId + 0.5,
  eventType,
  ...attributes,
});

const decisionEvent = (task: Record<string, unknown> = {}): PushedTaskEvent => ({
  source: 'swf.pushed-task',
  kind: 'decision',
  domain: 'orders',
  taskList: 'decider-fn',
  task: {
    taskToken: 'dtok',
    startedEventId: 5,
    previousStartedEventId: 0,
    workflowExecution: { workflowId: 'w1', runId: 'r1' },
    workflowType: { name: 'flow', version: '1' },
    events: [
      wireEvent(1, 'WorkflowExecutionStarted', {
        workflowExecutionStartedEventAttributes: {
          input: 'in',
          childPolicy: 'TERMINATE',
          taskList: { name: 'decider-fn' },
          workflowType: { name: 'flow', version: '1' },
        },
      }),
      wireEvent(2, 'DecisionTaskScheduled', {
        decisionTaskScheduledEventAttributes: { taskList: { name: 'decider-fn' } },
      }),
    ],
    ...task,
  },
});

const secondPage = {
  events: [
    wireEvent(3, 'DecisionTaskStarted', {
      decisionTaskStartedEventAttributes: { scheduledEventId: 2, identity: 'decider-fn' },
    }),
  ],
};

describe('decisionTaskHandler', () => {
  it('fetches every page, replays them with Date timestamps and sends the decisions', async () => {
    stub.answers.push({ status: 200, body: secondPage });
    let state: WorkflowState | undefined;
    const handler = decisionTaskHandler({
      client: client(),
      logger: recordingLogger(),
      decider: {
        flow: (s) => {
          state = s;
          return [decide.completeWorkflowExecution(`done ${s.input}`)];
        },
      },
    });

    await handler(decisionEvent({ nextPageToken: 'page-2' }), lambdaContext());

    const [page, respond] = calls();
    expect(page?.action).toBe('PollForDecisionTask');
    expect(page?.body).toMatchObject({
      domain: 'orders',
      taskList: { name: 'decider-fn' },
      nextPageToken: 'page-2',
    });
    expect(state?.events.map((e) => e.eventId)).toEqual([1, 2, 3]);
    expect(state?.events.map((e) => e.eventTimestamp)).toEqual([
      new Date(1_764_000_001_500),
      new Date(1_764_000_002_500),
      new Date(1_764_000_003_500),
    ]);
    expect(state).toMatchObject({ taskToken: 'dtok', input: 'in', startedEventId: 5 });
    expect(respond).toEqual({
      action: 'RespondDecisionTaskCompleted',
      body: {
        taskToken: 'dtok',
        decisions: [
          {
            decisionType: 'CompleteWorkflowExecution',
            completeWorkflowExecutionDecisionAttributes: { result: 'done in' },
          },
        ],
      },
    });
    expect(calls()).toHaveLength(2);
  });

  it('logs a decider error and leaves the task to time out, without throwing', async () => {
    const logger = recordingLogger();
    const handler = decisionTaskHandler({
      client: client(),
      logger,
      decider: () => {
        throw new Error('bug in decider');
      },
    });

    await handler(decisionEvent());

    expect(calls()).toEqual([]);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'decider failed; the decision task will time out',
      }),
    );
  });

  it('warns when the decision task is gone by the time its answer comes (a decider slower than its timeout)', async () => {
    stub.answers.push({
      status: 400,
      body: {
        __type: 'com.amazonaws.swf.base.model#UnknownResourceFault',
        message: 'Unknown decision task, scheduledEventId = 2',
      },
    });
    const logger = recordingLogger();
    const handler = decisionTaskHandler({
      client: client(),
      logger,
      decider: { flow: () => [decide.completeWorkflowExecution()] },
    });

    await handler(decisionEvent());

    expect(calls().map((c) => c.action)).toEqual(['RespondDecisionTaskCompleted']);
    expect(logger.warnings()).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(
          /^the decision task was gone when its answer came: it timed out/,
        ),
      }),
    ]);
  });

  it('decides nothing for a workflow type it has no decider for, even a name every object inherits', async () => {
    const logger = recordingLogger();
    const handler = decisionTaskHandler({
      client: client(),
      logger,
      decider: { flow: () => [decide.completeWorkflowExecution()] },
    });

    await handler(decisionEvent({ workflowType: { name: 'toString', version: '1' } }));

    expect(calls()).toEqual([]);
    const failed = logger.lines.find((l) => l.message.startsWith('decider failed'));
    expect(JSON.stringify(failed)).toContain('no decider for workflow type toString');
  });

  it('reads a history page again after a moment of 5xx answers, and decides', async () => {
    stub.answers.push(
      { status: 503, body: { __type: 'ServiceUnavailable', message: 'busy' } },
      { status: 503, body: { __type: 'ServiceUnavailable', message: 'busy' } },
      { status: 503, body: { __type: 'ServiceUnavailable', message: 'busy' } },
      { status: 503, body: { __type: 'ServiceUnavailable', message: 'busy' } },
      { status: 200, body: { events: [] } },
    );
    const handler = decisionTaskHandler({
      client: client(),
      logger: recordingLogger(),
      decider: { flow: () => [decide.completeWorkflowExecution('done')] },
    });

    await handler(decisionEvent({ nextPageToken: 'page-2' }));

    const actions = calls().map((c) => c.action);
    expect(actions.filter((a) => a === 'PollForDecisionTask')).toHaveLength(5);
    expect(actions.at(-1)).toBe('RespondDecisionTaskCompleted');
  });

  it('stops waiting for a decider that never answers once the task has timed out, and says so', async () => {
    const logger = recordingLogger();
    const handler = decisionTaskHandler({
      client: client(),
      logger,
      decider: () => new Promise(() => {}),
    });
    const events = [
      wireEvent(1, 'WorkflowExecutionStarted', {
        workflowExecutionStartedEventAttributes: {
          childPolicy: 'TERMINATE',
          taskList: { name: 'decider-fn' },
          workflowType: { name: 'flow', version: '1' },
        },
      }),
      wireEvent(2, 'DecisionTaskScheduled', {
        decisionTaskScheduledEventAttributes: {
          taskList: { name: 'decider-fn' },
          startToCloseTimeout: '0',
        },
      }),
    ];

    await handler(decisionEvent({ events }));

    expect(calls()).toEqual([]);
    expect(logger.lines.map((l) => l.message)).toContain(
      "the decider did not answer within the task's start-to-close timeout",
    );
  });

  it('rejects an event that is not a pushed decision task', async () => {
    const handler = decisionTaskHandler({ client: client(), decider: () => [] });

    await expect(handler(activityEvent())).rejects.toThrow(
      /not a pushed decision task: kind activity/,
    );
    await expect(handler(decisionEvent({ taskToken: '' }))).rejects.toThrow(/no taskToken/);
    await expect(handler({ ...decisionEvent(), task: 'x' } as never)).rejects.toThrow(/no task/);
    expect(stub.received).toEqual([]);
  });
});

describe('the handlers’ default client', () => {
  it('refuses, clearly, a task that names no API function when SWF_ENDPOINT is unset', async () => {
    vi.stubEnv('SWF_ENDPOINT', undefined);
    const activities = activityTaskHandler({ activities: {} });
    const decisions = decisionTaskHandler({ decider: () => [] });

    const unset = /names no API function and SWF_ENDPOINT is not set/;
    await expect(activities(activityEvent())).rejects.toThrow(unset);
    await expect(decisions(decisionEvent())).rejects.toThrow(unset);
  });

  it('calls the API function the event names with Lambda Invoke, not $SWF_ENDPOINT', async () => {
    vi.stubEnv('SWF_ENDPOINT', stub.endpoint);
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    const lambda = mockClient(LambdaClient);
    try {
      const answer = { statusCode: 200, headers: { 'x-amzn-requestid': 'r-1' }, body: '{}' };
      lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payloadOf(answer) });
      const handler = activityTaskHandler({
        activities: { resize: () => 'ok' },
        clientOptions: { credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' } },
      });

      await handler({ ...activityEvent(), api: { functionName: 'swf-api' } });

      expect(stub.received).toEqual([]);
      const [invoke] = lambda.commandCalls(InvokeCommand).map((c) => c.args[0].input);
      expect(invoke?.FunctionName).toBe('swf-api');
      expect(invoke?.InvocationType).toBeUndefined(); // RequestResponse: the answer is the result
      const event = JSON.parse(new TextDecoder().decode(invoke?.Payload as Uint8Array));
      expect(event).toMatchObject({
        version: '2.0',
        requestContext: { http: { method: 'POST' } },
        headers: { 'x-amz-target': 'SimpleWorkflowService.RespondActivityTaskCompleted' },
        isBase64Encoded: false,
      });
      expect(JSON.parse(event.body)).toEqual({ taskToken: 'tok-1', result: 'ok' });
    } finally {
      lambda.restore();
    }
  });

  it("reads the API function's faults as SWF's, and retries a function that failed around them", async () => {
    const lambda = mockClient(LambdaClient);
    try {
      const fault = {
        statusCode: 400,
        headers: {},
        body: JSON.stringify({
          __type: 'com.amazonaws.swf.base.model#UnknownResourceFault',
          message: 'Unknown activity',
        }),
      };
      lambda
        .on(InvokeCommand)
        .resolvesOnce({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payloadOf({}) })
        .resolves({ StatusCode: 200, Payload: payloadOf(fault) });
      const swf = createSwfClient({
        apiFunction: { functionName: 'swf-api' },
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
      });
      const failure = await swf
        .send(new RespondActivityTaskCompletedCommand({ taskToken: 't' }))
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UnknownResourceFault);
      expect((failure as UnknownResourceFault).message).toBe('Unknown activity');
      expect(lambda.commandCalls(InvokeCommand)).toHaveLength(2);
      // The SDK's own path cannot reach the function: a call that would take it is refused.
      await expect(
        swf.send(new RespondActivityTaskCompletedCommand({ taskToken: 't' }), () => {}),
      ).rejects.toThrow(/sends only SWF commands/);
    } finally {
      lambda.restore();
    }
  });

  it('talks to $SWF_ENDPOINT in $AWS_REGION, signed for execute-api by default', async () => {
    vi.stubEnv('SWF_ENDPOINT', stub.endpoint);
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('SWF_SIGNING_NAME', undefined);
    const handler = activityTaskHandler({ activities: { resize: () => 'ok' } });

    await handler(activityEvent());

    expect(calls().map((c) => c.action)).toEqual(['RespondActivityTaskCompleted']);
    expect(stub.received[0]?.headers.authorization).toMatch(
      /\/eu-west-1\/execute-api\/aws4_request,/,
    );
  });
});
