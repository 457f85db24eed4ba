import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, Server as NetServer, type Socket } from 'node:net';
import { conditionContext } from '../core/iam-keys.js';
import { apiResultOf, requestOfApiEvent } from '../http/api-event.js';
import {
  type Dispatcher,
  INTERNAL_FAILURE,
  MAX_REQUEST_BYTES,
  SERVICE_UNAVAILABLE,
} from '../http/dispatch.js';
import type { Caller } from '../operations/access.js';

/**
 * Answers a request that is no SWF call (the console's pages, say) and returns true, or returns false
 * and leaves it to the SWF endpoint. It is only asked about requests other than POSTs, so it can never
 * take an SWF call.
 */
export type RouteHook = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** What a request that comes while the server is stopping is answered with (HTTP 503). */
const STOPPING_FAULT = { __type: SERVICE_UNAVAILABLE, message: 'The server is stopping' };

/** The `__type` of a request that cannot be read as HTTP (Coral's, as for a body that is no JSON). */
const SERIALIZATION_FAULT = 'com.amazon.coral.service#SerializationException';

/** How long a request may take to arrive (Node's own advice for a server with no proxy in front). */
const REQUEST_TIMEOUT_MS = 120_000;

/** How long a stopping server lets the requests in progress finish before it drops their connections. */
const CLOSE_GRACE_MS = 10_000;
/** How long a stopping server keeps idle kept-alive connections for requests already sent on them. */
const IN_TRANSIT_MS = 100;

/**
 * Serves SWF's awsJson1_0 protocol over node:http on 127.0.0.1, through the same dispatcher as the
 * Lambda handler. A request whose caller disconnects gets its AbortSignal fired, so a long poll stops
 * waiting and never takes a task for nobody. Closing it is graceful: see closeServer.
 */
export async function startServer(
  dispatch: Dispatcher,
  options: {
    port?: number;
    host?: string;
    /**
     * The name this server answers Lambda's Invoke for, as the deployed API function (see
     * answerInvoke): what pushed tasks' events name for their workers to call directly.
     */
    apiFunction?: string;
    /** How long a request may take to arrive, headers and body (Node's requestTimeout); default 120 s. */
    requestTimeoutMs?: number;
    /** Other routes this server answers besides SWF's (see RouteHook). */
    routes?: RouteHook;
  } = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const stopping = new AbortController();
  // Every request in progress listens for the stop (and stops listening when it ends): hundreds of
  // long polls at once are no leak, and Node's warning past ten listeners would say otherwise.
  setMaxListeners(0, stopping.signal);
  const inFlight = new Set<Promise<void>>();
  // A request whose body stops arriving would otherwise hold its socket for good (there is no proxy
  // in front to drop it): Node answers 408 once this has passed. It bounds receiving the request only,
  // not the answer, so long polls are not cut.
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const checkEvery = Math.max(10, Math.min(30_000, Math.floor(requestTimeout / 4)));
  const server = createServer({ connectionsCheckingInterval: checkEvery }, (req, res) => {
    // A request that comes on a kept-alive connection once the server is stopping is turned away,
    // as a stopping service does (503: clients try again, elsewhere or later); it would otherwise
    // run on into DynamoDB Local stopping under it.
    if (stopping.signal.aborted) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/x-amz-json-1.0', connection: 'close' });
      res.end(JSON.stringify(STOPPING_FAULT));
      return;
    }
    if (req.method !== 'POST' && options.routes?.(req, res) === true) return;
    const served = serve(dispatch, req, res, stopping.signal, options.apiFunction).catch(
      (error: unknown) => {
        // A caller that hung up while sending its body has nobody to answer: nothing went wrong here.
        if (req.destroyed && !req.complete) return;
        console.error('local server: unhandled error', error);
        // Answered as any other failure of the service: SWF's clients read the body's __type.
        if (!res.headersSent)
          res
            .writeHead(500, { 'content-type': 'application/x-amz-json-1.0' })
            .end(JSON.stringify(INTERNAL_FAILURE));
      },
    );
    inFlight.add(served);
    void served.then(() => inFlight.delete(served));
  });
  server.on('clientError', answerClientError);
  // SDK clients keep sockets alive between calls, and long polls hold a request for up to 60 s.
  server.requestTimeout = requestTimeout;
  server.headersTimeout = Math.min(30_000, requestTimeout);
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

/**
 * A request whose HTTP framing is broken (a bad chunk size, a malformed header) gets a Coral-shaped
 * fault saying what is wrong, as any other bad request does, where Node would answer a bare 400.
 * A socket already answering, or gone, is only closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent === true) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
        : [
            400,
            'Bad Request',
            `The request's HTTP framing is malformed (${error.code ?? error.message})`,
          ];
  const body = JSON.stringify({ __type: SERIALIZATION_FAULT, message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/x-amz-json-1.0\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

async function serve(
  dispatch: Dispatcher,
  req: IncomingMessage,
  res: ServerResponse,
  stopping: AbortSignal,
  apiFunction: string | undefined,
): Promise<void> {
  const aborted = new AbortController();
  const gone = new AbortController();
  const left = () => {
    if (res.writableFinished) return;
    gone.abort();
    aborted.abort();
  };
  res.on('close', left);
  // The caller's FIN: Node's server ends the connection on it (no half-open connections), so an
  // answer written from then on never arrives, though the socket's close comes only a moment later.
  const callers = callersOf(req.socket);
  callers.add(left);
  // A stopping server ends long polls as their time running out would: an empty task.
  const stop = () => aborted.abort();
  if (stopping.aborted) stop();
  stopping.addEventListener('abort', stop, { once: true });
  try {
    // The path means Lambda's Invoke only for a POST (any other method is an SWF endpoint's request).
    const invoked = req.method === 'POST' ? INVOKE_PATH.exec(req.url ?? '') : null;
    if (invoked === null) await answer(dispatch, req, res, aborted.signal, gone.signal);
    else await answerInvoke(dispatch, req, res, aborted.signal, invoked, apiFunction);
  } finally {
    stopping.removeEventListener('abort', stop);
    callers.delete(left);
  }
}

/**
 * The requests in progress on a socket, told of its FIN by one listener per socket (pipelined requests
 * run at once: a listener each would pass Node's ten-listener warning).
 */
const socketCallers = new WeakMap<Socket, Set<() => void>>();
function callersOf(socket: Socket): Set<() => void> {
  let callers = socketCallers.get(socket);
  if (callers === undefined) {
    const set = new Set<() => void>();
    socket.once('end', () => {
      for (const left of [...set]) left();
    });
    socketCallers.set(socket, set);
    callers = set;
  }
  return callers;
}

async function answer(
  dispatch: Dispatcher,
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
  callerGone: AbortSignal,
): Promise<void> {
  const receivedAt = performance.now();
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
    callerGone,
    receivedAt,
    caller: signedCaller(headers.authorization, req.socket.remoteAddress),
  });
  if (!res.destroyed) res.writeHead(response.statusCode, response.headers).end(response.body);
}

/**
 * The caller of a request to the local endpoint: the access key id of its SigV4 Authorization header
 * (`AWS4-HMAC-SHA256 Credential=AKID/date/region/service/aws4_request, …`), taken as it is: the local
 * server verifies no signature, so access policies can be tried on a laptop and in tests.
 */
export function signedCaller(
  authorization: string | undefined,
  address: string | undefined,
): Caller {
  const keyId = /Credential=([^/,\s]+)\//.exec(authorization ?? '')?.[1];
  return {
    kind: 'signed',
    principal: keyId,
    request: conditionContext({
      'aws:SourceIp': address?.replace(/^::ffff:/, ''),
      'aws:SecureTransport': 'false',
    }),
  };
}

/** Lambda's limit on a RequestResponse invocation's payload (the SWF body inside has its own). */
const INVOKE_PAYLOAD_MAX_BYTES = 6 * 1024 * 1024;
/** Lambda's Invoke: `POST /2015-03-31/functions/{FunctionName}/invocations[?Qualifier=…]`. */
const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/?]+)\/invocations(?:\?(.*))?$/;

/**
 * The function and version an Invoke names: a name, `account:function:name` or an ARN, each maybe
 * with `:qualifier`, or the Qualifier parameter. Undefined when the name is not even decodable.
 */
function invokedFunction(
  invoked: RegExpExecArray,
): { readonly name: string; readonly shown: string; readonly qualifier?: string } | undefined {
  let shown: string;
  try {
    shown = decodeURIComponent(invoked[1] ?? '');
  } catch {
    return undefined;
  }
  const parts = shown.split(':');
  const at = parts.lastIndexOf('function');
  // name[:qualifier], or …:function:name[:qualifier]
  const [name = '', qualifier] = at === -1 ? parts : parts.slice(at + 1);
  const parameter = new URLSearchParams(invoked[2] ?? '').get('Qualifier') ?? undefined;
  const version = qualifier ?? parameter;
  return version === undefined ? { name, shown } : { name, shown, qualifier: version };
}

/**
 * Lambda's Invoke of the API function, as a worker calls the deployed one directly: the event, as
 * API Gateway or a function URL would have delivered the call (payload 2.0), goes through the same
 * dispatcher, and its HTTP answer comes back as the function's result (RequestResponse; an Event
 * invocation is answered 202 and run, a DryRun 204). Only `apiFunction`, by name, partial ARN or ARN,
 * as $LATEST; anything else gets Lambda's own errors.
 */
async function answerInvoke(
  dispatch: Dispatcher,
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
  invoked: RegExpExecArray,
  apiFunction: string | undefined,
): Promise<void> {
  const { body, size } = await readBody(req, INVOKE_PAYLOAD_MAX_BYTES);
  const lambdaError = (status: number, type: string, message: string) => {
    const text = JSON.stringify({ Type: 'User', Message: message });
    if (!res.destroyed)
      res
        .writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type })
        .end(text);
  };
  const target = invokedFunction(invoked);
  if (target === undefined)
    return lambdaError(400, 'ValidationException', 'The function name is not validly encoded');
  // This server has one function, in one version: $LATEST.
  const { name, shown, qualifier } = target;
  if (apiFunction === undefined || name !== apiFunction || (qualifier ?? '$LATEST') !== '$LATEST')
    return lambdaError(404, 'ResourceNotFoundException', `Function not found: ${shown}`);
  const type = req.headers['x-amz-invocation-type'] ?? 'RequestResponse';
  if (type === 'DryRun') return void res.writeHead(204).end();
  if (type !== 'RequestResponse' && type !== 'Event')
    return lambdaError(
      400,
      'InvalidParameterValueException',
      `InvocationType must be RequestResponse, Event or DryRun, not ${String(type)}`,
    );
  if (size > body.length)
    return lambdaError(
      413,
      'RequestTooLargeException',
      `Request must be smaller than ${INVOKE_PAYLOAD_MAX_BYTES} bytes for the InvokeFunction operation`,
    );
  if (type === 'Event') {
    // Lambda queues an asynchronous invocation and answers at once; its result goes nowhere.
    const queued = requestOfApiEvent(parsed(body), new AbortController().signal);
    res.writeHead(202).end();
    if (queued !== undefined)
      void dispatch({ ...queued, caller: DIRECT_INVOKE }).catch((error: unknown) =>
        console.error('local server: asynchronous invocation failed', error),
      );
    return;
  }
  const request = requestOfApiEvent(parsed(body), signal);
  const result =
    request === undefined
      ? undefined
      : apiResultOf(await dispatch({ ...request, caller: DIRECT_INVOKE }));
  if (res.destroyed) return;
  // What the deployed function does with an event that is no HTTP call: it fails (Unhandled).
  if (result === undefined)
    return void res
      .writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' })
      .end(
        JSON.stringify({ errorType: 'TypeError', errorMessage: 'The event is not an HTTP call' }),
      );
  res
    .writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' })
    .end(JSON.stringify(result));
}

/**
 * A direct Invoke carries no caller the service can trust (its event is whatever the invoker wrote,
 * `requestContext.authorizer` included): only a task token authorizes what it asks.
 */
const DIRECT_INVOKE: Caller = { kind: 'task-token' };

/** An Invoke's payload as JSON, or undefined when it is none. */
function parsed(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Reads the body, keeping at most one byte past the limit: enough for the dispatcher to refuse an
 * oversized request with a clear fault (it is told the true size) without holding it all in memory.
 */
function readBody(
  req: IncomingMessage,
  limit = MAX_REQUEST_BYTES,
): Promise<{ body: Buffer; size: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (kept > limit) return;
      const slice = chunk.subarray(0, limit + 1 - kept);
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
  // Stop listening, but leave idle kept-alive connections open for now (http's own close would end
  // them at once): a request already on its way on one is answered 503, as documented, not reset.
  const closed = new Promise<void>((resolve) =>
    NetServer.prototype.close.call(server, () => resolve()),
  );
  stopping.abort();
  const lingering = new Promise((resolve) => setTimeout(resolve, IN_TRANSIT_MS));
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CLOSE_GRACE_MS);
  });
  let over = false;
  void graceOver.then(() => {
    over = true;
  });
  // Requests taken just before the stop may still be joining the set: wait until it is empty.
  while (inFlight.size > 0 && !over) await Promise.race([Promise.all(inFlight), graceOver]);
  clearTimeout(timer);
  await lingering;
  server.closeAllConnections();
  // http's close now only stops its check of slow requests: the listener and connections are gone.
  server.close();
  await closed;
}
