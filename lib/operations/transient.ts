import { THROTTLED_REASONS } from '../adapters/dynamodb/transact.js';

/**
 * Whether an error is the weather rather than the record: throttling, a service's own fault, a timeout
 * or a dropped connection. Such an error is worth retrying later (Lambda retries the batch); any other
 * error of a stream record is the record's own, and after bounded retries it is dead-lettered.
 */
export function isTransientError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
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
  return e.cause !== undefined && e.cause !== error && isTransientError(e.cause);
}

const transientNames = new Set([
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
  'LimitExceededException',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'AbortError',
  // A run other writers kept changing through every attempt (lib/operations/run-mutation.ts).
  'RunContendedError',
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

/**
 * Whether an error is a service's throttling of the request (DynamoDB's table or partition over its
 * throughput, after the client's own attempts), or another request holding the same item for a
 * moment: the request may be tried again later, as one over SWF's rate.
 */
export function isThrottlingError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 10) return false;
  const e = error as { name?: unknown; statusCode?: unknown; cause?: unknown };
  if (typeof e.name === 'string' && throttlingNames.has(e.name)) return true;
  if (e.statusCode === 429) return true;
  return e.cause !== undefined && e.cause !== error && isThrottlingError(e.cause, depth + 1);
}

const throttlingNames = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ProvisionedThroughputExceededException',
  'TransactionConflictException',
  'TransactionInProgressException',
]);
