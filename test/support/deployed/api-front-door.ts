/**
 * API Gateway's HTTP API in front of a function, on a local port: each HTTP request becomes the
 * payload 2.0 event API Gateway sends (its IAM authorizer's caller context included), and the function's
 * result becomes the HTTP answer. As API Gateway, it never tells the function that a caller left: an
 * invocation runs to its end whatever the connection does.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  APIGatewayProxyEventV2WithIAMAuthorizer,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';
import { iamAuthorizer, TEST_ACCOUNT } from '../lambda-events.js';

export type ApiEvent = APIGatewayProxyEventV2WithIAMAuthorizer;
export type ApiAnswer = APIGatewayProxyStructuredResultV2 | string;

let requests = 0;

/** The payload 2.0 event of one HTTP request, its body as text or (`base64`) as API Gateway encodes binary. */
export function apiEventOf(request: IncomingMessage, raw: Buffer, base64 = false): ApiEvent {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers))
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  const now = new Date();
  return {
    version: '2.0',
    routeKey: 'POST /',
    rawPath: request.url ?? '/',
    rawQueryString: '',
    headers,
    requestContext: {
      accountId: TEST_ACCOUNT,
      apiId: 'abc123',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: {
        method: request.method ?? 'POST',
        path: request.url ?? '/',
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: `req-${(++requests).toString(36)}`,
      routeKey: 'POST /',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      authorizer: iamAuthorizer(headers.authorization),
    },
    isBase64Encoded: base64,
    ...(raw.length === 0 ? {} : { body: base64 ? raw.toString('base64') : raw.toString('utf8') }),
  };
}

/** The HTTP answer API Gateway makes of a function's result: a bare string is a 200 with it as body. */
export function writeApiAnswer(res: ServerResponse, answer: ApiAnswer): void {
  const r = typeof answer === 'string' ? { statusCode: 200, body: answer } : answer;
  res.writeHead(r.statusCode ?? 200, (r.headers ?? {}) as Record<string, string>);
  res.end(r.isBase64Encoded ? Buffer.from(r.body ?? '', 'base64') : (r.body ?? ''));
}

export interface FrontDoor {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `invoke` on 127.0.0.1. A function that fails (or is throttled) is answered as API Gateway
 * answers an integration failure: 500 `{"message":"Internal Server Error"}`, or 429 when Lambda
 * throttled the invocation.
 */
export async function startApiFrontDoor(
  invoke: (event: ApiEvent) => Promise<ApiAnswer>,
): Promise<FrontDoor> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      invoke(apiEventOf(req, Buffer.concat(chunks))).then(
        (answer) => writeApiAnswer(res, answer),
        (error: unknown) => {
          const throttled = (error as Error).name === 'TooManyRequestsException';
          res.writeHead(throttled ? 429 : 500, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              message: throttled ? 'Too Many Requests' : 'Internal Server Error',
            }),
          );
        },
      );
    });
  });
  server.keepAliveTimeout = 75_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}
