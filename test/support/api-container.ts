/**
 * One API "container" of the deployed path in a process of its own: the real API function's handler
 * (functions/shared/api-handler.ts) over DynamoDB Local, behind a small HTTP server that turns each
 * request into the HTTP API's payload 2.0 event, as API Gateway does. Nothing is shared with other
 * containers but the table: polls of different containers meet only through it. Run with
 * `node --import tsx test/support/api-container.ts`; environment: DYNAMO_ENDPOINT, TABLE_NAME,
 * POLL_MAX_WAIT_MS. It prints `container listening on <url>` once it serves.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2WithIAMAuthorizer } from 'aws-lambda';
import { createApiHandler } from '../../functions/shared/api-handler.js';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { iamAuthorizer, lambdaContext, TEST_ACCOUNT, TEST_REGION } from './lambda-events.js';

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const doc = createDocumentClient({
  endpoint: env('DYNAMO_ENDPOINT'),
  region: TEST_REGION,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const handler = createApiHandler({
  doc,
  tableName: env('TABLE_NAME'),
  region: TEST_REGION,
  accountId: TEST_ACCOUNT,
  polling: { maxWaitMs: Number(env('POLL_MAX_WAIT_MS')) },
});

function apiEvent(request: IncomingMessage, body: string): APIGatewayProxyEventV2WithIAMAuthorizer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (typeof value === 'string') headers[name] = value;
  const time = Date.now();
  return {
    version: '2.0',
    routeKey: 'POST /',
    rawPath: '/',
    rawQueryString: '',
    headers,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: TEST_ACCOUNT,
      apiId: 'container',
      domainName: 'container.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'container',
      http: {
        method: 'POST',
        path: '/',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: '',
      },
      requestId: randomUUID(),
      routeKey: 'POST /',
      stage: '$default',
      time: new Date(time).toISOString(),
      timeEpoch: time,
      authorizer: iamAuthorizer(headers.authorization),
    },
  };
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', async () => {
    const event = apiEvent(request, Buffer.concat(chunks).toString('utf8'));
    // The function's timeout behind the HTTP API: 28 s.
    const result = await handler(event, lambdaContext({ remainingMs: 28_000, name: 'swf-api' }));
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
    response.writeHead(result.statusCode ?? 200, headers).end(result.body ?? '');
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  console.log(`container listening on http://127.0.0.1:${address.port}`);
});
