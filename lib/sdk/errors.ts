/**
 * How the SDK classifies what a call to SWF threw: a lost task (UnknownResourceFault), something worth
 * retrying (throttling, 5xx, network), an aborted call of our own, or anything else.
 */

const THROTTLING = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ProvisionedThroughputExceededException',
  'SlowDown',
]);

const NETWORK = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  // undici's own timeouts: no answer in time (the request may or may not have landed)
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;

/** The HTTP status the SDK recorded for a failed call, if it got a response at all. */
export function httpStatusOf(error: unknown): number | undefined {
  const status = field(field(error, '$metadata'), 'httpStatusCode');
  return typeof status === 'number' ? status : undefined;
}

/** The task token no longer names an open task: the execution closed, or the task timed out or closed. */
export const isUnknownResource = (error: unknown): boolean =>
  field(error, 'name') === 'UnknownResourceFault';

/** The call was aborted through an AbortSignal we passed (a long poll stopped by shutdown). */
export const isAbort = (error: unknown): boolean =>
  field(error, 'name') === 'AbortError' || field(error, 'code') === 'ABORT_ERR';

/** Throttling, a 5xx answer, or a network failure: try again later, never give up on the task. */
export function isRetryable(error: unknown): boolean {
  if (isUnknownResource(error) || isAbort(error)) return false;
  const name = field(error, 'name');
  if (typeof name === 'string' && THROTTLING.has(name)) return true;
  if (field(error, '$retryable') !== undefined) return true;
  const status = httpStatusOf(error);
  if (status !== undefined) return status >= 500 || status === 429;
  if (field(error, '$fault') === 'server') return true;
  if (isNetworkFailure(error) || isNetworkFailure(field(error, 'cause'))) return true;
  return name === 'TimeoutError' || name === 'RequestTimeout';
}

/** A connection that broke, could not be made, or gave no answer in time (fetch wraps it in `cause`). */
function isNetworkFailure(error: unknown): boolean {
  const code = field(error, 'code');
  return typeof code === 'string' && NETWORK.has(code);
}

/** A short description of an error for log lines. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
