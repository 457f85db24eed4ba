import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AwsLambdaTaskRunner,
  type LambdaTaskEvent,
} from '../../../lib/adapters/aws/lambda-tasks.js';
import type { LambdaTask } from '../../../lib/ports/lambda-invoker.js';

const lambdaMock = mockClient(LambdaClient);
afterEach(() => lambdaMock.reset());

const task: LambdaTask = {
  runId: 'run-1',
  scheduledEventId: 5,
  startedEventId: 6,
  request: {
    name: 'fn',
    input: 'in',
    role: 'arn:aws:iam::123456789012:role/r',
    timeoutSeconds: 60,
  },
};
const neverHere = async () => {
  throw new Error('a task handed to the Lambda-task function is not run in the stream function');
};

describe('AwsLambdaTaskRunner', () => {
  it('hands the task to the Lambda-task function by asynchronous Invoke, never running it here', async () => {
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 202 });
    await new AwsLambdaTaskRunner(
      'swf-lambda-tasks',
      new LambdaClient({ region: 'us-east-1' }),
    ).dispatch(task, neverHere);
    const [call] = lambdaMock.commandCalls(InvokeCommand);
    expect(call?.args[0].input.FunctionName).toBe('swf-lambda-tasks');
    expect(call?.args[0].input.InvocationType).toBe('Event');
    const payload = call?.args[0].input.Payload;
    const event = JSON.parse(
      new TextDecoder().decode(payload instanceof Uint8Array ? payload : undefined),
    ) as LambdaTaskEvent;
    expect(event).toEqual({ swfLambdaTask: task });
  });

  it('rejects, invoking nothing, when no function is configured or the Invoke fails', async () => {
    const client = new LambdaClient({ region: 'us-east-1' });
    await expect(
      new AwsLambdaTaskRunner(undefined, client).dispatch(task, neverHere),
    ).rejects.toThrow(/LAMBDA_TASK_FUNCTION/);
    expect(lambdaMock.commandCalls(InvokeCommand)).toHaveLength(0);
    lambdaMock.on(InvokeCommand).rejects(new Error('throttled'));
    await expect(new AwsLambdaTaskRunner('fn', client).dispatch(task, neverHere)).rejects.toThrow(
      'throttled',
    );
  });
});
