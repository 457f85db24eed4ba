import { randomUUID } from 'node:crypto';
import { SWFServiceException } from '@aws-sdk/client-swf';
import { expect } from 'vitest';

/** A name no other test uses (identifier-safe: letters, digits and '-'). */
export const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** What a call returned, without the SDK's `$metadata`: what the service sent, as the SDK read it. */
export function payload<T extends { $metadata: unknown }>(output: T): Omit<T, '$metadata'> {
  const { $metadata: _metadata, ...rest } = output;
  return rest;
}

/** Awaits a call that must fail, returning what it threw; fails the test if it succeeded. */
async function failure(call: Promise<unknown>, expected: string): Promise<unknown> {
  return call.then(
    (value: unknown) => {
      throw new Error(`expected ${expected}, but the call succeeded: ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/**
 * Asserts that a call fails with one of the SDK's own fault classes (so the wire `__type` resolved to
 * the modeled fault) and, when given, the exact message.
 */
export async function expectFault<E extends Error>(
  call: Promise<unknown>,
  fault: new (...args: never[]) => E,
  message?: string | RegExp,
): Promise<E> {
  const error = await failure(call, fault.name);
  expect(error).toBeInstanceOf(fault);
  if (!(error instanceof fault)) throw new Error('unreachable');
  expect(error).toBeInstanceOf(SWFServiceException);
  if (error instanceof SWFServiceException) {
    expect(error.$fault).toBe('client');
    expect(error.$metadata.httpStatusCode).toBe(400);
  }
  if (typeof message === 'string') expect(error.message).toBe(message);
  if (message instanceof RegExp) expect(error.message).toMatch(message);
  return error;
}

/**
 * Asserts a failure with a framework (non-modeled) error: the SDK has no class for it, so it is a
 * generic SWFServiceException named after the wire code.
 */
export async function expectServiceError(
  call: Promise<unknown>,
  name: 'ValidationException' | 'SerializationException' | 'UnknownOperationException',
  message?: string | RegExp,
): Promise<SWFServiceException> {
  const error = await failure(call, name);
  expect(error).toBeInstanceOf(SWFServiceException);
  if (!(error instanceof SWFServiceException)) throw new Error('unreachable');
  expect(error.name).toBe(name);
  expect(error.$fault).toBe('client');
  expect(error.$metadata.httpStatusCode).toBe(400);
  if (typeof message === 'string') expect(error.message).toBe(message);
  if (message instanceof RegExp) expect(error.message).toMatch(message);
  return error;
}

/** A ValidationException for one member, as Coral words it. */
export const oneViolation = (value: string | null, path: string, constraint: string) =>
  `1 validation error detected: Value ${value === null ? 'null' : `'${value}'`} at '${path}' failed to satisfy constraint: ${constraint}`;

export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** A raw awsJson1_0 request, for what the SDK cannot send (wrong JSON types, bad targets, …). */
export async function rawRequest(
  endpoint: string,
  options: { target?: string; body?: string | Buffer; headers?: Record<string, string> },
): Promise<RawResponse> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    ...(options.target === undefined ? {} : { 'x-amz-target': options.target }),
    ...options.headers,
  };
  const response = await fetch(endpoint, { method: 'POST', headers, body: options.body ?? '{}' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** POSTs `body` (serialized as JSON) to `SimpleWorkflowService.<action>`. */
export const rawCall = (endpoint: string, action: string, body: unknown) =>
  rawRequest(endpoint, { target: `SimpleWorkflowService.${action}`, body: JSON.stringify(body) });

/** Asserts an error response in the wire shape `{"__type": "<namespace>#<Name>", "message": …}`. */
export function expectWireError(
  response: RawResponse,
  type: string,
  message?: string | RegExp,
): { __type: string; message: string } {
  expect(response.status, response.text).toBe(400);
  expect(response.headers.get('content-type')).toBe('application/x-amz-json-1.0');
  const body: unknown = JSON.parse(response.text);
  expect(body).toStrictEqual({ __type: type, message: expect.any(String) });
  if (!isWireError(body)) throw new Error(`not a wire error: ${response.text}`);
  if (typeof message === 'string') expect(body.message).toBe(message);
  if (message instanceof RegExp) expect(body.message).toMatch(message);
  return body;
}

const isWireError = (body: unknown): body is { __type: string; message: string } =>
  typeof body === 'object' &&
  body !== null &&
  '__type' in body &&
  typeof body.__type === 'string' &&
  'message' in body &&
  typeof body.message === 'string';

/** Whether a response is an SWF-shaped fault: 400 with a JSON `__type` and a non-empty message. */
export function isSwfFault(response: RawResponse): boolean {
  if (response.status !== 400) return false;
  try {
    const body: unknown = JSON.parse(response.text);
    return isWireError(body) && body.message !== '';
  } catch {
    return false;
  }
}

/**
 * Asserts an SWF-shaped fault (see isSwfFault) and, when given, its exact wire `__type`; `context`
 * (what was sent) is the message of a failure, for checks that send many requests.
 */
export function expectSwfFault(response: RawResponse, type?: string, context = ''): void {
  const what = `${context} → ${response.status} ${response.text}`;
  expect(isSwfFault(response), what).toBe(true);
  if (type !== undefined) expect(JSON.parse(response.text).__type, what).toBe(type);
}

/** POSTs `body` to `action` and asserts the answer is an SWF-shaped fault (of `type` when given). */
export async function expectCallFault(
  endpoint: string,
  action: string,
  body: unknown,
  type?: string,
): Promise<void> {
  const response = await rawCall(endpoint, action, body);
  expectSwfFault(response, type, `${action} ${JSON.stringify(body)}`);
}

export const wireType = {
  validation: 'com.amazon.coral.validate#ValidationException',
  serialization: 'com.amazon.coral.service#SerializationException',
  unknownOperation: 'com.amazon.coral.service#UnknownOperationException',
  fault: (name: string) => `com.amazonaws.swf.base.model#${name}`,
} as const;

/** Asserts that a Date is "now" (the service's clock is the test machine's), give or take `slackMs`. */
export function expectRecent(date: Date | undefined, since: number, slackMs = 2_000): void {
  expect(date).toBeInstanceOf(Date);
  const ms = date?.getTime() ?? Number.NaN;
  expect(ms).toBeGreaterThanOrEqual(since - slackMs);
  expect(ms).toBeLessThanOrEqual(Date.now() + slackMs);
}
