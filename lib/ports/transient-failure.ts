import { ThrottlingException } from '../core/faults.js';

/**
 * A store or service the operations use failed for a moment: it throttled the request, answered with
 * a fault of its own (a 5xx), timed out or dropped the connection. The adapters throw it in place of
 * their client's error (kept as its `cause`), so that the operations tell a failure worth trying again
 * later from the request's own without knowing any client's error names.
 */
export class TransientServiceError extends Error {
  override readonly name = 'TransientServiceError';

  constructor(
    /** The service refused the request for its rate, or another request held the same item. */
    readonly throttled: boolean,
    cause: unknown,
  ) {
    super(cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause), { cause });
  }
}

/**
 * Whether an error, or one it was caused by, may pass when tried again later: a transient failure of
 * a service, or a ThrottlingException (a run other writers kept changing, a transaction DynamoDB
 * throttled). A stream record failing so is retried with its batch; one failing for any other reason
 * is its own fault.
 */
export const isTransientFailure = (error: unknown): boolean =>
  causes(error).some((e) => e instanceof TransientServiceError || e instanceof ThrottlingException);

/** Whether an error, or one it was caused by, is a service's throttling of the request. */
export const isThrottledFailure = (error: unknown): boolean =>
  causes(error).some(
    (e) => (e instanceof TransientServiceError && e.throttled) || e instanceof ThrottlingException,
  );

/** An error and the chain of its causes (at most 10 deep: a cause may point back). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && chain.length < 10 && !chain.includes(e); ) {
    chain.push(e);
    e = typeof e === 'object' && e !== null ? Reflect.get(e, 'cause') : undefined;
  }
  return chain;
}
