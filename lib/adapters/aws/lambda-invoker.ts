import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import type { LambdaInvoker, LambdaRequest, LambdaResult } from '../../ports/lambda-invoker.js';

/**
 * Invokes the function as SWF does: with the execution's lambdaRole assumed. No role,
 * or a role that cannot be assumed, is StartLambdaFunctionFailed with cause ASSUME_ROLE_FAILED.
 *
 * A task's function runs at most once: the Invoke is not retried as the AWS SDK would retry it (a 5xx
 * or a dropped connection may come after the function ran), except when Lambda throttled it, which it
 * answers before running anything.
 */
export class AwsLambdaInvoker implements LambdaInvoker {
  readonly available = true;

  constructor(
    private readonly sts: STSClient = new STSClient({}),
    private readonly makeClient: (
      credentials: LambdaClientCredentials,
    ) => LambdaClient = taskLambdaClient,
  ) {}

  async invoke(request: LambdaRequest): Promise<LambdaResult> {
    if (request.role === undefined) {
      return {
        kind: 'start-failed',
        cause: 'ASSUME_ROLE_FAILED',
        message: 'The execution has no lambdaRole to invoke Lambda functions with',
      };
    }
    let credentials: LambdaClientCredentials;
    try {
      const assumed = await this.sts.send(
        new AssumeRoleCommand({
          RoleArn: request.role,
          RoleSessionName: roleSessionName(request.execution),
          // The session may invoke functions and nothing else, whatever else the role may do.
          Policy: INVOKE_ONLY_SESSION_POLICY,
        }),
      );
      const c = assumed.Credentials;
      if (c?.AccessKeyId === undefined || c.SecretAccessKey === undefined)
        throw new Error('AssumeRole returned no credentials');
      credentials = {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        ...(c.SessionToken === undefined ? {} : { sessionToken: c.SessionToken }),
      };
    } catch (error) {
      return {
        kind: 'start-failed',
        cause: 'ASSUME_ROLE_FAILED',
        message: error instanceof Error ? error.message : String(error),
      };
    }
    const client = this.makeClient(credentials);
    // Whole milliseconds, never negative: AbortSignal.timeout refuses anything else, and the time a
    // task has left (its deadline less the clock) is neither.
    const abortSignal = AbortSignal.timeout(Math.max(0, Math.ceil(request.timeoutSeconds * 1000)));
    const invoke = () =>
      client.send(
        new InvokeCommand({
          FunctionName: request.name,
          ...(request.input === undefined ? {} : { Payload: Buffer.from(request.input) }),
        }),
        { abortSignal },
      );
    try {
      const response = await retryThrottled(invoke, abortSignal);
      const payload =
        response.Payload === undefined ? undefined : Buffer.from(response.Payload).toString('utf8');
      if (response.FunctionError !== undefined) {
        return {
          kind: 'failed',
          reason: response.FunctionError,
          ...(payload === undefined ? {} : { details: payload }),
        };
      }
      return payload === undefined || payload === ''
        ? { kind: 'completed' }
        : { kind: 'completed', result: payload };
    } catch (error) {
      if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))
        return { kind: 'timed-out' };
      return {
        kind: 'failed',
        reason: error instanceof Error ? error.name : 'Error',
        details: error instanceof Error ? error.message : String(error),
      };
    } finally {
      client.destroy();
    }
  }
}

/** What the assumed role's session may do: invoke the task's function. */
export const INVOKE_ONLY_SESSION_POLICY = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: '*' }],
});

/**
 * The role session's name: `<domain>.<runId>`, so that CloudTrail's records of the Invoke (the
 * session is in the caller's ARN) say whose task it was. STS allows 64 characters of [\w+=,.@-]:
 * the runId (43 characters here) is kept whole, the domain cut to what is left, and any other
 * character of it replaced by '-'.
 */
export function roleSessionName(execution: LambdaRequest['execution']): string {
  if (execution === undefined) return 'swf-lambda-task';
  const clean = (text: string) => text.replace(/[^\w+=,.@-]/g, '-');
  const runId = clean(execution.runId).slice(0, 62);
  const domain = clean(execution.domain).slice(0, 63 - runId.length);
  return `${domain}.${runId}`;
}

export interface LambdaClientCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** The client a task's function is invoked with: the AWS SDK's own retries off (see above). */
export const taskLambdaClient = (credentials: LambdaClientCredentials) =>
  new LambdaClient({ credentials, maxAttempts: 1 });

/** Attempts at an Invoke that Lambda throttled (it ran nothing), while the task has time left. */
const THROTTLED_ATTEMPTS = 4;
const THROTTLED = new Set([
  'TooManyRequestsException',
  'ThrottlingException',
  'EC2ThrottledException',
]);

async function retryThrottled<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const throttled = error instanceof Error && THROTTLED.has(error.name);
      if (!throttled || attempt >= THROTTLED_ATTEMPTS || signal.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 200 * 2 ** attempt));
    }
  }
}
