import { Pool } from 'undici';
import type { Credentials, SigV4Signer } from './sigv4.js';
import { sleep } from './sleep.js';

export type Json = Record<string, unknown>;

interface CommonOptions {
  /** X-Amz-Target's prefix: `DynamoDB_20120810`, `SimpleWorkflowService`, `DynamoDBStreams_20120810`. */
  readonly targetPrefix: string;
  /** `application/x-amz-json-1.0` unless the protocol is awsJson1_1. */
  readonly contentType?: string;
  /** Attempts per call for throttling, 5xx answers and broken connections (3, as the AWS SDK's). */
  readonly maxAttempts?: number;
}

/**
 * How a call reaches the service when it is not an HTTP POST to an endpoint (the Invoke of a Lambda
 * function that serves the protocol): the call's target, content type and body in, the service's
 * answer out, as the POST would have had them. It throws when no answer came.
 */
export type JsonTransport = (call: {
  readonly target: string;
  readonly contentType: string;
  readonly body: string;
  readonly signal: AbortSignal | undefined;
}) => Promise<RawAnswer>;

/** Calls through a transport of the caller's. */
export interface JsonTransportOptions extends CommonOptions {
  readonly transport: JsonTransport;
  /** Lets go of what the transport holds open (called by destroy). */
  readonly closeTransport?: () => void;
}

export interface JsonRpcOptions extends CommonOptions {
  /** Scheme, host, port and path (`/` unless the endpoint has one). */
  readonly endpoint: string | URL;
  readonly signer: SigV4Signer;
  readonly credentials: () => Promise<Credentials>;
  /** Keep-alive connections to the endpoint at most (calls beyond them wait their turn). */
  readonly connections?: number;
  /** Longest wait for an answer to begin, and between its body's chunks (default 300 s). */
  readonly requestTimeoutMs?: number;
  /** Longest wait for a connection (default 10 s). */
  readonly connectTimeoutMs?: number;
}

/** One call's answer, and what it took to get it. */
export interface JsonAnswer {
  readonly body: Json;
  readonly statusCode: number;
  readonly requestId: string | undefined;
  readonly attempts: number;
  readonly totalRetryDelayMs: number;
}

/** What the service answered with an error status: `name` is its `__type` without the namespace. */
export class AwsJsonError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly statusCode: number,
    /** The whole answer (DynamoDB puts CancellationReasons and Item beside the message). */
    readonly body: Json,
    readonly requestId: string | undefined,
    readonly attempts: number,
    readonly totalRetryDelayMs: number,
  ) {
    super(message);
  }
}

/**
 * An AWS JSON-protocol API (awsJson1_0/1_1: every call a signed POST of a JSON body to `/`, the
 * operation in X-Amz-Target) over keep-alive connections. Retries as the AWS SDK's standard mode
 * does: throttling, 5xx answers and broken connections, with jittered exponential backoff. A call
 * aborted through its signal is never retried.
 *
 * It does what the AWS SDK's clients do for these protocols at a fraction of their CPU per call
 * (no middleware stack, endpoint rules or schema serde; undici instead of node:http): the service
 * makes 15–25 DynamoDB requests per activity round trip, and its SDK workers 5 SWF calls.
 */
export class JsonRpcClient {
  readonly #targetPrefix: string;
  readonly #contentType: string;
  readonly #maxAttempts: number;
  readonly #transport: JsonTransport;
  readonly #close: () => void;

  constructor(options: JsonRpcOptions | JsonTransportOptions) {
    this.#targetPrefix = options.targetPrefix;
    this.#contentType = options.contentType ?? 'application/x-amz-json-1.0';
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    if ('transport' in options) {
      this.#transport = options.transport;
      this.#close = options.closeTransport ?? (() => {});
      return;
    }
    const url = new URL(options.endpoint);
    const timeout = options.requestTimeoutMs ?? 300_000;
    const pool = new Pool(url.origin, {
      connections: options.connections ?? 50,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    });
    this.#close = () => void pool.destroy().catch(() => {});
    const place = { host: url.host, path: url.pathname === '' ? '/' : url.pathname };
    this.#transport = (call) => post(pool, place, options, call);
  }

  /** Calls `operation` with `body` (JSON text); throws AwsJsonError for an error answer. */
  async call(
    operation: string,
    body: string,
    options: { readonly signal?: AbortSignal | undefined } = {},
  ): Promise<JsonAnswer> {
    const target = `${this.#targetPrefix}.${operation}`;
    const linked = linkedSignal(options.signal);
    try {
      return await this.#attempts(target, body, linked.signal);
    } finally {
      linked.release();
    }
  }

  async #attempts(
    target: string,
    body: string,
    signal: AbortSignal | undefined,
  ): Promise<JsonAnswer> {
    let totalRetryDelayMs = 0;
    for (let attempt = 1; ; attempt++) {
      let answer: RawAnswer | undefined;
      let failure: unknown;
      try {
        answer = await this.#transport({ target, contentType: this.#contentType, body, signal });
      } catch (error) {
        failure = error;
      }
      const parsed = answer === undefined ? undefined : parseBody(answer.text);
      if (answer !== undefined && answer.statusCode < 300 && parsed !== undefined)
        return {
          body: parsed,
          statusCode: answer.statusCode,
          requestId: answer.requestId,
          attempts: attempt,
          totalRetryDelayMs,
        };
      const error =
        answer === undefined ? failure : errorOf(answer, parsed, attempt, totalRetryDelayMs);
      const base = signal?.aborted === true ? undefined : retryDelayBase(error);
      if (base === undefined || attempt >= this.#maxAttempts) throw error;
      const delay = Math.random() * Math.min(20_000, base * 2 ** attempt);
      totalRetryDelayMs += delay;
      await sleep(delay, signal);
    }
  }

  /** Closes the keep-alive connections (or what the transport holds); calls still in flight fail. */
  destroy(): void {
    this.#close();
  }
}

/** A signed POST of the call to the endpoint, over the pool's keep-alive connections. */
async function post(
  pool: Pool,
  { host, path }: { readonly host: string; readonly path: string },
  options: JsonRpcOptions,
  call: Parameters<JsonTransport>[0],
): Promise<RawAnswer> {
  const credentials = await options.credentials();
  const headers = options.signer.sign(
    { host, path, target: call.target, contentType: call.contentType },
    call.body,
    credentials,
  );
  const response = await pool.request({
    method: 'POST',
    path,
    headers,
    body: call.body,
    ...(call.signal === undefined ? {} : { signal: call.signal }),
  });
  const requestId = response.headers['x-amzn-requestid'];
  return {
    statusCode: response.statusCode,
    text: await response.body.text(),
    requestId: typeof requestId === 'string' ? requestId : undefined,
  };
}

/** The per-call controllers linked to each caller's signal. */
const linkedCalls = new WeakMap<AbortSignal, Set<AbortController>>();

/**
 * A signal of the call's own that aborts with the caller's. However many calls share one signal (a
 * worker's pollers share theirs) it gets one listener, not one per call: Node warns past ten.
 */
function linkedSignal(signal: AbortSignal | undefined): {
  readonly signal: AbortSignal | undefined;
  release(): void;
} {
  if (signal === undefined) return { signal: undefined, release: () => {} };
  const own = new AbortController();
  if (signal.aborted) {
    own.abort(signal.reason);
    return { signal: own.signal, release: () => {} };
  }
  let calls = linkedCalls.get(signal);
  if (calls === undefined) {
    const created = new Set<AbortController>();
    calls = created;
    linkedCalls.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        for (const call of created) call.abort(signal.reason);
        created.clear();
      },
      { once: true },
    );
  }
  const registry = calls;
  registry.add(own);
  return { signal: own.signal, release: () => registry.delete(own) };
}

/** What the service answered: its status, body text and request id. */
export interface RawAnswer {
  readonly statusCode: number;
  readonly text: string;
  readonly requestId: string | undefined;
}

function errorOf(
  answer: RawAnswer,
  parsed: Json | undefined,
  attempts: number,
  totalRetryDelayMs: number,
): AwsJsonError {
  // awsJson names the error in __type ("namespace#Name") or, from some services, x-amzn-errortype.
  const type = String(parsed?.__type ?? parsed?.code ?? `HTTP${answer.statusCode}`);
  const message = String(parsed?.message ?? parsed?.Message ?? answer.text.slice(0, 200));
  return new AwsJsonError(
    type.slice(type.lastIndexOf('#') + 1).split(':')[0] ?? type,
    message,
    answer.statusCode,
    parsed ?? {},
    answer.requestId,
    attempts,
    totalRetryDelayMs,
  );
}

/** The error names the AWS SDK's standard retry mode treats as throttling. */
export const THROTTLING_ERRORS: ReadonlySet<string> = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);

/** The backoff base of an error worth another attempt (as the SDK's standard mode), or undefined. */
function retryDelayBase(error: unknown): number | undefined {
  if (error instanceof AwsJsonError) {
    if (THROTTLING_ERRORS.has(error.name) || error.statusCode === 429) return 500;
    return error.statusCode >= 500 ? 100 : undefined;
  }
  if (!(error instanceof Error) || error.name === 'AbortError') return undefined;
  // No answer: the connection broke, timed out or could not be made (ECONNRESET, ECONNREFUSED,
  // UND_ERR_SOCKET, UND_ERR_HEADERS_TIMEOUT, ...).
  return 'code' in error ? 100 : undefined;
}

const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseBody(text: string): Json | undefined {
  if (text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isJson(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
