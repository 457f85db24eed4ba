import { InvokeCommand, LambdaClient, ResourceNotFoundException } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { AwsTaskPush } from '../../../lib/adapters/aws/task-push.js';
import {
  PUSHED_EVENT_MAX_BYTES,
  PUSHED_TASK_SOURCE,
  type PushedTaskEvent,
  type PushTaskList,
} from '../../../lib/ports/task-push.js';

const lambdaMock = mockClient(LambdaClient);
const target = 'arn:aws:lambda:us-east-1:123456789012:function:deciders';
const lists: PushTaskList[] = [
  { kind: 'decision', domain: 'orders', taskList: 'deciders', target },
  { kind: 'activity', domain: 'orders', taskList: 'workers', target: 'workers-fn' },
];
const event: PushedTaskEvent = {
  source: PUSHED_TASK_SOURCE,
  kind: 'decision',
  domain: 'orders',
  taskList: 'deciders',
  task: { taskToken: 't1', startedEventId: 3, events: [] },
};

let made = 0;
const push = () =>
  new AwsTaskPush(lists, 'swf-api', () => {
    made++;
    return new LambdaClient({ region: 'us-east-1' });
  });

afterEach(() => {
  lambdaMock.reset();
  made = 0;
});

describe('AwsTaskPush', () => {
  it('finds the function of a push task list by kind, domain and task list', () => {
    const p = push();
    expect(p.target('decision', 'orders', 'deciders')).toBe(target);
    expect(p.target('activity', 'orders', 'workers')).toBe('workers-fn');
    expect(p.target('activity', 'orders', 'deciders')).toBeUndefined();
    expect(p.target('decision', 'other', 'deciders')).toBeUndefined();
    expect(made).toBe(0);
  });

  it('invokes the function asynchronously with the event as JSON, naming the API function, on one client', async () => {
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 202 });
    const p = push();
    await p.push(target, event);
    await p.push(target, event);
    const inputs = lambdaMock.commandCalls(InvokeCommand).map((c) => c.args[0].input);
    expect(inputs).toHaveLength(2);
    expect(inputs[0]?.FunctionName).toBe(target);
    expect(inputs[0]?.InvocationType).toBe('Event');
    const payload = inputs[0]?.Payload;
    expect(payload).toBeInstanceOf(Uint8Array);
    expect(
      JSON.parse(new TextDecoder().decode(payload instanceof Uint8Array ? payload : undefined)),
    ).toEqual({ ...event, api: { functionName: 'swf-api' } });
    expect(made).toBe(1);
  });

  it('rejects naming the function when Lambda cannot be reached or refuses the event', async () => {
    lambdaMock
      .on(InvokeCommand)
      .rejectsOnce(new ResourceNotFoundException({ message: 'Function not found', $metadata: {} }))
      .resolvesOnce({ StatusCode: 500 })
      .resolvesOnce({ StatusCode: 202, FunctionError: 'Unhandled' })
      .resolvesOnce({});
    const p = push();
    await expect(p.push(target, event)).rejects.toThrow(
      `Could not push a decision task of orders/deciders to function ${target}: ResourceNotFoundException: Function not found`,
    );
    await expect(p.push(target, event)).rejects.toThrow(`${target}: Lambda answered status 500`);
    await expect(p.push(target, event)).rejects.toThrow(`${target}: FunctionError Unhandled`);
    await expect(p.push(target, event)).rejects.toThrow(`${target}: Lambda answered status none`);
  });

  it('refuses an event over the asynchronous invocation limit without sending it', async () => {
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 202 });
    // The event as sent: with the API function named in it.
    const named = { ...event, api: { functionName: 'swf-api' } };
    const envelope = Buffer.byteLength(JSON.stringify({ ...named, task: { input: '' } }));
    const at = (bytes: number) => ({ ...event, task: { input: 'x'.repeat(bytes - envelope) } });
    const p = push();
    await p.push(target, at(PUSHED_EVENT_MAX_BYTES));
    await expect(p.push(target, at(PUSHED_EVENT_MAX_BYTES + 1))).rejects.toThrow(
      `Cannot push a decision task of orders/deciders to function ${target}: its event is ${PUSHED_EVENT_MAX_BYTES + 1} bytes, over the ${PUSHED_EVENT_MAX_BYTES} of an asynchronous invocation`,
    );
    expect(lambdaMock.commandCalls(InvokeCommand)).toHaveLength(1);
  });
});
