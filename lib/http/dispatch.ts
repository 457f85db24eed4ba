import { randomUUID } from 'node:crypto';
import {
  SerializationException,
  SwfFault,
  ThrottlingException,
  UnknownOperationException,
  ValidationException,
} from '../core/faults.js';
import { type ThrottlingScope, throttledEvent } from '../core/swf-metrics.js';
import { authorizeCall, type Caller, callerName } from '../operations/access.js';
import type { Operation, OperationDeps, RequestContext } from '../operations/context.js';
import { isThrottledFailure } from '../ports/transient-failure.js';
import { operationInputs, type SwfAction } from './swf-model.js';
import { validateInput } from './validate-input.js';

/** SWF's request size limit: the whole request, 1 MB. */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/**
 * The X-Amz-Target prefixes SWF answers: the SDKs' `SimpleWorkflowService.<Action>`, and the service
 * model's full name that the Developer Guide's "Making HTTP Requests to Amazon SWF" documents and
 * boto 2 (and other clients of its era) send on every call.
 */
const TARGET_PREFIXES = [
  'SimpleWorkflowService.',
  'com.amazonaws.swf.service.model.SimpleWorkflowService.',
] as const;
const CONTENT_TYPE = 'application/x-amz-json-1.0';

export interface HttpRequest {
  readonly method: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
  /** The body's true size when `body` was cut short at the limit; its length otherwise. */
  readonly size?: number;
  /**
   * Fires when the caller is gone, the server is stopping or the Lambda is about to time out: long
   * polls stop waiting and answer.
   */
  readonly signal?: AbortSignal;
  /**
   * Fires only when the caller is known to be gone (the local server sees its connection close, or
   * its FIN, on which Node's server ends the connection, before the answer): a task a long poll
   * started then goes to the next poll. Lambda cannot tell.
   */
  readonly callerGone?: AbortSignal;
  /**
   * When the edge took the request (`performance.now()` of its process): a long poll's 60 s run from
   * then, not from when its turn came among many requests arriving at once.
   */
  readonly receivedAt?: number;
  /**
   * Who is calling, as the edge that received the request tells (lib/operations/access.ts): the IAM
   * identity API Gateway or the function URL authenticated, the local signature's access key id, or
   * no caller at all (a direct Invoke of the API function).
   */
  readonly caller?: Caller;
  /** The Lambda invocation's request id, for the audit line (API Gateway's access log has it too). */
  readonly invocationId?: string;
}

/** One line per call: who did what, where, and how it ended (the audit log). */
export interface AuditEntry {
  readonly requestId: string;
  readonly invocationId?: string;
  readonly caller: string;
  readonly action: string | undefined;
  readonly domain: string | undefined;
  /** `ok`, or the fault's type (`OperationNotPermittedFault`, `InternalFailure`, …). */
  readonly outcome: string;
  readonly statusCode: number;
}

/** The audit entry as one line of JSON, as the API function and `npm start --audit-log` print it. */
export const auditLine = (entry: AuditEntry) => JSON.stringify({ audit: 'swf-call', ...entry });

export interface HttpResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface Logger {
  error(message: string, detail: Record<string, unknown>): void;
  /** What is no failure of the service but should be seen (DynamoDB throttling the table). */
  warn(message: string, detail: Record<string, unknown>): void;
}

export type Dispatcher = (request: HttpRequest) => Promise<HttpResponse>;

/** What an error that is no SWF fault is answered with (HTTP 500), as SWF's own front end does. */
export const INTERNAL_FAILURE = {
  __type: 'com.amazon.coral.service#InternalFailure',
  message: 'Internal failure',
} as const;

/** The `__type` of a call the service cannot serve now (HTTP 503, which SWF's clients retry). */
export const SERVICE_UNAVAILABLE = 'com.amazon.coral.service#ServiceUnavailableException';

/** The answer to a call the service cannot serve now, saying why: a 503 in the wire shape. */
export function serviceUnavailable(message: string): HttpResponse {
  return respond(503, randomUUID(), JSON.stringify({ __type: SERVICE_UNAVAILABLE, message }));
}

/**
 * The awsJson1_0 edge, shared by the local server and the Lambda handler: target → operation, body →
 * validated input, result or fault → response. SWF faults are 400s in the wire shape; anything else is
 * logged with its cause and answered with a generic 500.
 */
export function createDispatcher(
  operations: Partial<Record<SwfAction, Operation>>,
  deps: OperationDeps,
  logger: Logger = consoleLogger,
  audit?: (entry: AuditEntry) => void,
): Dispatcher {
  const answer = answerer(operations, deps, logger);
  if (audit === undefined) return (request) => answer(request, randomUUID(), {});
  return async (request) => {
    const requestId = randomUUID();
    const noted: { domain?: string } = {};
    const response = await answer(request, requestId, noted);
    audit({
      requestId,
      ...(request.invocationId === undefined ? {} : { invocationId: request.invocationId }),
      caller: callerName(request.caller),
      action: targetAction(request.headers['x-amz-target']),
      domain: noted.domain,
      outcome: response.statusCode === 200 ? 'ok' : faultTypeOf(response.body),
      statusCode: response.statusCode,
    });
    return response;
  };
}

function answerer(
  operations: Partial<Record<SwfAction, Operation>>,
  deps: OperationDeps,
  logger: Logger,
) {
  return async (
    request: HttpRequest,
    requestId: string,
    noted: { domain?: string },
  ): Promise<HttpResponse> => {
    const action = request.headers['x-amz-target'];
    try {
      const result = await handle(operations, deps, request, requestId, noted);
      return respond(200, requestId, result === undefined ? '' : JSON.stringify(result));
    } catch (error) {
      if (error instanceof SwfFault) {
        // A run changing faster than this request could get a change in: one workflow's rate.
        if (error instanceof ThrottlingException) noteThrottled(deps, action, 'Workflow');
        return respond(error.statusCode, requestId, JSON.stringify(error.toWire()));
      }
      // DynamoDB throttled the table (Local never does): as SWF answers a request over its rate, a
      // 400 its clients retry after a pause, not a fault of the service.
      if (isThrottledFailure(error)) {
        // Logged, as it is no longer a 500 the API's alarms count: a table throttled for long wants
        // to be seen.
        logger.warn('throttled', { requestId, action, error: describeError(error) });
        noteThrottled(deps, action, 'Account');
        const fault = new ThrottlingException('Rate exceeded; try again', { cause: error });
        return respond(fault.statusCode, requestId, JSON.stringify(fault.toWire()));
      }
      logger.error('internal failure', { requestId, action, error: describeError(error) });
      return respond(500, requestId, JSON.stringify(INTERNAL_FAILURE));
    }
  };
}

/** SWF's ThrottledEvents: the answer is a 400 the 5xx alarm never sees. */
function noteThrottled(deps: OperationDeps, target: string | undefined, scope: ThrottlingScope) {
  try {
    deps.metrics?.record([throttledEvent(targetAction(target) ?? 'unknown', scope)]);
  } catch {
    // a metric is never worth the answer
  }
}

async function handle(
  operations: Partial<Record<SwfAction, Operation>>,
  deps: OperationDeps,
  request: HttpRequest,
  requestId: string,
  audit: { domain?: string },
): Promise<object | undefined> {
  if (request.method !== 'POST') {
    throw new UnknownOperationException(
      `SWF actions are sent as POST requests, not ${request.method}`,
    );
  }
  const action = actionOf(request.headers['x-amz-target']);
  const run = operations[action];
  if (run === undefined)
    throw new UnknownOperationException(`Operation ${action} is not supported`);
  const size = request.size ?? request.body.length;
  if (size > MAX_REQUEST_BYTES) {
    throw new ValidationException(
      `Request of ${size} bytes exceeds the maximum request size of ${MAX_REQUEST_BYTES} bytes`,
    );
  }
  // A compressed body is refused; other values are ignored (boto 2 sends `amz-1.0` on every call).
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding !== undefined && COMPRESSIONS.has(encoding)) {
    throw new SerializationException(
      `Content-Encoding ${encoding} is not supported: send the JSON body uncompressed`,
    );
  }
  const input = validateInput(operationInputs[action], parseBody(request.body));
  const context: RequestContext = {
    requestId,
    signal: request.signal ?? new AbortController().signal,
    ...(request.callerGone === undefined ? {} : { callerGone: request.callerGone }),
    ...(request.receivedAt === undefined ? {} : { receivedAt: request.receivedAt }),
    // An edge that names no caller is treated as a signed request with no identity.
    caller: request.caller ?? { kind: 'signed', principal: undefined, request: new Map() },
    audit,
  };
  authorizeCall(action, input, deps, context);
  return run(input, deps, context);
}

/** The action an X-Amz-Target names (for the audit line), or the target as sent when it names none. */
function targetAction(target: string | undefined): string | undefined {
  const prefix = TARGET_PREFIXES.find((p) => target?.startsWith(p) === true);
  return prefix === undefined ? target : target?.slice(prefix.length);
}

/** The fault type of an error answer's body (`…#OperationNotPermittedFault` → the part after '#'). */
function faultTypeOf(body: string): string {
  try {
    const type: unknown = Reflect.get(JSON.parse(body) as object, '__type');
    return typeof type === 'string' ? (type.split('#').at(-1) ?? type) : 'unknown';
  } catch {
    return 'unknown';
  }
}

const COMPRESSIONS = new Set(['gzip', 'x-gzip', 'deflate', 'br', 'compress', 'x-compress', 'zstd']);

function actionOf(target: string | undefined): SwfAction {
  if (target === undefined || target === '') {
    throw new UnknownOperationException(
      'Missing X-Amz-Target header: expected SimpleWorkflowService.<Action>',
    );
  }
  const prefix = TARGET_PREFIXES.find((p) => target.startsWith(p));
  const name = prefix === undefined ? undefined : target.slice(prefix.length);
  if (name === undefined || !isAction(name))
    throw new UnknownOperationException(`Unknown operation ${target}`);
  return name;
}

const isAction = (name: string): name is SwfAction => Object.hasOwn(operationInputs, name);

/** Refuses bytes that are not UTF-8 instead of reading them as U+FFFD (two names would become one). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseBody(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new SerializationException('The request body is not valid UTF-8');
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SerializationException(`The request body is not valid JSON: ${reason}`);
  }
}

function respond(statusCode: number, requestId: string, body: string): HttpResponse {
  return {
    statusCode,
    headers: {
      'content-type': CONTENT_TYPE,
      'x-amzn-requestid': requestId,
      'content-length': String(Buffer.byteLength(body)),
    },
    body,
  };
}

function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: String(error) };
  return { name: error.name, message: error.message, stack: error.stack, cause: error.cause };
}

const consoleLogger: Logger = {
  error: (message, detail) => console.error(JSON.stringify({ level: 'error', message, ...detail })),
  warn: (message, detail) => console.warn(JSON.stringify({ level: 'warn', message, ...detail })),
};
