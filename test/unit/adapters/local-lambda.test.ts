/**
 * npm start's Lambda functions over HTTP (SWF_LAMBDA_FUNCTIONS): the task's input POSTed as the payload,
 * the answer's body as the result, a non-2xx answer a function error; the variable's parsing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LocalLambdaFunctions,
  postingFunction,
} from '../../../lib/adapters/in-process/local-lambda.js';
import { localLambdaFunctions } from '../../../lib/local/lambda-functions-config.js';

let server: Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

/** A function at a local URL answering `status` with `answer(body)`; notes what it was sent. */
async function fn(status: number, answer: (body: string) => string) {
  const received: { type?: string; body: string }[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({
        ...(req.headers['content-type'] ? { type: req.headers['content-type'] } : {}),
        body,
      });
      res.writeHead(status).end(answer(body));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, received };
}

const invoke = (functions: LocalLambdaFunctions, input?: string) =>
  functions.invoke({
    name: 'resize',
    timeoutSeconds: 5,
    ...(input === undefined ? {} : { input }),
  });

describe('postingFunction', () => {
  it("POSTs the task's input and completes with the answer's body", async () => {
    const { url, received } = await fn(200, (body) => `resized ${body}`);
    const functions = new LocalLambdaFunctions();
    functions.register('resize', postingFunction(url));
    expect(await invoke(functions, '{"w":10}')).toEqual({
      kind: 'completed',
      result: 'resized {"w":10}',
    });
    expect(received).toEqual([{ type: 'application/json', body: '{"w":10}' }]);
  });

  it('completes without a result on an empty answer', async () => {
    const { url } = await fn(200, () => '');
    const functions = new LocalLambdaFunctions();
    functions.register('resize', postingFunction(url));
    expect(await invoke(functions)).toEqual({ kind: 'completed' });
  });

  it('fails as a function error on an answer that is not 2xx, its body the details', async () => {
    const { url } = await fn(500, () => 'out of memory');
    const functions = new LocalLambdaFunctions();
    functions.register('resize', postingFunction(url));
    expect(await invoke(functions, 'x')).toEqual({
      kind: 'failed',
      reason: 'Unhandled',
      details: 'out of memory',
    });
  });

  it('refuses a target that is not an http URL', () => {
    expect(() => postingFunction('resize-fn')).toThrow(/http:\/\/ URL/);
  });
});

describe('SWF_LAMBDA_FUNCTIONS', () => {
  it('maps function names to URLs; unset or empty is none', () => {
    expect(localLambdaFunctions(undefined)).toEqual([]);
    expect(localLambdaFunctions('  ')).toEqual([]);
    expect(
      localLambdaFunctions('{"resize":"http://127.0.0.1:9001/","notify":"https://x/"}'),
    ).toEqual([
      ['resize', 'http://127.0.0.1:9001/'],
      ['notify', 'https://x/'],
    ]);
  });

  it.each([
    ['not JSON', '{resize', /must be JSON/],
    ['an array', '["http://x/"]', /a JSON object from function names/],
    [
      'a target that is not a URL',
      '{"resize":"resize-fn"}',
      /\["resize"\] must be the http:\/\/ URL/,
    ],
    ['an empty name', '{"":"http://x/"}', /empty name/],
  ])('refuses %s with a message that says what is wrong', (_what, value, message) => {
    expect(() => localLambdaFunctions(value)).toThrow(message);
  });
});
