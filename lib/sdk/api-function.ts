import type {
  InvokeCommandOutput as InvokeOutput,
  LambdaClient,
  LambdaClientConfig,
} from '@aws-sdk/client-lambda';
import type { JsonTransport, RawAnswer } from '../aws-json/rpc-client.js';

/**
 * The service's API function, called directly: what a pushed task's event names (`api`), so that the
 * function it was pushed to answers without going through the service's front door. `endpoint` is
 * Lambda's endpoint, given only by the local service (whose server serves Lambda's Invoke for it).
 */
export interface ApiFunction {
  readonly functionName: string;
  readonly endpoint?: string;
}

/**
 * SWF calls as Lambda Invokes (RequestResponse) of the API function: each call goes as the event API
 * Gateway or a function URL would deliver (HTTP payload format 2.0), and the function's HTTP result
 * is the answer. IAM authorizes the Invoke (`lambda:InvokeFunction` on the function), where the front
 * door would have checked the call's signature; no API Gateway request is made, or paid for.
 */
export function apiFunctionTransport(
  api: ApiFunction,
  config: () => LambdaClientConfig,
): JsonTransport & { destroy(): void } {
  type Invoke = (payload: Uint8Array, signal: AbortSignal | undefined) => Promise<InvokeOutput>;
  let lambda: Promise<{ client: LambdaClient; invoke: Invoke }> | undefined;
  // Loaded on the first call: pollers and clients of an endpoint never load Lambda's client.
  const open = async () => {
    const sdk = await import('@aws-sdk/client-lambda');
    const client = new sdk.LambdaClient({
      ...config(),
      ...(api.endpoint === undefined ? {} : { endpoint: api.endpoint }),
    });
    const invoke: Invoke = (payload, signal) =>
      client.send(
        new sdk.InvokeCommand({ FunctionName: api.functionName, Payload: payload }),
        signal === undefined ? {} : { abortSignal: signal },
      );
    return { client, invoke };
  };
  const transport = async ({
    target,
    contentType,
    body,
    signal,
  }: Parameters<JsonTransport>[0]): Promise<RawAnswer> => {
    lambda ??= open();
    const { invoke } = await lambda;
    const output = await invoke(
      Buffer.from(JSON.stringify(apiEvent(target, contentType, body))),
      signal,
    );
    const text = output.Payload === undefined ? '' : Buffer.from(output.Payload).toString('utf8');
    // (`$metadata` is always there from Lambda; a stubbed client may leave it out.)
    const requestId = output.$metadata?.requestId;
    // The function failed around the service's dispatcher (killed at its time limit, out of memory):
    // no answer of the service's, so a server-side failure, retried as a 5xx is.
    if (output.FunctionError !== undefined)
      return failure(
        `${api.functionName} failed (${output.FunctionError}): ${text.slice(0, 200)}`,
        requestId,
      );
    const result = httpResult(text);
    if (result === undefined)
      return failure(
        `${api.functionName} answered no HTTP result: ${text.slice(0, 200)}`,
        requestId,
      );
    return { ...result, requestId: result.requestId ?? requestId };
  };
  return Object.assign(transport, {
    destroy: () => {
      void lambda?.then(({ client }) => client.destroy());
    },
  });
}

/** The call as API Gateway's HTTP API or a function URL hands it to the function (payload 2.0). */
export function apiEvent(target: string, contentType: string, body: string) {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    headers: { 'content-type': contentType, 'x-amz-target': target },
    requestContext: { http: { method: 'POST', path: '/' } },
    body,
    isBase64Encoded: false,
  };
}

const failure = (message: string, requestId: string | undefined): RawAnswer => ({
  statusCode: 502,
  text: JSON.stringify({ __type: 'ServiceUnavailable', message }),
  requestId,
});

/** The function's HTTP result (payload 2.0's structured result), or undefined for anything else. */
function httpResult(text: string): RawAnswer | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const statusCode: unknown = Reflect.get(parsed, 'statusCode');
  const body: unknown = Reflect.get(parsed, 'body');
  const headers: unknown = Reflect.get(parsed, 'headers');
  if (typeof statusCode !== 'number') return undefined;
  const base64 = Reflect.get(parsed, 'isBase64Encoded') === true;
  const raw = typeof body === 'string' ? body : '';
  const requestId =
    typeof headers === 'object' && headers !== null
      ? Reflect.get(headers, 'x-amzn-requestid')
      : undefined;
  return {
    statusCode,
    text: base64 ? Buffer.from(raw, 'base64').toString('utf8') : raw,
    requestId: typeof requestId === 'string' ? requestId : undefined,
  };
}
