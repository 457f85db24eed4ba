/**
 * Which failures of a stream record are transient (retried by Lambda with the batch) and which are
 * the record's own (dead-lettered after bounded retries): the lean clients' errors included, as the
 * stream function meets them once their own attempts are spent. The adapters translate a client's
 * transient error into a TransientServiceError; the operations know only that.
 */
import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { DynamoDbError } from '../../../lib/adapters/dynamodb/doc-client.js';
import {
  asTransientServiceError,
  translatingFailures,
} from '../../../lib/adapters/transient-failures.js';
import { ThrottlingException, UnknownResourceFault } from '../../../lib/core/faults.js';
import { RunContendedError } from '../../../lib/operations/run-mutation.js';
import {
  isThrottledFailure,
  isTransientFailure,
  TransientServiceError,
} from '../../../lib/ports/transient-failure.js';

/** A client's error as the operations meet it: through an adapter's translation. */
const isTransientError = (error: unknown) => isTransientFailure(asTransientServiceError(error));

describe('a transient failure', () => {
  it("takes undici's connection failures as transient", () => {
    expect(isTransientError(new errors.SocketError('other side closed'))).toBe(true);
    expect(isTransientError(new errors.ConnectTimeoutError())).toBe(true);
    expect(isTransientError(new errors.HeadersTimeoutError())).toBe(true);
    expect(isTransientError(new errors.BodyTimeoutError())).toBe(true);
  });

  it("takes DynamoDB's 5xx and 429 answers through the lean client as transient", () => {
    // A 502 whose body was not JSON has no error type of DynamoDB's: only its status tells.
    expect(isTransientError(new DynamoDbError('UnknownError', 'Bad Gateway', 502, {}))).toBe(true);
    expect(isTransientError(new DynamoDbError('Unknown', 'slow down', 429, {}))).toBe(true);
    expect(
      isTransientError(new DynamoDbError('ValidationException', 'Item size exceeded', 400, {})),
    ).toBe(false);
    expect(
      isTransientError(
        new DynamoDbError(
          'ConditionalCheckFailedException',
          'The conditional request failed',
          400,
          {},
        ),
      ),
    ).toBe(false);
  });

  it("takes DynamoDB's refusal of a write to an item a transaction holds as transient", () => {
    // DynamoDB answers an item-level write on an item that a transaction in flight holds with
    // TransactionConflictException (400), and a retried transaction still in flight with
    // TransactionInProgressException: both pass once the other request is done. DynamoDB Local
    // makes the write wait for the lock instead, so the suites never see either.
    const refused = (name: string) => new DynamoDbError(name, 'Transaction is ongoing', 400, {});
    expect(isTransientError(refused('TransactionConflictException'))).toBe(true);
    expect(isTransientError(refused('TransactionInProgressException'))).toBe(true);
  });

  it('takes a transaction DynamoDB cancelled for throttling as transient, not one whose condition failed', () => {
    const cancelled = (codes: string[]) =>
      new DynamoDbError('TransactionCanceledException', 'Transaction cancelled', 400, {
        CancellationReasons: codes.map((Code) => ({ Code })),
      });
    expect(isTransientError(cancelled(['ThrottlingError', 'None']))).toBe(true);
    expect(isTransientError(cancelled(['None', 'ProvisionedThroughputExceeded']))).toBe(true);
    expect(isTransientError(cancelled(['None', 'ConditionalCheckFailed']))).toBe(false);
    expect(isTransientError(cancelled(['ValidationError']))).toBe(false);
  });

  it("takes the AWS SDK's throttling and retryable errors as transient, and a bug for the record's own", () => {
    expect(isTransientError(Object.assign(new Error('x'), { name: 'ThrottlingException' }))).toBe(
      true,
    );
    expect(
      isTransientError(Object.assign(new Error('x'), { $metadata: { httpStatusCode: 503 } })),
    ).toBe(true);
    expect(isTransientError(new Error('wrapped', { cause: new errors.SocketError('x') }))).toBe(
      true,
    );
    expect(isTransientError(new RunContendedError('execution r1 kept changing'))).toBe(true);
    expect(isTransientError(new TypeError('Cannot read properties of undefined'))).toBe(false);
  });
});

describe('translatingFailures', () => {
  const throttled = new DynamoDbError(
    'ProvisionedThroughputExceededException',
    'slow down',
    400,
    {},
  );
  const store = translatingFailures({
    calls: 0,
    async read(fail: unknown) {
      this.calls++;
      throw fail;
    },
    count(fail: unknown): number {
      throw fail;
    },
  });

  it("throws a TransientServiceError for a client's transient error, its cause kept", async () => {
    const error: unknown = await store.read(throttled).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientServiceError);
    expect(error).toMatchObject({
      throttled: true,
      cause: throttled,
      message: 'ProvisionedThroughputExceededException: slow down',
    });
    expect(isThrottledFailure(error)).toBe(true);
    expect(() => store.count(new errors.SocketError('other side closed'))).toThrow(
      TransientServiceError,
    );
    // The adapter's own state is reached through it: its methods run on the adapter itself.
    expect(store.calls).toBe(1);
  });

  it('throws an SWF fault and a bug as they are', async () => {
    const fault = new UnknownResourceFault('Unknown execution');
    await expect(store.read(fault)).rejects.toBe(fault);
    const contended = new RunContendedError('execution r1 kept changing');
    await expect(store.read(contended)).rejects.toBe(contended);
    const bug = new TypeError('Cannot read properties of undefined');
    await expect(store.read(bug)).rejects.toBe(bug);
    expect(isTransientFailure(bug)).toBe(false);
  });

  it('tells a throttled service from one that failed for a moment', () => {
    const failed = asTransientServiceError(new DynamoDbError('InternalServerError', 'x', 500, {}));
    expect(failed).toMatchObject({ name: 'TransientServiceError', throttled: false });
    expect(isTransientFailure(failed)).toBe(true);
    expect(isThrottledFailure(failed)).toBe(false);
    expect(isThrottledFailure(new Error('wrapped', { cause: new ThrottlingException('x') }))).toBe(
      true,
    );
  });
});
