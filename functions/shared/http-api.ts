import middy, { type MiddlewareObj } from '@middy/core';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { apiResultOf, callerOfApiEvent, requestOfApiEvent } from '../../lib/http/api-event.js';
import type { Dispatcher } from '../../lib/http/dispatch.js';
import type { Caller } from '../../lib/operations/access.js';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

export interface HttpApiOptions {
  /**
   * middy's last resort: this long before the Lambda deadline the request is abandoned and answered
   * with a retryable 500, rather than left for Lambda to kill (API Gateway would then answer in a shape
   * no SWF client understands). 0 turns it off (tests).
   */
  readonly timeoutEarlyInMillis: number;
  /**
   * This long before the Lambda deadline the request's AbortSignal fires, so a long poll stops waiting
   * and answers an empty task in time. Must leave room for that answer: more than timeoutEarlyInMillis.
   */
  readonly windDownMs: number;
}

export const DEFAULT_HTTP_API_OPTIONS: HttpApiOptions = {
  timeoutEarlyInMillis: 500,
  windDownMs: 3_000,
};

/**
 * The Lambda face of the awsJson1_0 edge: an API Gateway HTTP API (payload v2) event becomes the same
 * HttpRequest the local server builds, and the dispatcher's answer goes back unchanged.
 */
export function httpApiHandler(
  dispatcherFor: (context: Context) => Dispatcher,
  options: HttpApiOptions = DEFAULT_HTTP_API_OPTIONS,
  callers: 'front-door' | 'direct-invoke' = 'front-door',
) {
  if (options.timeoutEarlyInMillis > 0 && options.windDownMs <= options.timeoutEarlyInMillis) {
    throw new RangeError(
      'windDownMs must exceed timeoutEarlyInMillis, or polls are cut off unanswered',
    );
  }
  const api = async (event: ApiEvent, context: Context): Promise<ApiResult> => {
    const deadline = invocationDeadline(context, options);
    try {
      const request = requestOfApiEvent(event, deadline.signal);
      // Answered as any failure around the dispatcher (see internalFailure).
      if (request === undefined) throw new TypeError('The event is not an HTTP call');
      // The function workers invoke directly trusts no identity its events claim (see callerOfApiEvent).
      const caller: Caller =
        callers === 'direct-invoke' ? { kind: 'task-token' } : callerOfApiEvent(event);
      const answer = dispatcherFor(context)({
        ...request,
        caller,
        invocationId: context.awsRequestId,
      });
      return apiResultOf(await Promise.race([answer, deadline.lastResort]));
    } finally {
      deadline.clear();
    }
  };
  // middy's own early timeout aborts one AbortController its module shares across invocations: on
  // Lambda Managed Instances, where one process serves many invocations at once, one request's
  // timeout would end every other's polls. Each invocation keeps its own deadline instead.
  return middy(api, { timeoutEarlyInMillis: 0 }).use(internalFailure());
}

/**
 * One invocation's deadline: its signal fires `windDownMs` before the Lambda deadline, so a long poll
 * answers an empty task in time; `lastResort` rejects `timeoutEarlyInMillis` before it, so a request
 * still unanswered gets a retryable 500 rather than being killed by Lambda (API Gateway would then
 * answer in a shape no SWF client understands). Its timers are the invocation's own and end with it.
 */
function invocationDeadline(context: Context, options: HttpApiOptions) {
  const controller = new AbortController();
  const remaining = context.getRemainingTimeInMillis();
  const windDown = setTimeout(
    () => controller.abort(new DOMException('The Lambda deadline is near', 'TimeoutError')),
    Math.max(0, remaining - options.windDownMs),
  );
  let giveUp: NodeJS.Timeout | undefined;
  const lastResort = new Promise<never>((_, reject) => {
    if (options.timeoutEarlyInMillis <= 0) return;
    giveUp = setTimeout(
      () => {
        const reason = new DOMException('The request outlived the Lambda deadline', 'TimeoutError');
        controller.abort(reason);
        reject(reason);
      },
      Math.max(0, remaining - options.timeoutEarlyInMillis),
    );
  });
  return {
    signal: controller.signal,
    lastResort,
    clear: () => {
      clearTimeout(windDown);
      clearTimeout(giveUp);
    },
  };
}

/**
 * The dispatcher answers every fault itself; what reaches here failed around it (middy's early timeout,
 * the composition). Logged with its cause and answered like the dispatcher's own 500: SWF's InternalFailure,
 * which SDK clients retry.
 */
function internalFailure(): MiddlewareObj<ApiEvent, ApiResult> {
  return {
    onError: (request) => {
      const { error } = request;
      const requestId = request.context.awsRequestId;
      console.error(
        JSON.stringify({
          level: 'error',
          message: 'internal failure',
          requestId,
          error:
            error === null
              ? null
              : { name: error.name, message: error.message, stack: error.stack },
        }),
      );
      const body = JSON.stringify({
        __type: 'com.amazon.coral.service#InternalFailure',
        message: 'Internal failure',
      });
      request.response = {
        statusCode: 500,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-requestid': requestId,
          'content-length': String(Buffer.byteLength(body)),
        },
        body,
        isBase64Encoded: false,
      };
    },
  };
}
