/**
 * Which failures of a stream record are the weather (retried by Lambda with the batch) and which are
 * the record's own (dead-lettered after bounded retries): the lean clients' errors included, as the
 * stream function meets them once their own attempts are spent.
 */
import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { DynamoDbError } from '../../../lib/adapters/dynamodb/doc-client.js';
import { RunContendedError } from '../../../lib/operations/run-mutation.js';
import { isTransientError } from '../../../lib/operations/transient.js';

describe('isTransientError', () => {
  it("takes undici's connection failures for the weather", () => {
    expect(isTransientError(new errors.SocketError('other side closed'))).toBe(true);
    expect(isTransientError(new errors.ConnectTimeoutError())).toBe(true);
    expect(isTransientError(new errors.HeadersTimeoutError())).toBe(true);
    expect(isTransientError(new errors.BodyTimeoutError())).toBe(true);
  });

  it("takes DynamoDB's 5xx and 429 answers through the lean client for the weather", () => {
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

  it("takes DynamoDB's refusal of a write to an item a transaction holds for the weather", () => {
    // DynamoDB answers an item-level write on an item that a transaction in flight holds with
    // TransactionConflictException (400), and a retried transaction still in flight with
    // TransactionInProgressException: both pass once the other request is done. DynamoDB Local
    // makes the write wait for the lock instead, so the suites never see either.
    const refused = (name: string) => new DynamoDbError(name, 'Transaction is ongoing', 400, {});
    expect(isTransientError(refused('TransactionConflictException'))).toBe(true);
    expect(isTransientError(refused('TransactionInProgressException'))).toBe(true);
  });

  it('takes a transaction DynamoDB cancelled for throttling for the weather, not one whose condition failed', () => {
    const cancelled = (codes: string[]) =>
      new DynamoDbError('TransactionCanceledException', 'Transaction cancelled', 400, {
        CancellationReasons: codes.map((Code) => ({ Code })),
      });
    expect(isTransientError(cancelled(['ThrottlingError', 'None']))).toBe(true);
    expect(isTransientError(cancelled(['None', 'ProvisionedThroughputExceeded']))).toBe(true);
    expect(isTransientError(cancelled(['None', 'ConditionalCheckFailed']))).toBe(false);
    expect(isTransientError(cancelled(['ValidationError']))).toBe(false);
  });

  it("takes the AWS SDK's throttling and retryable errors for the weather, and a bug for the record's own", () => {
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
