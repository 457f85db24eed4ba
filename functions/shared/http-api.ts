import middy, { type MiddlewareObj, type MiddyHandlerObject } from '@middy/core';
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
  const api = async (
    event: ApiEvent,
    context: Context,
    { signal }: MiddyHandlerObject,
  ): Promise<ApiResult> => {
    const deadline = deadlineSignal(context, options.windDownMs, signal);
    try {
      const request = requestOfApiEvent(event, deadline.signal);
      // Answered as any failure around the dispatcher (see internalFailure).
      if (request === undefined) throw new TypeError('The event is not an HTTP call');
      // The function workers invoke directly trusts no identity its events claim (see callerOfApiEvent).
      const caller: Caller =
        callers === 'direct-invoke' ? { kind: 'task-token' } : callerOfApiEvent(event);
      return apiResultOf(
        await dispatcherFor(context)({ ...request, caller, invocationId: context.awsRequestId }),
      );
    } finally {
      deadline.clear();
    }
  };
  return middy(api, { timeoutEarlyInMillis: options.timeoutEarlyInMillis }).use(internalFailure());
}

/**
 * Fires `windDownMs` before the Lambda deadline, or when middy gives up on the request. The timer and
 * the listener are removed when the request ends: middy reuses its signal across invocations.
 */
function deadlineSignal(context: Context, windDownMs: number, parent: AbortSignal) {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent.reason);
  if (parent.aborted) onParentAbort();
  parent.addEventListener('abort', onParentAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new DOMException('The Lambda deadline is near', 'TimeoutError')),
    Math.max(0, context.getRemainingTimeInMillis() - windDownMs),
  );
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
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
