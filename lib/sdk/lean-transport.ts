import * as Swf from '@aws-sdk/client-swf';
import {
  type ActivityTask,
  type DecisionTask,
  type SWFClient,
  SWFServiceException,
} from '@aws-sdk/client-swf';
import {
  AwsJsonError,
  JsonRpcClient,
  type JsonTransport,
  THROTTLING_ERRORS,
} from '../aws-json/rpc-client.js';
import { SigV4Signer } from '../aws-json/sigv4.js';

/** One SWF call a client made, as its observer sees it once it has ended. */
export interface SwfCall {
  /** The action, e.g. `PollForDecisionTask`. */
  readonly action: string;
  readonly input: unknown;
  /** What it returned, or `error` what it threw. */
  readonly output?: Readonly<Record<string, unknown>>;
  readonly error?: unknown;
  readonly durationMs: number;
}

export interface LeanTransportSettings {
  /** The endpoint, or undefined for Amazon SWF in `region` (as the SDK's endpoint rules give it). */
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly signingName: string;
  readonly signingRegion: string;
  readonly maxAttempts: number;
  readonly requestTimeoutMs: number;
  readonly connectionTimeoutMs: number;
  readonly maxSockets: number;
  readonly observe?: ((call: SwfCall) => void) | undefined;
  /**
   * How calls reach the service instead of a POST to the endpoint (see apiFunctionTransport). The
   * SDK's own path cannot go that way: a call that would take it is refused.
   */
  readonly transport?: (JsonTransport & { destroy(): void }) | undefined;
}

/**
 * Gives an `SWFClient` a lean transport for SWF's commands: the call's input posted as JSON, signed with
 * SigV4 and retried as the SDK's standard mode does (lib/aws-json), its answer read back with the
 * SDK's types (timestamps as Dates, faults as the SDK's fault classes, `$metadata`). The SDK's own
 * path costs ~0.5 ms of CPU per call in its middleware stack, endpoint rules and schema serde; a
 * worker makes a poll and a response per task, and a host running many pollers feels it.
 *
 * A call goes the SDK's way instead whenever it could behave differently there: a callback-style
 * call, a command of another service, or middleware added to the client or the command.
 */
export function withLeanTransport(client: SWFClient, settings: LeanTransportSettings): SWFClient {
  const sdkSend = client.send.bind(client);
  let customized = false;
  const stack = client.middlewareStack;
  for (const method of ['add', 'addRelativeTo', 'use', 'remove', 'removeByTag'] as const) {
    const original: (...args: never[]) => unknown = stack[method].bind(stack);
    Reflect.set(stack, method, (...args: never[]) => {
      customized = true;
      return original(...args);
    });
  }
  let rpc: Promise<JsonRpcClient> | undefined;
  const rpcClient = () => {
    rpc ??= openRpc(client, settings);
    return rpc;
  };
  const send = (command: unknown, options?: unknown, callback?: unknown): unknown => {
    const action = actionOf(command);
    if (action === undefined || customized || typeof options === 'function' || callback) {
      if (settings.transport !== undefined)
        return Promise.reject(
          new Error(
            "A client of the service's API function sends only SWF commands, through client.send(command): no callbacks, no middleware",
          ),
        );
      return Reflect.apply(sdkSend, client, [command, options, callback]);
    }
    const input = Reflect.get(command as object, 'input') as unknown;
    const signal = abortSignalOf(options);
    const call = callJson(rpcClient, action, input, signal);
    return settings.observe === undefined ? call : observed(settings.observe, action, input, call);
  };
  // The instance's own `send` shadows the class's: the client stays an SWFClient for every other use.
  Reflect.set(client, 'send', send);
  const destroy = client.destroy.bind(client);
  Reflect.set(client, 'destroy', () => {
    void rpc?.then((r) => r.destroy());
    destroy();
  });
  return client;
}

async function openRpc(client: SWFClient, settings: LeanTransportSettings): Promise<JsonRpcClient> {
  const { transport } = settings;
  if (transport !== undefined)
    return new JsonRpcClient({
      transport,
      closeTransport: transport.destroy,
      targetPrefix: 'SimpleWorkflowService',
      maxAttempts: settings.maxAttempts,
    });
  const endpoint =
    settings.endpoint ??
    client.config.endpointProvider({
      Region: settings.region,
      UseFIPS: await client.config.useFipsEndpoint(),
      UseDualStack: await client.config.useDualstackEndpoint(),
    }).url.href;
  return new JsonRpcClient({
    endpoint,
    signer: new SigV4Signer(settings.signingRegion, settings.signingName),
    targetPrefix: 'SimpleWorkflowService',
    credentials: async () => {
      const identity = await client.config.credentials();
      return {
        accessKeyId: identity.accessKeyId,
        secretAccessKey: identity.secretAccessKey,
        sessionToken: identity.sessionToken,
      };
    },
    maxAttempts: settings.maxAttempts,
    connections: settings.maxSockets,
    requestTimeoutMs: settings.requestTimeoutMs,
    connectTimeoutMs: settings.connectionTimeoutMs,
  });
}

/** The SWF action of an SDK command whose own middleware is untouched, else undefined. */
function actionOf(command: unknown): string | undefined {
  if (typeof command !== 'object' || command === null) return undefined;
  // The SDK's commands carry their operation schema: [kind, namespace, name, traits, input, output].
  const schema: unknown = Reflect.get(command, 'schema');
  if (!Array.isArray(schema) || schema[1] !== 'com.amazonaws.swf') return undefined;
  const name: unknown = schema[2];
  const own: unknown = Reflect.get(command, 'middlewareStack');
  const ownMiddleware =
    typeof own === 'object' &&
    own !== null &&
    'identify' in own &&
    typeof own.identify === 'function'
      ? (own.identify() as unknown[]).length
      : 0;
  return typeof name === 'string' && ownMiddleware === 0 ? name : undefined;
}

function abortSignalOf(options: unknown): AbortSignal | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  const signal: unknown = Reflect.get(options, 'abortSignal');
  return signal instanceof AbortSignal ? signal : undefined;
}

async function callJson(
  rpc: () => Promise<JsonRpcClient>,
  action: string,
  input: unknown,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  const body = JSON.stringify(input ?? {}, TIME_FILTERED.has(action) ? epochSeconds : undefined);
  try {
    const answer = await (await rpc()).call(action, body, { signal });
    reviveTimestamps(answer.body);
    return { ...answer.body, $metadata: metadataOf(answer) };
  } catch (error) {
    throw sdkError(error, signal);
  }
}

async function observed(
  observe: (call: SwfCall) => void,
  action: string,
  input: unknown,
  call: Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const started = performance.now();
  // The caller's hook only watches: its failure must not change the call's outcome (a poll's task
  // would be lost to its timeout).
  const tell = (call: SwfCall) => {
    try {
      observe(call);
    } catch {
      // ignored, as a failed metric is
    }
  };
  try {
    const output = await call;
    tell({ action, input, output, durationMs: performance.now() - started });
    return output;
  } catch (error) {
    tell({ action, input, error, durationMs: performance.now() - started });
    throw error;
  }
}

/** The actions whose input may hold a timestamp (an ExecutionTimeFilter's dates). */
const TIME_FILTERED = new Set([
  'ListOpenWorkflowExecutions',
  'ListClosedWorkflowExecutions',
  'CountOpenWorkflowExecutions',
  'CountClosedWorkflowExecutions',
]);

/** Dates as SWF's wire wants them: epoch seconds, as the SDK sends them. */
function epochSeconds(this: unknown, key: string, value: unknown): unknown {
  const raw: unknown = typeof this === 'object' && this !== null ? Reflect.get(this, key) : value;
  return raw instanceof Date ? raw.getTime() / 1000 : value;
}

/** The answers the SDK reads from SWF's JSON outside a call of its own (a pushed task). */
interface WireAnswers {
  readonly PollForActivityTask: ActivityTask;
  readonly PollForDecisionTask: DecisionTask;
}

/**
 * An answer of `action` in SWF's JSON wire shape (epoch-second timestamps), read as the lean transport
 * reads it after a call: a copy with its timestamp members as Dates and everything else as sent.
 */
export function readWireAnswer<A extends keyof WireAnswers>(
  _action: A,
  body: Readonly<Record<string, unknown>>,
): WireAnswers[A] {
  const copy: unknown = structuredClone(body);
  reviveTimestamps(copy);
  // As after a call, the service's answer is trusted to have its action's output shape.
  return copy as WireAnswers[A];
}

/** Every timestamp member of SWF's output shapes (its service model has these and no others). */
const TIMESTAMPS = new Set([
  'eventTimestamp',
  'startTimestamp',
  'closeTimestamp',
  'latestActivityTaskTimestamp',
  'creationDate',
  'deprecationDate',
]);

/** Turns the epoch seconds of timestamp members into Dates, in place. */
function reviveTimestamps(value: unknown): void {
  if (Array.isArray(value)) {
    for (const element of value) if (typeof element === 'object') reviveTimestamps(element);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (typeof member === 'object') reviveTimestamps(member);
    else if (typeof member === 'number' && TIMESTAMPS.has(key))
      record[key] = new Date(member * 1000);
  }
}

type FaultClass = new (options: FaultOptions) => SWFServiceException;

const isFaultClass = (value: unknown): value is FaultClass =>
  typeof value === 'function' && value.prototype instanceof SWFServiceException;

/** The SDK's class of each SWF fault, by name: every subclass of SWFServiceException it exports. */
const FAULTS: ReadonlyMap<string, FaultClass> = new Map(
  Object.entries(Swf as Record<string, unknown>).filter((entry): entry is [string, FaultClass] =>
    isFaultClass(entry[1]),
  ),
);

interface FaultOptions {
  readonly message: string;
  readonly $metadata: Record<string, unknown>;
}

/** The SDK's `$metadata` of a call's answer. */
function metadataOf(answer: {
  readonly statusCode: number;
  readonly requestId: string | undefined;
  readonly attempts: number;
  readonly totalRetryDelayMs: number;
}) {
  return {
    httpStatusCode: answer.statusCode,
    ...(answer.requestId === undefined ? {} : { requestId: answer.requestId }),
    attempts: answer.attempts,
    totalRetryDelay: answer.totalRetryDelayMs,
  };
}

/** What the SDK would have thrown: its fault classes, an SWFServiceException, or an AbortError. */
function sdkError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted === true) {
    const aborted = new Error('Request aborted', { cause: signal.reason });
    aborted.name = 'AbortError';
    return aborted;
  }
  if (!(error instanceof AwsJsonError)) return error;
  const $metadata = metadataOf(error);
  const Fault = FAULTS.get(error.name);
  const sdk =
    Fault === undefined
      ? new SWFServiceException({
          name: error.name,
          $fault: error.statusCode >= 500 ? 'server' : 'client',
          $metadata,
          message: error.message,
        })
      : new Fault({ message: error.message, $metadata });
  if (THROTTLING_ERRORS.has(error.name) || error.statusCode === 429)
    Object.assign(sdk, { $retryable: { throttling: true } });
  return sdk;
}
