/**
 * The API function's Lambda face when one process serves many invocations at once (Lambda Managed
 * Instances): each invocation's deadline, wind-down and last resort are its own, so one request
 * running out of time never ends another's long poll.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { httpApiHandler } from '../../../functions/shared/http-api.js';
import type { Dispatcher, HttpRequest } from '../../../lib/http/dispatch.js';
import { lambdaContext } from '../../support/lambda-events.js';

const event = (id: string) =>
  ({
    version: '2.0',
    routeKey: 'POST /',
    rawPath: '/',
    rawQueryString: '',
    headers: { 'x-amz-target': 'SimpleWorkflowService.PollForActivityTask', 'x-poll': id },
    requestContext: { http: { method: 'POST' } },
    body: '{}',
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

/** A dispatcher whose every call waits until its request's signal fires, then answers. */
function waitingDispatcher(ended: Map<string, number>): Dispatcher {
  const started = performance.now();
  return (request: HttpRequest) =>
    new Promise((resolve) => {
      const id = request.headers['x-poll'] ?? '';
      request.signal?.addEventListener('abort', () => {
        ended.set(id, performance.now() - started);
        resolve({ statusCode: 200, headers: {}, body: '{}' });
      });
    });
}

describe('concurrent invocations in one process', () => {
  it("answer a request that outlives its deadline with a 500, leaving the others' polls waiting", async () => {
    const ended = new Map<string, number>();
    const waiting = waitingDispatcher(ended);
    // `stuck` ignores its signal: only the last resort answers it.
    const dispatcher: Dispatcher = (request) =>
      request.headers['x-poll'] === 'stuck' ? new Promise(() => undefined) : waiting(request);
    const handler = httpApiHandler(() => dispatcher, {
      timeoutEarlyInMillis: 100,
      windDownMs: 200,
    });
    const polls = Array.from({ length: 20 }, (_, i) =>
      handler(event(`poll-${i}`), lambdaContext({ remainingMs: 1_500 })),
    );
    const stuck = await handler(event('stuck'), lambdaContext({ remainingMs: 300 }));
    expect(stuck.statusCode).toBe(500);
    expect(JSON.parse(stuck.body ?? '{}').__type).toBe('com.amazon.coral.service#InternalFailure');
    // The 20 polls in the same process are still waiting after the stuck request was given up.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ended.size).toBe(0);
    const answers = await Promise.all(polls);
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    for (const at of ended.values()) expect(at).toBeGreaterThan(1_100);
  });
});
