/** The SWF stub, events and activities the SDK's push-task handler tests share. */

import type { InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import {
  type ActivityContext,
  createSwfClient,
  type PushedTaskEvent,
} from '../../lib/sdk/index.js';
import { type Received, type StubService, startStubService } from '../support/stub-aws-json.js';

/** The SWF stub the file's handlers call (set by useStubService's hooks). */
export let stub: StubService;

/** One stub service for the calling file, emptied after each test. */
export function useStubService(): void {
  beforeAll(async () => {
    stub = await startStubService();
  });
  afterAll(() => stub.close());
  afterEach(() => {
    stub.received.length = 0;
    stub.answers.length = 0;
    vi.unstubAllEnvs();
  });
}

export const client = () =>
  createSwfClient({
    endpoint: stub.endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });

/** A Lambda function's result as Invoke returns it (the SDK's blob is a Uint8Array underneath). */
export const payloadOf = (result: object) =>
  new TextEncoder().encode(JSON.stringify(result)) as NonNullable<InvokeCommandOutput['Payload']>;

/** The calls the stub received, as `Action body`. */
export const calls = () =>
  stub.received.map((r: Received) => ({
    action: String(r.headers['x-amz-target']).replace('SimpleWorkflowService.', ''),
    body: r.body,
  }));

export const activityEvent = (task: Record<string, unknown> = {}): PushedTaskEvent => ({
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
export const waitsForSignal = (seen: { ctx?: ActivityContext; abortedAtStart?: boolean }) => {
  return (_input: string | undefined, ctx: ActivityContext) =>
    new Promise((_resolve, reject) => {
      seen.ctx = ctx;
      seen.abortedAtStart = ctx.signal.aborted;
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
    });
};

export const wireEvent = (
  eventId: number,
  eventType: string,
  attributes: Record<string, unknown>,
) => ({
  eventId,
  eventTimestamp: 1_764_000_000 + eventId + 0.5,
  eventType,
  ...attributes,
});

export const decisionEvent = (task: Record<string, unknown> = {}): PushedTaskEvent => ({
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

export const secondPage = {
  events: [
    wireEvent(3, 'DecisionTaskStarted', {
      decisionTaskStartedEventAttributes: { scheduledEventId: 2, identity: 'decider-fn' },
    }),
  ],
};
