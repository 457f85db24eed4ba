/**
 * The AWS invoker of Lambda tasks' functions: the execution's role assumed, each outcome, and the
 * function run at most once: only a throttled Invoke (Lambda ran nothing) is tried again.
 */
import { InvokeCommand, LambdaClient, ServiceException } from '@aws-sdk/client-lambda';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AwsLambdaInvoker,
  roleSessionName,
  taskLambdaClient,
} from '../../../lib/adapters/aws/lambda-invoker.js';

const lambdaMock = mockClient(LambdaClient);
const stsMock = mockClient(STSClient);
beforeEach(() => {
  stsMock.on(AssumeRoleCommand).resolves({
    Credentials: {
      AccessKeyId: 'AK',
      SecretAccessKey: 'SK',
      SessionToken: 'T',
      Expiration: new Date(Date.now() + 3_600_000),
    },
  });
});
afterEach(() => {
  lambdaMock.reset();
  stsMock.reset();
});

const request = {
  name: 'fn',
  input: 'in',
  role: 'arn:aws:iam::123456789012:role/r',
  timeoutSeconds: 30,
};
const invoker = () => new AwsLambdaInvoker(new STSClient({ region: 'us-east-1' }));
const throttled = () =>
  Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' });

describe('AwsLambdaInvoker', () => {
  it('invokes with the role assumed and records the payload as the result', async () => {
    lambdaMock.on(InvokeCommand).resolves({ Payload: Buffer.from('"done"') as never });
    expect(await invoker().invoke(request)).toEqual({ kind: 'completed', result: '"done"' });
    expect(stsMock.commandCalls(AssumeRoleCommand)[0]?.args[0].input.RoleArn).toBe(request.role);
  });

  it("names the role's session after the task's domain and run, and lets it only invoke", async () => {
    lambdaMock.on(InvokeCommand).resolves({});
    const runId = 'A'.repeat(43);
    await invoker().invoke({ ...request, execution: { domain: 'orders', runId } });
    const input = stsMock.commandCalls(AssumeRoleCommand)[0]?.args[0].input;
    expect(input?.RoleSessionName).toBe(`orders.${runId}`);
    expect(JSON.parse(input?.Policy ?? '{}')).toEqual({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: '*' }],
    });
  });

  it('keeps a session name within what STS allows, the runId whole', () => {
    const runId = 'r'.repeat(43);
    const name = roleSessionName({ domain: `my domain/${'d'.repeat(300)}`, runId });
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^[\w+=,.@-]{2,64}$/);
    expect(name.startsWith('my-domain-ddd')).toBe(true);
    expect(name.endsWith(`.${runId}`)).toBe(true);
    expect(roleSessionName({ domain: 'd', runId: 'x'.repeat(100) })).toMatch(/^d\.x{62}$/);
    expect(roleSessionName(undefined)).toBe('swf-lambda-task');
  });

  // The outbox gives a task the time it has left, its deadline less the clock's epoch seconds: on AWS
  // practically never a whole number of milliseconds (899.9559998512268 s was seen), and below zero
  // for a task reached late. AbortSignal.timeout refused both before anything was invoked.
  it.each([899.9559998512268, -0.25])('invokes a task with %s s left', async (timeoutSeconds) => {
    lambdaMock.on(InvokeCommand).resolves({ Payload: Buffer.from('"done"') as never });
    expect(await invoker().invoke({ ...request, timeoutSeconds })).toEqual({
      kind: 'completed',
      result: '"done"',
    });
    expect(lambdaMock.commandCalls(InvokeCommand)).toHaveLength(1);
  });

  it("records the function's own error as a failure", async () => {
    lambdaMock.on(InvokeCommand).resolves({
      FunctionError: 'Unhandled',
      Payload: Buffer.from('{"errorMessage":"x"}') as never,
    });
    expect(await invoker().invoke(request)).toMatchObject({ kind: 'failed', reason: 'Unhandled' });
  });

  it('tries a throttled Invoke again (Lambda ran nothing), and nothing else', async () => {
    lambdaMock
      .on(InvokeCommand)
      .rejectsOnce(throttled())
      .rejectsOnce(throttled())
      .resolves({ Payload: Buffer.from('ok') as never });
    expect(await invoker().invoke(request)).toEqual({ kind: 'completed', result: 'ok' });
    expect(lambdaMock.commandCalls(InvokeCommand)).toHaveLength(3);

    lambdaMock.reset();
    // A 5xx may come after the function ran: one Invoke, the task failed.
    lambdaMock
      .on(InvokeCommand)
      .rejects(new ServiceException({ $metadata: { httpStatusCode: 500 }, message: 'boom' }));
    expect(await invoker().invoke(request)).toMatchObject({
      kind: 'failed',
      reason: 'ServiceException',
    });
    expect(lambdaMock.commandCalls(InvokeCommand)).toHaveLength(1);
  });

  it("leaves the AWS SDK's own retries off its Lambda client", async () => {
    const client = taskLambdaClient({ accessKeyId: 'AK', secretAccessKey: 'SK' });
    expect(await client.config.maxAttempts()).toBe(1);
    client.destroy();
  });

  it('fails to start without a role to assume', async () => {
    expect(await invoker().invoke({ name: request.name, timeoutSeconds: 30 })).toMatchObject({
      kind: 'start-failed',
      cause: 'ASSUME_ROLE_FAILED',
    });
    expect(lambdaMock.commandCalls(InvokeCommand)).toHaveLength(0);
  });
});
