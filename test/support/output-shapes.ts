import { isDeepStrictEqual } from 'node:util';
import type { SWFClient } from '@aws-sdk/client-swf';
import type { ModelShape } from '../../lib/http/model-types.js';
import { operationErrors, operationOutputs, outputShapes } from './swf-output-model.js';

/**
 * The answer-side oracle: checks what the service answered against the service model's output shape
 * (test/support/swf-output-model.ts, generated with the request side by scripts/generate-swf-model.py).
 * Each problem is one line: the member's path (`$.events[3].eventType`) and what is wrong with it:
 * a required member missing, a member of the wrong JSON type (awsJson1_0 sends timestamps as epoch
 * seconds, numbers), a value outside its enum, length or range, or a member the shape does not have.
 * Error answers are held to the action's modeled errors (errorProblems).
 */
export type OutputAction = keyof typeof operationOutputs;

export const isOutputAction = (action: string): action is OutputAction =>
  Object.hasOwn(operationOutputs, action);

/** The problems of one answer body (the raw text of a 200) to `action`; none when it conforms. */
export function answerProblems(action: OutputAction, text: string): string[] {
  const shape = operationOutputs[action];
  if (shape === null) {
    // No output shape: an empty body, or an empty JSON object, as SWF sends.
    if (text === '' || text === '{}') return [];
    return [`$: ${action} has no output, but the answer is ${text.slice(0, 200)}`];
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`$: not JSON: ${text.slice(0, 200)}`];
  }
  return shapeProblems(shape, body);
}

/** The problems of `value` as an instance of the output shape named `name`. */
export function shapeProblems(name: string, value: unknown, path = '$'): string[] {
  const shape = outputShapes[name];
  if (shape === undefined) return [`${path}: the model has no shape ${name}`];
  const out: string[] = [];
  check(shape, value, path, out);
  return out;
}

function check(shape: ModelShape, value: unknown, path: string, out: string[]): void {
  const fault = typeFault(shape, value);
  if (fault !== undefined) {
    out.push(`${path}: expected ${fault}, got ${JSON.stringify(value)?.slice(0, 100)}`);
    return;
  }
  if (shape.type === 'structure' && isObject(value)) checkStructure(shape, value, path, out);
  if (shape.type === 'list' && Array.isArray(value)) {
    checkRange(value.length, shape, 'length', path, out);
    value.forEach((item, i) => {
      out.push(...shapeProblems(shape.member, item, `${path}[${i}]`));
    });
  }
  if (shape.type === 'map' && isObject(value))
    for (const [key, item] of Object.entries(value)) {
      out.push(...shapeProblems(shape.key, key, `${path}{key ${key}}`));
      out.push(...shapeProblems(shape.value, item, `${path}.${key}`));
    }
  if (shape.type === 'string' && typeof value === 'string') {
    if (shape.enum !== undefined && !shape.enum.includes(value))
      out.push(`${path}: ${JSON.stringify(value)} is not one of ${shape.enum.join(', ')}`);
    checkRange(value.length, shape, 'length', path, out);
  }
  if ((shape.type === 'integer' || shape.type === 'long') && typeof value === 'number')
    checkRange(value, shape, 'value', path, out);
}

/** What JSON type `shape` wants when `value` is not of it (awsJson1_0: timestamps as epoch seconds). */
function typeFault(shape: ModelShape, value: unknown): string | undefined {
  switch (shape.type) {
    case 'structure':
    case 'map':
      return isObject(value) ? undefined : `a ${shape.type}`;
    case 'list':
      return Array.isArray(value) ? undefined : 'a list';
    case 'string':
      return typeof value === 'string' ? undefined : 'a string';
    case 'integer':
    case 'long':
      return Number.isInteger(value) ? undefined : shape.type === 'long' ? 'a long' : 'an integer';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'a boolean';
    case 'timestamp':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : 'a timestamp (epoch seconds)';
  }
}

function checkStructure(
  shape: Extract<ModelShape, { type: 'structure' }>,
  value: Record<string, unknown>,
  path: string,
  out: string[],
): void {
  for (const member of shape.required ?? [])
    if (!Object.hasOwn(value, member)) out.push(`${path}.${member}: required, missing`);
  for (const [member, item] of Object.entries(value)) {
    const memberShape = shape.members[member];
    if (memberShape === undefined) out.push(`${path}.${member}: unknown member`);
    else out.push(...shapeProblems(memberShape, item, `${path}.${member}`));
  }
}

function checkRange(
  n: number,
  shape: { readonly min?: number; readonly max?: number },
  what: 'length' | 'value',
  path: string,
  out: string[],
): void {
  if (shape.min !== undefined && n < shape.min)
    out.push(`${path}: ${what} ${n} < min ${shape.min}`);
  if (shape.max !== undefined && n > shape.max)
    out.push(`${path}: ${what} ${n} > max ${shape.max}`);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The errors AWS documents as common to every service ("Common Errors" in each API reference) that an
 * awsJson1_0 service may answer: Coral's framework errors (a request it cannot read or validate, an
 * unknown target, throttling, a failure of its own) and the authentication and authorization errors
 * of its front end. The common list's query-protocol errors (InvalidAction, InvalidParameterCombination,
 * InvalidParameterValue, InvalidQueryParameter, MalformedQueryString, MissingAction, MissingParameter,
 * and InvalidClientTokenId, OptInRequired, NotAuthorized, which JSON services answer as
 * UnrecognizedClientException and AccessDeniedException) name parts of a query string an awsJson
 * request does not have, and are left out.
 */
export const COMMON_ERRORS: ReadonlySet<string> = new Set([
  'ValidationException',
  'SerializationException',
  'UnknownOperationException',
  'ThrottlingException',
  'AccessDeniedException',
  'InternalFailure',
  'ServiceUnavailable',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'RequestExpired',
]);

/**
 * The error's code as the SDKs read it from `__type`: the name after the namespace's `#`, without
 * anything after a `:` or `,` (the awsJson1_0 protocol).
 */
export const errorCode = (type: string): string =>
  (type.slice(type.lastIndexOf('#') + 1).split(/[:,]/)[0] ?? '').trim();

/**
 * The problems of one error answer (HTTP status >= 300) to `action`; none when it conforms. Its
 * `__type` must name one of the action's modeled errors (answered with HTTP 400, as all SWF's faults
 * are) or an error common to every awsJson service (COMMON_ERRORS): an SDK makes an error its
 * exception class only from the operation's own error list (the AWS SDK for Go v2, Rust, and the
 * JavaScript v3 releases before its schemas), so a fault the action does not list reaches the
 * caller as a generic error. The body has a string `message` (or `Message`, which the SDKs also read)
 * and no member the error's shape lacks.
 */
export function errorProblems(action: OutputAction, status: number, text: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`$: not JSON: ${text.slice(0, 200)}`];
  }
  if (!isObject(body)) return [`$: expected an error structure, got ${text.slice(0, 200)}`];
  const type = body.__type;
  if (typeof type !== 'string') return [`$.__type: expected the error's name, got ${String(type)}`];
  const code = errorCode(type);
  const modeled = operationErrors[action];
  const out: string[] = [];
  let shape: ModelShape | undefined;
  if (modeled.includes(code)) {
    shape = outputShapes[code];
    if (status !== 400) out.push(`$: ${code} is answered with HTTP 400, not ${status}`);
  } else if (!COMMON_ERRORS.has(code)) {
    return [
      `$.__type: ${code} is not one of ${action}'s errors (${modeled.join(', ')}) nor common`,
    ];
  }
  const members = shape?.type === 'structure' ? shape.members : { message: 'ErrorMessage' };
  const message = body.message ?? body.Message;
  if (typeof message !== 'string')
    out.push(`$.message: expected a string, got ${JSON.stringify(message)?.slice(0, 100)}`);
  for (const [member, value] of Object.entries(body)) {
    // The message is checked above, under either spelling.
    if (member === '__type' || member === 'message' || member === 'Message') continue;
    const memberShape = members[member];
    if (memberShape === undefined) out.push(`$.${member}: unknown member of ${code}`);
    else out.push(...shapeProblems(memberShape, value, `$.${member}`));
  }
  return out;
}

/** One answer a client was given: its action, HTTP status and raw body. */
export interface RawAnswer {
  readonly action: string;
  readonly status: number;
  readonly text: string;
}

/** The lists each client's answers go to (one reader of the body per client, however many lists). */
const recorders = new WeakMap<SWFClient, RawAnswer[][]>();

/**
 * Keeps the raw body of every answer `client` is given (read before the SDK parses it, which drops
 * unknown members and checks no required one), then hands the SDK the same bytes. Each call gets a
 * list of its own: a test and its test server (startTestServer) may both record one client.
 */
export function recordAnswers(client: SWFClient): RawAnswer[] {
  const answers: RawAnswer[] = [];
  const lists = recorders.get(client);
  if (lists !== undefined) {
    lists.push(answers);
    return answers;
  }
  const all = [answers];
  recorders.set(client, all);
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const { request } = args as { request: { headers: Record<string, string | undefined> } };
      const { response } = result as { response: { statusCode: number; body: unknown } };
      const chunks: Buffer[] = [];
      for await (const chunk of response.body as AsyncIterable<Buffer>) chunks.push(chunk);
      const bytes = Buffer.concat(chunks);
      // The SDK takes a body already read as its bytes.
      response.body = new Uint8Array(bytes);
      const target = request.headers['x-amz-target'] ?? '';
      const answer = {
        action: target.slice(target.lastIndexOf('.') + 1),
        status: response.statusCode,
        text: bytes.toString('utf8'),
      };
      for (const list of all) list.push(answer);
      return result;
    },
    // Below the SDK's deserializer: the response as it came off the wire.
    { step: 'deserialize', priority: 'low', name: 'recordRawAnswers' },
  );
  return answers;
}

/**
 * The problems of every answer among `answers` (a 200's body against the action's output shape, an
 * error's against its modeled errors), each line prefixed with its action and index.
 */
export function answersProblems(answers: readonly RawAnswer[]): string[] {
  return answers.flatMap((answer, i) => {
    if (!isOutputAction(answer.action)) return [`#${i} ${answer.action}: not an SWF action`];
    if (answer.status === 200)
      return answerProblems(answer.action, answer.text).map((p) => `#${i} ${answer.action} ${p}`);
    return errorProblems(answer.action, answer.status, answer.text).map(
      (p) => `#${i} ${answer.action} (HTTP ${answer.status}) ${p}`,
    );
  });
}

/**
 * Named exception (a documented choice): a long poll that times out is
 * answered with SWF's "empty task", which has no taskToken, so none of the task's other required
 * members either: `{"startedEventId":0,"previousStartedEventId":0}` for a decision task and
 * `{"startedEventId":0}` for an activity task, as SWF's own clients expect. Only these bodies are it.
 */
const EMPTY_POLL_ANSWERS: Readonly<Record<string, object>> = {
  PollForDecisionTask: { startedEventId: 0, previousStartedEventId: 0 },
  PollForActivityTask: { startedEventId: 0 },
};

/** Whether `answer` is the empty task of a long poll that timed out (see EMPTY_POLL_ANSWERS). */
export function isEmptyPoll(answer: RawAnswer): boolean {
  const empty = EMPTY_POLL_ANSWERS[answer.action];
  return (
    answer.status === 200 &&
    empty !== undefined &&
    isDeepStrictEqual(JSON.parse(answer.text || 'null'), empty)
  );
}

/**
 * Named exceptions: documented differences (docs/swf-differences.md) whose values the
 * model does not hold. Each excuses only the problems its pattern matches, and the test counts them.
 */
export const KNOWN_DIFFERENCES: readonly { readonly name: string; readonly problem: RegExp }[] = [
  {
    // docs/swf-differences.md, "Lambda tasks": SWF documents that an execution without a lambdaRole fails to schedule
    // a Lambda function but names no cause; the service records OPERATION_NOT_PERMITTED, which
    // ScheduleLambdaFunctionFailedCause does not list.
    name: 'lambda-without-role',
    problem:
      /\.scheduleLambdaFunctionFailedEventAttributes\.cause: "OPERATION_NOT_PERMITTED" is not one of /,
  },
  {
    // docs/swf-differences.md, "Faults for undocumented cases": registering a type in a deprecated domain answers
    // DomainDeprecatedFault, which Register*Type's modeled errors do not list (SWF documents only
    // that the registration is refused).
    name: 'register-type-in-deprecated-domain',
    problem:
      /^#\d+ Register(Activity|Workflow)Type \(HTTP 400\) \$\.__type: DomainDeprecatedFault is not one of /,
  },
  {
    // The same entry: starting an execution in a deprecated domain, of a type undeprecated
    // since, answers DomainDeprecatedFault, which StartWorkflowExecution's errors do not list.
    name: 'start-in-deprecated-domain',
    problem:
      /^#\d+ StartWorkflowExecution \(HTTP 400\) \$\.__type: DomainDeprecatedFault is not one of /,
  },
];

/** The problems no named exception excuses; those it does are counted in `excused`, by name. */
export function unexcused(problems: readonly string[], excused: Map<string, number>): string[] {
  return problems.filter((problem) => {
    const known = KNOWN_DIFFERENCES.find((difference) => difference.problem.test(problem));
    if (known !== undefined) excused.set(known.name, (excused.get(known.name) ?? 0) + 1);
    return known === undefined;
  });
}
