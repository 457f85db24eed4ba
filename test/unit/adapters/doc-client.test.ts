/**
 * DynamoDocClient against a stub DynamoDB on localhost: what it sends (DynamoDB JSON, a Signature
 * Version 4 the AWS SDK's own signer agrees with), how it reads answers and errors, and what it retries.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DynamoDbError,
  DynamoDocClient,
  dynamoDbEndpoint,
  environmentEndpoint,
  isDynamoError,
} from '../../../lib/adapters/dynamodb/doc-client.js';
import {
  type Received,
  type StubService,
  sdkSignature,
  signatureOf,
  startStubService,
} from '../../support/stub-aws-json.js';

let stub: StubService;
let endpoint: string;
let received: Received[] = [];

beforeAll(async () => {
  stub = await startStubService();
  endpoint = stub.endpoint;
  received = stub.received;
});
afterAll(() => stub.close());
afterEach(() => {
  stub.received.length = 0;
  stub.answers.length = 0;
});
const answers = { push: (...a: StubService['answers']) => stub.answers.push(...a) };

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const client = (options: Partial<ConstructorParameters<typeof DynamoDocClient>[0]> = {}) =>
  new DynamoDocClient({ endpoint, region: 'eu-west-1', credentials, ...options });
const fault = (type: string, message: string, extra: object = {}) => ({
  __type: `com.amazonaws.dynamodb.v20120810#${type}`,
  message,
  ...extra,
});

/** A client of localhost:`port` with two attempts per request, counting them (each signs anew). */
function attemptCounting(port: number, options: { requestTimeoutMs?: number } = {}) {
  let attempts = 0;
  const doc = new DynamoDocClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'eu-west-1',
    credentials: async () => {
      attempts++;
      return credentials;
    },
    maxAttempts: 2,
    ...options,
  });
  return { doc, attempts: () => attempts };
}

describe('DynamoDocClient', () => {
  it('sends DynamoDB JSON with a signature the AWS SDK computes the same', async () => {
    const doc = client({ credentials: { ...credentials, sessionToken: 'session/token=' } });
    answers.push({
      status: 200,
      body: { Item: { pk: { S: 'a' }, blob: { B: 'aGk=' }, n: { N: '7' } } },
    });

    const out = await doc.get({ TableName: 't', Key: { pk: 'a', sk: 1 }, ConsistentRead: true });

    expect(out.Item).toEqual({ pk: 'a', blob: Buffer.from('hi'), n: 7 });
    const [request] = received as [Received];
    expect(request.body).toEqual({
      TableName: 't',
      Key: { pk: { S: 'a' }, sk: { N: '1' } },
      ConsistentRead: true,
    });
    expect(request.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(request.headers['x-amz-security-token']).toBe('session/token=');
    const amzDate = String(request.headers['x-amz-date']);
    const expected = await sdkSignature(request, {
      credentials: { ...credentials, sessionToken: 'session/token=' },
      region: 'eu-west-1',
      service: 'dynamodb',
    });
    expect(signatureOf(request.headers.authorization)).toBeDefined();
    expect(signatureOf(request.headers.authorization)).toBe(expected);
    expect(request.headers.authorization).toContain(
      `Credential=AKIDEXAMPLE/${amzDate.slice(0, 8)}/eu-west-1/dynamodb/aws4_request`,
    );
    doc.destroy();
  });

  it('marshals the items of a transaction and gives it one idempotency token across retries', async () => {
    const doc = client();
    answers.push({ status: 500, body: fault('InternalServerError', 'try again') });

    await doc.transactWrite({
      TransactItems: [
        { Put: { TableName: 't', Item: { pk: 'a', tags: new Set(['x']) } } },
        {
          Update: {
            TableName: 't',
            Key: { pk: 'b' },
            UpdateExpression: 'SET v = :v',
            ExpressionAttributeValues: { ':v': 2 },
          },
        },
        {
          ConditionCheck: {
            TableName: 't',
            Key: { pk: 'c' },
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      ],
    });

    expect(received).toHaveLength(2);
    const [first, second] = received as [Received, Received];
    expect(first.body.TransactItems).toEqual([
      { Put: { TableName: 't', Item: { pk: { S: 'a' }, tags: { SS: ['x'] } } } },
      {
        Update: {
          TableName: 't',
          Key: { pk: { S: 'b' } },
          UpdateExpression: 'SET v = :v',
          ExpressionAttributeValues: { ':v': { N: '2' } },
        },
      },
      {
        ConditionCheck: {
          TableName: 't',
          Key: { pk: { S: 'c' } },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    ]);
    expect(first.body.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.body.ClientRequestToken).toBe(first.body.ClientRequestToken);
    doc.destroy();
  });

  it('reads pages, their keys and unprocessed batch writes back to native values', async () => {
    const doc = client();
    answers.push({
      status: 200,
      body: {
        Items: [{ pk: { S: 'a' } }],
        Count: 1,
        ScannedCount: 3,
        LastEvaluatedKey: { pk: { S: 'a' } },
      },
    });
    answers.push({
      status: 200,
      body: { UnprocessedItems: { t: [{ DeleteRequest: { Key: { pk: { S: 'z' } } } }] } },
    });

    const page = await doc.query({
      TableName: 't',
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': 'a' },
      ExclusiveStartKey: { pk: 'start' },
    });
    const batch = await doc.batchWrite({
      RequestItems: {
        t: [{ PutRequest: { Item: { pk: 'y' } } }, { DeleteRequest: { Key: { pk: 'z' } } }],
      },
    });

    expect(page).toMatchObject({
      Items: [{ pk: 'a' }],
      ScannedCount: 3,
      LastEvaluatedKey: { pk: 'a' },
    });
    expect(received[0]?.body.ExclusiveStartKey).toEqual({ pk: { S: 'start' } });
    expect(received[1]?.body.RequestItems).toEqual({
      t: [
        { PutRequest: { Item: { pk: { S: 'y' } } } },
        { DeleteRequest: { Key: { pk: { S: 'z' } } } },
      ],
    });
    expect(batch.UnprocessedItems).toEqual({ t: [{ DeleteRequest: { Key: { pk: 'z' } } }] });
    doc.destroy();
  });

  it('throws what DynamoDB answered, by its type, with the reasons and items of a cancellation', async () => {
    const doc = client();
    answers.push({
      status: 400,
      body: fault('ConditionalCheckFailedException', 'The conditional request failed'),
    });
    answers.push({
      status: 400,
      body: fault('TransactionCanceledException', 'Transaction cancelled', {
        CancellationReasons: [
          { Code: 'None' },
          {
            Code: 'ConditionalCheckFailed',
            Message: 'failed',
            Item: { pk: { S: 'b' }, v: { N: '1' } },
          },
        ],
      }),
    });

    const put = doc.put({
      TableName: 't',
      Item: { pk: 'a' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    await expect(put).rejects.toThrow('The conditional request failed');
    await put.catch((error: unknown) => {
      expect(isDynamoError(error, 'ConditionalCheckFailedException')).toBe(true);
      expect((error as DynamoDbError).statusCode).toBe(400);
    });
    const error = await doc.transactWrite({ TransactItems: [] }).catch((e: unknown) => e);
    expect(isDynamoError(error, 'TransactionCanceledException')).toBe(true);
    expect((error as DynamoDbError).CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Message: 'failed', Item: { pk: 'b', v: 1 } },
    ]);
    expect(received).toHaveLength(2); // client errors are not retried
    doc.destroy();
  });

  it("says how many times it sent a request that failed: a retry's condition failure may meet its own first try", async () => {
    const doc = client({ maxAttempts: 3 });
    // The first try's answer is a 500 (it may have been applied), the retry's a failed condition
    // with the item as it is (ReturnValuesOnConditionCheckFailure).
    answers.push({ status: 500, body: fault('InternalServerError', 'try again') });
    answers.push({
      status: 400,
      body: fault('ConditionalCheckFailedException', 'The conditional request failed', {
        Item: { pk: { S: 'a' }, version: { N: '2' } },
      }),
    });
    const retried = await doc
      .put({ TableName: 't', Item: { pk: 'a' }, ConditionExpression: 'version = :v' })
      .then(() => undefined)
      .catch((e: unknown) => e as DynamoDbError);
    expect(isDynamoError(retried, 'ConditionalCheckFailedException')).toBe(true);
    expect(retried?.attempts).toBe(2);
    expect(retried?.Item).toEqual({ pk: 'a', version: 2 });

    answers.push({
      status: 400,
      body: fault('ConditionalCheckFailedException', 'The conditional request failed'),
    });
    const first = await doc
      .put({ TableName: 't', Item: { pk: 'a' }, ConditionExpression: 'version = :v' })
      .then(() => undefined)
      .catch((e: unknown) => e as DynamoDbError);
    expect(first?.attempts).toBe(1);
    doc.destroy();
  });

  it('retries throttling and 5xx answers up to its attempts, then throws the last', async () => {
    const doc = client({ maxAttempts: 3 });
    answers.push({
      status: 400,
      body: fault('ProvisionedThroughputExceededException', 'slow down'),
    });
    answers.push({ status: 503, body: fault('ServiceUnavailable', 'busy') });
    await expect(doc.get({ TableName: 't', Key: { pk: 'a' } })).resolves.toEqual({
      Item: undefined,
    });
    expect(received).toHaveLength(3);

    received.length = 0;
    for (let i = 0; i < 3; i++)
      answers.push({ status: 500, body: fault('InternalServerError', `fault ${i}`) });
    await expect(doc.get({ TableName: 't', Key: { pk: 'a' } })).rejects.toThrow('fault 2');
    expect(received).toHaveLength(3);
    doc.destroy();
  });

  it('retries a connection that could not be made, and gives up after its attempts', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { doc, attempts } = attemptCounting(port);
    await expect(doc.get({ TableName: 't', Key: { pk: 'a' } })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    expect(attempts()).toBe(2);
    doc.destroy();
  });

  it('gives up an attempt that gets no answer within its request timeout, and retries it', async () => {
    // A DynamoDB that takes the request and never answers (a stalled connection).
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const { doc, attempts } = attemptCounting(port, { requestTimeoutMs: 200 });
    const started = Date.now();
    await expect(doc.get({ TableName: 't', Key: { pk: 'a' } })).rejects.toMatchObject({
      code: 'UND_ERR_HEADERS_TIMEOUT',
    });
    expect(attempts()).toBe(2);
    expect(Date.now() - started).toBeLessThan(3_000);
    doc.destroy();
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('lets an intercept see and extend each request in wire form, and its answer', async () => {
    const seen: string[] = [];
    const doc = client({
      intercept: async (operation, input, send) => {
        input.ReturnConsumedCapacity = 'TOTAL';
        const output = await send();
        seen.push(`${operation} ${JSON.stringify(input.Item)} ${JSON.stringify(output)}`);
        return output;
      },
    });
    answers.push({ status: 200, body: { ConsumedCapacity: { CapacityUnits: 1 } } });

    await doc.put({ TableName: 't', Item: { pk: 'a' } });

    expect(received[0]?.body.ReturnConsumedCapacity).toBe('TOTAL');
    expect(seen).toEqual(['PutItem {"pk":{"S":"a"}} {"ConsumedCapacity":{"CapacityUnits":1}}']);
    doc.destroy();
  });

  it('refuses a value DynamoDB cannot store before sending anything', async () => {
    const doc = client();
    await expect(doc.put({ TableName: 't', Item: { pk: 'a', v: Number.NaN } })).rejects.toThrow(
      'v: NaN cannot be stored',
    );
    expect(received).toHaveLength(0);
    expect(() => new DynamoDocClient({ region: '', credentials })).toThrow(/no region/);
    expect(new DynamoDbError('X', 'm', 400, {})).toBeInstanceOf(Error);
    doc.destroy();
  });

  it("talks to its region's own DynamoDB endpoint, in every partition's domain", () => {
    // DynamoDB's regional endpoints are dynamodb.<region>.<the partition's DNS suffix>: China's
    // regions (where SWF runs too) are under amazonaws.com.cn, not amazonaws.com.
    expect(dynamoDbEndpoint('eu-west-1')).toBe('https://dynamodb.eu-west-1.amazonaws.com');
    expect(dynamoDbEndpoint('us-gov-west-1')).toBe('https://dynamodb.us-gov-west-1.amazonaws.com');
    expect(dynamoDbEndpoint('cn-north-1')).toBe('https://dynamodb.cn-north-1.amazonaws.com.cn');
    expect(dynamoDbEndpoint('cn-northwest-1')).toBe(
      'https://dynamodb.cn-northwest-1.amazonaws.com.cn',
    );
    expect(dynamoDbEndpoint('us-iso-east-1')).toBe('https://dynamodb.us-iso-east-1.c2s.ic.gov');
    expect(dynamoDbEndpoint('us-isob-east-1')).toBe(
      'https://dynamodb.us-isob-east-1.sc2s.sgov.gov',
    );
    expect(dynamoDbEndpoint('eusc-de-east-1')).toBe('https://dynamodb.eusc-de-east-1.amazonaws.eu');
  });

  it("picks the FIPS and dual-stack endpoints exactly as the AWS SDK's endpoint rules do, in every partition", async () => {
    const regions = [
      'us-east-1',
      'eu-west-1',
      'ca-central-1',
      'us-gov-west-1',
      'us-gov-east-1',
      'cn-north-1',
      'us-iso-east-1',
      'us-isob-east-1',
      'us-isof-south-1',
      'eu-isoe-west-1',
      'eusc-de-east-1',
    ];
    const sdk = new DynamoDBClient({ region: 'us-east-1', credentials });
    for (const region of regions) {
      for (const fips of [false, true]) {
        for (const dualStack of [false, true]) {
          const expected = sdk.config.endpointProvider({
            Region: region,
            UseFIPS: fips,
            UseDualStack: dualStack,
          }).url.href;
          expect(
            `${dynamoDbEndpoint(region, { fips, dualStack })}/`,
            `${region} ${fips} ${dualStack}`,
          ).toBe(expected);
        }
      }
    }
    sdk.destroy();
  });

  it('takes the endpoint from the environment as the AWS SDK does', () => {
    expect(environmentEndpoint('eu-west-1', {})).toBe('https://dynamodb.eu-west-1.amazonaws.com');
    // The service's own variable first, then the general one; both ignored when told to.
    const both = {
      AWS_ENDPOINT_URL_DYNAMODB: 'http://localhost:4566',
      AWS_ENDPOINT_URL: 'http://localhost:9999',
    };
    expect(environmentEndpoint('eu-west-1', both)).toBe('http://localhost:4566');
    expect(environmentEndpoint('eu-west-1', { AWS_ENDPOINT_URL: 'http://localhost:9999' })).toBe(
      'http://localhost:9999',
    );
    expect(
      environmentEndpoint('eu-west-1', { ...both, AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' }),
    ).toBe('https://dynamodb.eu-west-1.amazonaws.com');
    expect(environmentEndpoint('us-east-1', { AWS_USE_FIPS_ENDPOINT: 'true' })).toBe(
      'https://dynamodb-fips.us-east-1.amazonaws.com',
    );
    expect(environmentEndpoint('us-east-1', { AWS_USE_DUALSTACK_ENDPOINT: 'TRUE' })).toBe(
      'https://dynamodb.us-east-1.api.aws',
    );
    expect(environmentEndpoint('us-east-1', { AWS_USE_FIPS_ENDPOINT: 'false' })).toBe(
      'https://dynamodb.us-east-1.amazonaws.com',
    );
  });

  it('sends its requests to the endpoint AWS_ENDPOINT_URL_DYNAMODB names', async () => {
    const saved = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    try {
      const doc = new DynamoDocClient({ region: 'eu-west-1', credentials, maxAttempts: 1 });
      answers.push({ status: 200, body: { Item: { pk: { S: 'a' } } } });
      await expect(doc.get({ TableName: 't', Key: { pk: 'a' } })).resolves.toMatchObject({
        Item: { pk: 'a' },
      });
      expect(received).toHaveLength(1);
      expect(received[0]?.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
      doc.destroy();
    } finally {
      if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      else process.env.AWS_ENDPOINT_URL_DYNAMODB = saved;
    }
  });
});
