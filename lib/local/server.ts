import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Dispatcher, MAX_REQUEST_BYTES } from '../http/dispatch.js';

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** How long a stopping server lets the requests in progress finish before it drops their connections. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Serves SWF's awsJson1_0 protocol over node:http on 127.0.0.1, through the same dispatcher as the
 * Lambda handler. A request whose caller disconnects gets its AbortSignal fired, so a long poll stops
 * waiting and never takes a task for nobody. Closing it is graceful: see closeServer.
 */
export async function startServer(
  dispatch: Dispatcher,
  options: { port?: number; host?: string } = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    const served = serve(dispatch, req, res, stopping.signal).catch((error: unknown) => {
      // A caller that hung up while sending its body has nobody to answer: nothing went wrong here.
      if (req.destroyed && !req.complete) return;
      console.error('local server: unhandled error', error);
      if (!res.headersSent) res.writeHead(500).end();
    });
    inFlight.add(served);
    void served.then(() => inFlight.delete(served));
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
  return {
    url: `http://${host}:${port}`,
    port,
    close: () => closeServer(server, stopping, inFlight),
  };
}

async function serve(
  dispatch: Dispatcher,
  req: IncomingMessage,
  res: ServerResponse,
  stopping: AbortSignal,
): Promise<void> {
  const aborted = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  // A stopping server ends long polls as their time running out would: an empty task.
  const stop = () => aborted.abort();
  if (stopping.aborted) stop();
  stopping.addEventListener('abort', stop, { once: true });
  try {
    await answer(dispatch, req, res, aborted.signal);
  } finally {
    stopping.removeEventListener('abort', stop);
  }
}

async function answer(
  dispatch: Dispatcher,
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
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
    signal,
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

/**
 * Stops taking connections, answers the long polls waiting with an empty task, lets the requests in
 * progress finish (a worker whose RespondActivityTaskCompleted was recorded hears so), up to
 * CLOSE_GRACE_MS, then drops every connection left.
 */
async function closeServer(
  server: Server,
  stopping: AbortController,
  inFlight: ReadonlySet<Promise<void>>,
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  stopping.abort();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(inFlight),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
  server.closeAllConnections();
  await closed;
}
