import { conditionContext } from '../core/iam-keys.js';
import type { Caller } from '../operations/access.js';
import type { HttpRequest, HttpResponse } from './dispatch.js';

/**
 * The HTTP call an API Gateway HTTP API or function URL event (payload 2.0) carries, as the dispatcher
 * takes it (header names in lower case, the body decoded), or undefined for an event that carries
 * none. The API function reads its events with it, and the local server the Invokes it serves.
 */
export function requestOfApiEvent(event: unknown, signal: AbortSignal): HttpRequest | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const method = member(member(member(event, 'requestContext'), 'http'), 'method');
  const headers: unknown = Reflect.get(event, 'headers');
  const text: unknown = Reflect.get(event, 'body') ?? '';
  if (
    typeof method !== 'string' ||
    typeof headers !== 'object' ||
    headers === null ||
    typeof text !== 'string'
  )
    return undefined;
  const lower: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers))
    if (typeof value === 'string') lower[name.toLowerCase()] = value;
  const base64 = Reflect.get(event, 'isBase64Encoded') === true;
  const body = Buffer.from(text, base64 ? 'base64' : 'utf8');
  return { method, headers: lower, body, size: body.length, signal };
}

/** The dispatcher's answer as the API function's result (payload 2.0's structured result). */
export const apiResultOf = (response: HttpResponse) => ({
  statusCode: response.statusCode,
  headers: response.headers,
  body: response.body,
  isBase64Encoded: false,
});

/** An object's member, or undefined when the value is no object (Reflect.get throws on one). */
const member = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;

/**
 * Who made the call an API Gateway HTTP API or function URL event carries: the identity its IAM
 * authorizer authenticated (`requestContext.authorizer.iam`), or no caller when the event has none
 * (a direct Invoke of the function, which only a task token may authorize). The front door's
 * function trusts this because only API Gateway, or the function URL, may invoke it; the function
 * that workers invoke directly never reads it (see functions/api.ts).
 */
export function callerOfApiEvent(event: unknown): Caller {
  const context = member(event, 'requestContext');
  const iam = member(member(context, 'authorizer'), 'iam');
  const userArn = member(iam, 'userArn');
  if (typeof userArn !== 'string' || userArn === '') return { kind: 'task-token' };
  const text = (name: string) => {
    const value = member(iam, name);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const sourceIp = member(member(context, 'http'), 'sourceIp');
  return {
    kind: 'signed',
    principal: userArn,
    identity: { userArn, accountId: text('accountId'), userId: text('userId') },
    request: conditionContext({
      'aws:SourceIp': typeof sourceIp === 'string' ? sourceIp : undefined,
      'aws:SecureTransport': 'true',
    }),
  };
}
