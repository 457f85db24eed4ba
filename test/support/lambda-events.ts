/**
 * Lambda-shaped inputs for the handler tests: a context with a deadline, DynamoDB stream events built
 * from Streams API records (what Lambda's event source hands the stream function), SQS events.
 */
import { randomUUID } from 'node:crypto';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type {
  APIGatewayProxyEventV2WithIAMAuthorizer,
  Context,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';

export const TEST_ACCOUNT = '000000000000';
export const TEST_REGION = 'us-east-1';

export function lambdaContext(
  options: { remainingMs?: number; arn?: string; name?: string } = {},
): Context {
  const name = options.name ?? 'swf-outbox';
  const deadline = Date.now() + (options.remainingMs ?? 300_000);
  const unused = () => undefined;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn:
      options.arn ?? `arn:aws:lambda:${TEST_REGION}:${TEST_ACCOUNT}:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: '2025/01/01/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unused,
    fail: unused,
    succeed: unused,
  };
}

const STREAM_ARN = `arn:aws:dynamodb:${TEST_REGION}:${TEST_ACCOUNT}:table/swf/stream/2025-01-01T00:00:00.000`;

/** A Streams API record as Lambda delivers it: same images, plus the event source fields. */
export function lambdaStreamRecord(record: _Record): DynamoDBRecord {
  const images = record.dynamodb;
  return {
    eventID: record.eventID ?? randomUUID(),
    eventName: record.eventName ?? 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: TEST_REGION,
    eventSourceARN: STREAM_ARN,
    // Lambda's event is JSON: binary values arrive as base64 text.
    dynamodb: {
      ...(images?.Keys === undefined ? {} : { Keys: asJson(images.Keys) }),
      ...(images?.NewImage === undefined ? {} : { NewImage: asJson(images.NewImage) }),
      ...(images?.OldImage === undefined ? {} : { OldImage: asJson(images.OldImage) }),
      SequenceNumber: images?.SequenceNumber ?? '0',
      SizeBytes: images?.SizeBytes ?? 0,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
    },
  };
}

/** An image as Lambda's JSON event carries it: every binary value (B, BS, nested) as base64. */
function asJson(image: Record<string, unknown>): never {
  return JSON.parse(
    JSON.stringify(image, (_key, value: unknown) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
    ),
  ) as never;
}

export const streamEvent = (records: readonly DynamoDBRecord[]): DynamoDBStreamEvent => ({
  Records: [...records],
});

/** An SQS record with the given body, as the SQS event source delivers it. */
export function sqsRecord(body: string, messageId: string = randomUUID()): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${TEST_REGION}:${TEST_ACCOUNT}:swf-timers`,
    awsRegion: TEST_REGION,
  };
}

export const sqsEvent = (records: readonly SQSRecord[]): SQSEvent => ({ Records: [...records] });

/**
 * What API Gateway's (or a function URL's) IAM authorizer puts in a payload 2.0 event's
 * `requestContext.authorizer` for a request signed with this access key id: here each key belongs to
 * a session (`sdk-session`) of the role the key is named after.
 */
export function iamAuthorizer(authorization: string | undefined) {
  const accessKey = /Credential=([^/,\s]+)\//.exec(authorization ?? '')?.[1] ?? 'AKIDEXAMPLE';
  return {
    iam: {
      accessKey,
      accountId: TEST_ACCOUNT,
      callerId: `AROAEXAMPLE:sdk-session`,
      cognitoIdentity: null,
      principalOrgId: 'o-example',
      userArn: `arn:aws:sts::${TEST_ACCOUNT}:assumed-role/${accessKey}/sdk-session`,
      userId: `AROAEXAMPLE:sdk-session`,
    },
  };
}

/**
 * The payload 2.0 event a function URL (or API Gateway's HTTP API) with IAM auth hands the API
 * function for an SWF call with this target and body.
 */
export function functionUrlEvent(
  target: string | undefined,
  body: string | undefined,
  extra: { base64?: boolean; headers?: Record<string, string>; method?: string } = {},
): APIGatewayProxyEventV2WithIAMAuthorizer {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    headers: {
      ...(target === undefined ? {} : { 'x-amz-target': target }),
      ...extra.headers,
    },
    requestContext: {
      accountId: TEST_ACCOUNT,
      apiId: 'u7x3',
      domainName: 'u7x3.lambda-url.us-east-1.on.aws',
      domainPrefix: 'u7x3',
      http: {
        method: extra.method ?? 'POST',
        path: '/',
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'x',
      },
      requestId: 'r',
      routeKey: '$default',
      stage: '$default',
      time: '',
      timeEpoch: Date.now(),
      authorizer: iamAuthorizer('Credential=test/'),
    },
    isBase64Encoded: extra.base64 === true,
    ...(body === undefined
      ? {}
      : { body: extra.base64 === true ? Buffer.from(body).toString('base64') : body }),
  };
}
