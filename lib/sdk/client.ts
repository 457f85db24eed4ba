import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { SWFClient, type SWFClientConfig } from '@aws-sdk/client-swf';
import { type ApiFunction, apiFunctionTransport } from './api-function.js';
import { type SwfCall, withLeanTransport } from './lean-transport.js';

/** Where `createSwfClient` points when nothing else is said: the local server of `npm start`. */
export const DEFAULT_LOCAL_ENDPOINT = 'http://127.0.0.1:8080';

/** A long poll is held up to 60 s by the service; the socket must outlive it. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 70_000;

export interface SwfClientOptions {
  /**
   * The SWF endpoint: the local server (`http://127.0.0.1:8080`), a deployed stack's API Gateway URL,
   * or omitted for Amazon SWF in `region`. `'local'` means `$SWF_ENDPOINT` or the local default.
   */
  readonly endpoint?: string | 'local';
  /** AWS region of the client (default `$AWS_REGION`, else `us-east-1`). */
  readonly region?: string;
  /**
   * SigV4 service name. Amazon SWF expects `swf` (the default); API Gateway with IAM auth expects
   * `execute-api`.
   */
  readonly signingName?: string;
  /** SigV4 region, when it differs from `region` (default: `region`). */
  readonly signingRegion?: string;
  /**
   * Credentials. Default: fixed dummy keys for a local endpoint (the local server does not check
   * signatures), else the SDK's default provider chain (env, profile, instance role …).
   */
  readonly credentials?: SWFClientConfig['credentials'];
  /** Socket idle timeout of each request, ≥ 70 s so a 60 s long poll is never cut (default 70 s). */
  readonly requestTimeoutMs?: number;
  /** Time to establish a connection (default 5 s). */
  readonly connectionTimeoutMs?: number;
  /**
   * Concurrent sockets per host. Every idle poller holds one for up to 60 s, and every in-flight
   * activity heartbeats, so size this to pollers + concurrency (default 256).
   */
  readonly maxSockets?: number;
  /** Attempts per call, retries included, for the SDK's own retry of throttling/5xx (default 3). */
  readonly maxAttempts?: number;
  /**
   * Sees every SWF call the client makes through its lean transport once it has ended: its action,
   * input, output or error, and duration (metrics, logging).
   */
  readonly observe?: (call: SwfCall) => void;
  /**
   * Call the service's API function directly instead of an endpoint: Lambda Invoke, which IAM
   * authorizes (`lambda:InvokeFunction` on the function), with no front door in between. This is what
   * a pushed task's event names (`api`); the handlers use it. Only SWF commands sent with
   * `client.send(command)` go this way (the lean transport); anything else is refused.
   */
  readonly apiFunction?: ApiFunction;
  /**
   * SWF's commands take the lean transport (default true): the same wire calls, signatures, retries,
   * answers and faults as the SDK's own path, at a fraction of its CPU. `false` sends everything
   * through the SDK's middleware stack.
   */
  readonly leanTransport?: boolean;
}

const isLocal = (endpoint: string | undefined) =>
  endpoint !== undefined && /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(endpoint);

function resolveEndpoint(endpoint: string | undefined): string | undefined {
  if (endpoint === 'local') return process.env.SWF_ENDPOINT || DEFAULT_LOCAL_ENDPOINT;
  return endpoint;
}

/**
 * An `SWFClient` configured for workers: long-poll-safe timeouts, enough sockets for many pollers,
 * and SigV4 signing for whichever endpoint it talks to (Amazon SWF, a deployed stack behind API
 * Gateway IAM auth, or the local server).
 *
 * ```ts
 * const local = createSwfClient({ endpoint: 'local' });
 * const deployed = createSwfClient({
 *   endpoint: 'https://abc123.execute-api.eu-west-1.amazonaws.com',
 *   region: 'eu-west-1',
 *   signingName: 'execute-api',
 * });
 * ```
 */
export function createSwfClient(options: SwfClientOptions = {}): SWFClient {
  const endpoint = resolveEndpoint(options.endpoint);
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const maxSockets = options.maxSockets ?? 256;
  const credentials =
    options.credentials ??
    (isLocal(options.apiFunction?.endpoint ?? endpoint)
      ? { accessKeyId: 'local', secretAccessKey: 'local' }
      : undefined);
  const requestTimeoutMs = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, 1);
  const connectionTimeoutMs = options.connectionTimeoutMs ?? 5_000;
  const maxAttempts = options.maxAttempts ?? 3;
  const client = new SWFClient({
    region,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(credentials === undefined ? {} : { credentials }),
    ...(options.signingName === undefined ? {} : { signingName: options.signingName }),
    ...(options.signingRegion === undefined ? {} : { signingRegion: options.signingRegion }),
    maxAttempts,
    requestHandler: {
      requestTimeout: requestTimeoutMs,
      connectionTimeout: connectionTimeoutMs,
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
    },
  });
  // A client of the API function calls it by Lambda Invoke, through the lean transport only.
  const transport =
    options.apiFunction === undefined
      ? undefined
      : apiFunctionTransport(options.apiFunction, () => ({
          region,
          ...(credentials === undefined ? {} : { credentials }),
          maxAttempts,
          requestHandler: {
            requestTimeout: requestTimeoutMs,
            connectionTimeout: connectionTimeoutMs,
          },
        }));
  if (transport === undefined && options.leanTransport === false) return client;
  return withLeanTransport(client, {
    endpoint,
    region,
    signingName: options.signingName ?? 'swf',
    signingRegion: options.signingRegion ?? region,
    maxAttempts,
    requestTimeoutMs,
    connectionTimeoutMs,
    maxSockets,
    observe: options.observe,
    transport,
  });
}
