import { SwfFault } from '../core/faults.js';
import { TransientServiceError } from '../ports/transient-failure.js';
import { THROTTLED_REASONS } from './dynamodb/transact.js';

/**
 * An adapter whose methods throw a TransientServiceError in place of a client's error that is
 * transient (see transientKind), so that the operations never meet the AWS SDK's, DynamoDB's or
 * undici's errors. Any other error, and an SWF fault, is thrown as it was. The adapter's own methods
 * still see their clients' errors: only what leaves it is translated.
 */
export function translatingFailures<T extends object>(adapter: T): T {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(adapter, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = methods.get(property);
      if (method === undefined) {
        method = (...args: unknown[]) => {
          try {
            const result: unknown = Reflect.apply(value, target, args);
            return result instanceof Promise ? result.catch(rethrowTranslated) : result;
          } catch (error) {
            return rethrowTranslated(error);
          }
        };
        methods.set(property, method);
      }
      return method;
    },
  });
}

function rethrowTranslated(error: unknown): never {
  throw asTransientServiceError(error);
}

/** A client's transient error as a TransientServiceError; any other error as it is. */
export function asTransientServiceError(error: unknown): unknown {
  if (error instanceof SwfFault || error instanceof TransientServiceError) return error;
  const kind = transientKind(error);
  return kind === undefined ? error : new TransientServiceError(kind === 'throttled', error);
}

/**
 * Whether a client's error is transient rather than the request's own: the service throttled it
 * ('throttled'), or failed for a moment ('transient': a service's own fault, a timeout or a dropped
 * connection). Either is worth trying again later.
 */
export function transientKind(error: unknown): 'throttled' | 'transient' | undefined {
  if (isThrottling(error)) return 'throttled';
  return isTransient(error) ? 'transient' : undefined;
}

function isTransient(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 10) return false;
  const e = error as {
    name?: unknown;
    code?: unknown;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: unknown };
    statusCode?: unknown;
    cause?: unknown;
    CancellationReasons?: unknown;
  };
  if (e.$retryable !== undefined && e.$retryable !== null) return true;
  // The AWS SDK's errors carry the status in $metadata; the lean clients' (lib/aws-json, DynamoDB's
  // doc client) as statusCode, also for an answer that was not even JSON (a load balancer's 502).
  for (const status of [e.$metadata?.httpStatusCode, e.statusCode])
    if (typeof status === 'number' && (status >= 500 || status === 429)) return true;
  if (typeof e.name === 'string' && transientNames.has(e.name)) return true;
  if (typeof e.code === 'string' && transientCodes.has(e.code)) return true;
  // undici's connection failures (UND_ERR_SOCKET, UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT,
  // ...), which the lean clients give up with after their attempts.
  if (typeof e.code === 'string' && e.code.startsWith('UND_ERR_')) return true;
  // A transaction DynamoDB cancelled because it throttled (or another transaction held) an item.
  if (e.name === 'TransactionCanceledException' && Array.isArray(e.CancellationReasons)) {
    const codes = e.CancellationReasons.map((r: { Code?: unknown }) => r?.Code);
    const transient = (code: unknown) =>
      code === 'TransactionConflict' || (typeof code === 'string' && THROTTLED_REASONS.has(code));
    if (codes.some(transient)) return true;
  }
  return e.cause !== undefined && e.cause !== error && isTransient(e.cause, depth + 1);
}

/**
 * A service's throttling of the request (DynamoDB's table or partition over its throughput, after the
 * client's own attempts), or another request holding the same item for a moment.
 */
function isThrottling(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 10) return false;
  const e = error as { name?: unknown; statusCode?: unknown; cause?: unknown };
  if (typeof e.name === 'string' && throttlingNames.has(e.name)) return true;
  if (e.statusCode === 429) return true;
  return e.cause !== undefined && e.cause !== error && isThrottling(e.cause, depth + 1);
}

const throttlingNames = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ProvisionedThroughputExceededException',
  // DynamoDB refused a write to an item that a transaction in flight holds, or a retried transaction
  // is still in flight: both pass once the other request is done.
  'TransactionConflictException',
  'TransactionInProgressException',
]);

const transientNames = new Set([
  ...throttlingNames,
  'LimitExceededException',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'AbortError',
]);

const transientCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
