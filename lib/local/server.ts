import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Dispatcher, MAX_REQUEST_BYTES } from '../http/dispatch.js';

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves SWF's awsJson1_0 protocol over node:http on 127.0.0.1, through the same dispatcher as the
 * Lambda handler. A request whose caller disconnects gets its AbortSignal fired, so a long poll stops
 * waiting and never takes a task for nobody.
 */
export async function startServer(
  dispatch: Dispatcher,
  options: { port?: number; host?: string } = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    serve(dispatch, req, res).catch((error: unknown) => {
      console.error('local server: unhandled error', error);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  // Long polls hold a request for up to 60 s; SDK clients keep sockets alive between calls.
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://${host}:${port}`, port, close: () => closeServer(server) };
}

async function serve(
  dispatch: Dispatcher,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const aborted = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  const { body, size } = await readBody(req);
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const response = await dispatch({
    method: req.method ?? 'GET',
    headers,
    body,
    size,
    signal: aborted.signal,
  });
  if (!res.destroyed) res.writeHead(response.statusCode, response.headers).end(response.body);
}

/**
 * Reads the body, keeping at most one byte past the limit: enough for the dispatcher to refuse an
 * oversized request with a clear fault (it is told the true size) without holding it all in memory.
 */
function readBody(req: IncomingMessage): Promise<{ body: Buffer; size: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (kept > MAX_REQUEST_BYTES) return;
      const slice = chunk.subarray(0, MAX_REQUEST_BYTES + 1 - kept);
      chunks.push(slice);
      kept += slice.length;
    });
    req.on('end', () => resolve({ body: Buffer.concat(chunks), size }));
    req.on('error', reject);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
