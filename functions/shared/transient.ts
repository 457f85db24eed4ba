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
    cause?: unknown;
  };
  if (e.$retryable !== undefined && e.$retryable !== null) return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status >= 500 || status === 429)) return true;
  if (typeof e.name === 'string' && transientNames.has(e.name)) return true;
  if (typeof e.code === 'string' && transientCodes.has(e.code)) return true;
  return e.cause !== undefined && e.cause !== error && isTransientError(e.cause);
}

const transientNames = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ProvisionedThroughputExceededException',
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
