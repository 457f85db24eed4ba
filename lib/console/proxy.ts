import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Credentials, SigV4Signer } from '../aws-json/sigv4.js';
import type { ConsoleAssets } from './assets.js';
import { CONSOLE_PATH, consoleRoute } from './route.js';
import type { Signing } from './signing.js';

const JSON_TYPE = 'application/x-amz-json-1.0';
/** SWF's request size limit: the console never sends more, and the proxy reads no more. */
const MAX_BODY_BYTES = 1024 * 1024;
/** The console makes no long polls: a call that takes longer than this is given up. */
const UPSTREAM_TIMEOUT_MS = 70_000;
const SWF_TARGET = /^SimpleWorkflowService\.[A-Za-z]+$/;
/** What the endpoint's answer keeps on its way back to the page (the SDKs read the last two). */
const ANSWER_HEADERS = ['content-type', 'x-amzn-requestid', 'x-amzn-errortype'] as const;

export interface ConsoleProxyOptions {
  readonly signing: Signing;
  /** The user's credentials (the AWS SDK's default chain), asked for each call: it caches them. */
  readonly credentials: () => Promise<Credentials>;
  /** Port on 127.0.0.1; 0 picks a free one. */
  readonly port?: number;
  readonly assets?: () => Promise<ConsoleAssets>;
}

export interface RunningProxy {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The console for an endpoint that wants signed calls (a deployed stack, Amazon SWF): it serves the
 * console's pages on 127.0.0.1 and forwards the page's SWF calls (`POST /`), each signed with SigV4
 * with the user's credentials. The credentials stay in this process: the page never sees them.
 * Only pages of this origin may call it (Host and Origin checked), so no other site can make calls
 * with the user's credentials through it.
 */
export async function startConsoleProxy(options: ConsoleProxyOptions): Promise<RunningProxy> {
  const route = consoleRoute(options.assets);
  const signer = new SigV4Signer(options.signing.region, options.signing.service);
  let port = 0;
  const server = createServer((req, res) => {
    if (req.method !== 'POST' && route(req, res)) return;
    answer(req, res, { ...options, signer, port }).catch((error: unknown) => {
      console.error('console proxy: unexpected error', error);
      fault(res, 500, 'InternalFailure', 'The console proxy failed; see its output');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Forwarding extends ConsoleProxyOptions {
  readonly signer: SigV4Signer;
  readonly port: number;
}

async function answer(req: IncomingMessage, res: ServerResponse, forwarding: Forwarding) {
  const path = new URL(req.url ?? '/', 'http://proxy.invalid').pathname;
  if (req.method === 'GET' && path === '/') {
    res.writeHead(302, { location: CONSOLE_PATH }).end();
    return;
  }
  if (req.method === 'GET' && path === '/metrics') {
    // A deployed stack's metrics are in CloudWatch: the console hides its charts on a 404.
    res.writeHead(404, { 'content-type': 'text/plain' }).end('No metrics through the proxy\n');
    return;
  }
  if (req.method !== 'POST' || path !== '/') {
    req.resume();
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
    return;
  }
  const refused = refusal(req, forwarding.port);
  if (refused !== undefined) {
    req.resume();
    return fault(res, refused.status, refused.type, refused.message);
  }
  const body = await readBody(req);
  if (body === undefined)
    return fault(res, 400, 'ValidationException', `Request exceeds ${MAX_BODY_BYTES} bytes`);
  await forward(String(req.headers['x-amz-target']), body, res, forwarding);
}

/** Why a call is not forwarded: not from this proxy's own page, or no SWF action. */
function refusal(
  req: IncomingMessage,
  port: number,
): { status: number; type: string; message: string } | undefined {
  const own = [`127.0.0.1:${port}`, `localhost:${port}`];
  const host = req.headers.host ?? '';
  const origin = req.headers.origin;
  if (!own.includes(host) || (origin !== undefined && !own.some((o) => origin === `http://${o}`)))
    return {
      status: 403,
      type: 'AccessDeniedException',
      message: `The console proxy forwards calls from its own page only (Host ${host}, Origin ${origin ?? 'none'})`,
    };
  const target = req.headers['x-amz-target'];
  if (typeof target !== 'string' || !SWF_TARGET.test(target))
    return {
      status: 400,
      type: 'UnknownOperationException',
      message: `The console proxy forwards SWF actions only (X-Amz-Target: ${String(target)})`,
    };
  return undefined;
}

async function forward(target: string, body: string, res: ServerResponse, forwarding: Forwarding) {
  const { endpoint } = forwarding.signing;
  let credentials: Credentials;
  try {
    credentials = await forwarding.credentials();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return fault(
      res,
      401,
      'CredentialsProviderError',
      `No AWS credentials to sign with: ${reason} (set AWS_PROFILE, or run aws sso login / aws configure)`,
    );
  }
  const signed = forwarding.signer.sign(
    { host: endpoint.host, path: endpoint.pathname, target, contentType: JSON_TYPE },
    body,
    credentials,
  );
  const { host: _host, 'content-length': _length, ...headers } = signed;
  let upstream: Response;
  try {
    upstream = await fetch(endpoint, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = error instanceof Error ? (error.cause ?? error) : error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    return fault(res, 502, 'NetworkingError', `Could not reach ${endpoint.href}: ${reason}`);
  }
  const answerHeaders: Record<string, string> = {};
  for (const name of ANSWER_HEADERS) {
    const value = upstream.headers.get(name);
    if (value !== null) answerHeaders[name] = value;
  }
  res.writeHead(upstream.status, answerHeaders).end(Buffer.from(await upstream.arrayBuffer()));
}

/** An error as SWF answers one (its `__type` and `message`), which the console shows as such. */
function fault(res: ServerResponse, status: number, type: string, message: string): void {
  if (res.headersSent) return void res.destroy();
  res
    .writeHead(status, { 'content-type': JSON_TYPE, 'x-amzn-errortype': type })
    .end(JSON.stringify({ __type: type, message }));
}

/** The body as text, or undefined when it is over the limit. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}
