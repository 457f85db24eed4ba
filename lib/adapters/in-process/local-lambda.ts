import type { LambdaInvoker, LambdaRequest, LambdaResult } from '../../ports/lambda-invoker.js';
import { isHttpUrl } from './local-task-push.js';

export type LocalFunction = (input: string | undefined) => Promise<string | undefined>;

/**
 * Lambda functions for the local server: handlers registered in-process by name. With none registered
 * the service reports Lambda as unavailable, and ScheduleLambdaFunction fails with
 * LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION, as SWF does where Lambda is not offered.
 */
export class LocalLambdaFunctions implements LambdaInvoker {
  private readonly functions = new Map<string, LocalFunction>();

  get available(): boolean {
    return this.functions.size > 0;
  }

  register(name: string, handler: LocalFunction): void {
    this.functions.set(name, handler);
  }

  async invoke(request: LambdaRequest): Promise<LambdaResult> {
    const handler = this.functions.get(request.name);
    if (handler === undefined) {
      return {
        kind: 'failed',
        reason: 'ResourceNotFoundException',
        details: `Function not found: ${request.name}`,
      };
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<LambdaResult>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'timed-out' }), request.timeoutSeconds * 1000);
    });
    const run = handler(request.input).then(
      (result): LambdaResult =>
        result === undefined ? { kind: 'completed' } : { kind: 'completed', result },
      (error: unknown): LambdaResult => ({
        kind: 'failed',
        reason: error instanceof Error ? error.name : 'Error',
        details: error instanceof Error ? error.message : String(error),
      }),
    );
    try {
      return await Promise.race([run, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * A local Lambda function served over HTTP (`npm start`'s SWF_LAMBDA_FUNCTIONS): the task's input is
 * POSTed as the invocation's payload, as Lambda hands it to the function, and the answer's body is the
 * result (none when empty). An answer that is not 2xx fails the task as a function error would
 * (reason `Unhandled`, the body as details).
 */
export function postingFunction(url: string): LocalFunction {
  if (!isHttpUrl(url))
    throw new Error(
      `A local Lambda function is the http:// URL its input is POSTed to, not "${url}"`,
    );
  return async (input) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: input ?? '',
    });
    const body = await response.text();
    if (!response.ok)
      throw Object.assign(new Error(body === '' ? `${url} answered ${response.status}` : body), {
        name: 'Unhandled',
      });
    return body === '' ? undefined : body;
  };
}
