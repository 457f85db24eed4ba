/**
 * The decision-task handler of push task lists, against a stub SWF: a pushed decision task read
 * page by page, decided and answered, and the handlers' default client.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { RespondActivityTaskCompletedCommand, UnknownResourceFault } from '@aws-sdk/client-swf';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it, vi } from 'vitest';
import {
  activityTaskHandler,
  createSwfClient,
  decide,
  decisionTaskHandler,
  type WorkflowState,
} from '../../lib/sdk/index.js';
import { lambdaContext } from '../support/lambda-events.js';
import {
  activityEvent,
  calls,
  client,
  decisionEvent,
  payloadOf,
  secondPage,
  stub,
  useStubService,
  wireEvent,
} from './pushed-task-support.js';
import { recordingLogger } from './support.js';

useStubService();

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
