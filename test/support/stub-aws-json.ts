/**
 * A stub AWS JSON-protocol service on localhost (what DynamoDocClient and the SDK's lean transport talk
 * to in unit tests): it records each request and answers from a queue, 200 `{}` when the queue is
 * empty. Also the AWS SDK's own SigV4 signer, to check ours against.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly body: Record<string, unknown>;
}

export interface Answer {
  readonly status: number;
  readonly body: unknown;
  /** Milliseconds before answering. */
  readonly delayMs?: number;
}

export interface StubService {
  readonly endpoint: string;
  received: Received[];
  answers: Answer[];
  close(): Promise<void>;
}

export async function startStubService(): Promise<StubService> {
  const stub: { received: Received[]; answers: Answer[] } = { received: [], answers: [] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      stub.received.push({
        path: req.url ?? '',
        headers: req.headers,
        text,
        body: JSON.parse(text),
      });
      const answer = stub.answers.shift() ?? { status: 200, body: {} };
      setTimeout(() => {
        res.writeHead(answer.status, {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-requestid': `req-${stub.received.length}`,
        });
        res.end(JSON.stringify(answer.body));
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(stub, {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** The SDK's hash over node:crypto, for its signer. */
class NodeSha256 {
  readonly #hash;
  constructor(secret?: string | Uint8Array) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret);
  }
  update(data: string | Uint8Array) {
    this.#hash.update(data);
  }
  digest() {
    return Promise.resolve(new Uint8Array(this.#hash.digest()));
  }
}

/** The signature the AWS SDK's SigV4 signer gives the request the stub received. */
export async function sdkSignature(
  request: Received,
  signing: {
    readonly credentials: {
      accessKeyId: string;
      secretAccessKey: string;
      sessionToken?: string;
    };
    readonly region: string;
    readonly service: string;
  },
): Promise<string | undefined> {
  const amzDate = String(request.headers['x-amz-date']);
  const host = String(request.headers.host);
  const signer = new SignatureV4({ ...signing, sha256: NodeSha256 as never, applyChecksum: false });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: host.split(':')[0] ?? host,
      path: request.path,
      query: {},
      headers: {
        'content-type': String(request.headers['content-type']),
        host,
        'x-amz-target': String(request.headers['x-amz-target']),
      },
      body: request.text,
    },
    {
      signingDate: new Date(
        `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
      ),
    },
  );
  return signatureOf(signed.headers.authorization);
}

/** The hex signature of an Authorization header. */
export const signatureOf = (authorization: unknown) =>
  /Signature=([0-9a-f]{64})/.exec(String(authorization))?.[1];
