import { describe, expect, it } from 'vitest';
import { DynamoDbError } from '../../../lib/adapters/dynamodb/doc-client.js';
import { asTransientServiceError } from '../../../lib/adapters/transient-failures.js';
import { UnknownResourceFault } from '../../../lib/core/faults.js';
import { type MetricSample, throttledEvent } from '../../../lib/core/swf-metrics.js';
import {
  createDispatcher,
  type HttpRequest,
  type HttpResponse,
  MAX_REQUEST_BYTES,
} from '../../../lib/http/dispatch.js';
import type { Operation, OperationDeps } from '../../../lib/operations/context.js';
import { RunContendedError } from '../../../lib/operations/run-mutation.js';

// The dispatcher never touches deps itself: it hands them to the operation it calls.
const deps = {} as OperationDeps;

interface Call {
  input: Record<string, unknown>;
  requestId: string;
}

function dispatcherWith(operation: Operation) {
  const calls: Call[] = [];
  const logged: Record<string, unknown>[] = [];
  const warned: Record<string, unknown>[] = [];
  const dispatch = createDispatcher(
    {
      DescribeDomain: async (input, d, request) => {
        calls.push({ input, requestId: request.requestId });
        return operation(input, d, request);
      },
    },
    deps,
    {
      error: (_message, detail) => logged.push(detail),
      warn: (message, detail) => warned.push({ message, ...detail }),
    },
  );
  return { dispatch, calls, logged, warned };
}

const request = (overrides: Partial<HttpRequest> = {}): HttpRequest => ({
  method: 'POST',
  headers: {
    'x-amz-target': 'SimpleWorkflowService.DescribeDomain',
    'content-type': 'application/x-amz-json-1.0',
  },
  body: Buffer.from(JSON.stringify({ name: 'orders' })),
  ...overrides,
});

const bodyOf = (response: HttpResponse) => JSON.parse(response.body) as Record<string, unknown>;

describe('createDispatcher', () => {
  it('calls the operation with the validated input and answers 200 with its output', async () => {
    const { dispatch, calls } = dispatcherWith(async () => ({ domainInfo: { name: 'orders' } }));

    const response = await dispatch(request());

    expect(response.statusCode).toBe(200);
    expect(bodyOf(response)).toStrictEqual({ domainInfo: { name: 'orders' } });
    expect(calls).toStrictEqual([{ input: { name: 'orders' }, requestId: expect.any(String) }]);
    expect(response.headers['x-amzn-requestid']).toBe(calls[0]?.requestId);
    expect(response.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.body)));
  });

  it('answers an operation without output with an empty body', async () => {
    const { dispatch } = dispatcherWith(async () => undefined);
    const response = await dispatch(request());
    expect(response).toMatchObject({ statusCode: 200, body: '' });
    expect(response.headers['content-length']).toBe('0');
  });

  it('serializes an SWF fault as a 400 in the wire shape', async () => {
    const { dispatch } = dispatcherWith(async () => {
      throw new UnknownResourceFault('Unknown domain: orders');
    });

    const response = await dispatch(request());

    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toStrictEqual({
      __type: 'com.amazonaws.swf.base.model#UnknownResourceFault',
      message: 'Unknown domain: orders',
    });
  });

  it('answers a run that other writers kept changing with a 400 ThrottlingException, which clients retry', async () => {
    const { dispatch } = dispatcherWith(async () => {
      throw new RunContendedError('execution r1 kept changing under 50 attempts');
    });
    const response = await dispatch(request());
    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toStrictEqual({
      __type: 'com.amazon.coral.availability#ThrottlingException',
      message: 'execution r1 kept changing under 50 attempts',
    });
  });

  it("counts each throttled answer in SWF's ThrottledEvents, by API and scope", async () => {
    const recorded: MetricSample[] = [];
    const metrics = { record: (samples: readonly MetricSample[]) => recorded.push(...samples) };
    const throwing = (error: unknown) =>
      createDispatcher(
        {
          DescribeDomain: async () => {
            throw error;
          },
        },
        { metrics } as unknown as OperationDeps,
        { error: () => {}, warn: () => {} },
      );
    await throwing(new RunContendedError('kept changing'))(request());
    const throttledTable = new DynamoDbError('ThrottlingException', 'slow down', 400, {}, 3);
    await throwing(asTransientServiceError(throttledTable))(request());
    await throwing(new UnknownResourceFault('Unknown domain: orders'))(request());
    expect(recorded).toEqual([
      throttledEvent('DescribeDomain', 'Workflow'),
      throttledEvent('DescribeDomain', 'Account'),
    ]);
  });

  it("answers DynamoDB's throttling of the table with a 400 ThrottlingException, as SWF answers a request over its rate", async () => {
    // DynamoDB throttles a partition past 1,000 write or 3,000 read units a second (on-demand tables
    // too): after the client's attempts the store meets ProvisionedThroughputExceededException or
    // ThrottlingException. DynamoDB Local never throttles. SWF's clients back off longer on a
    // ThrottlingException than on a 500, and do not spend their retry quota as on a fault.
    for (const name of [
      'ProvisionedThroughputExceededException',
      'ThrottlingException',
      'RequestLimitExceeded',
    ]) {
      // What the store's client throws, as the store's adapter hands it on.
      const { dispatch, logged, warned } = dispatcherWith(async () => {
        throw asTransientServiceError(
          new DynamoDbError(name, 'The level of configured throughput was exceeded', 400, {}, 3),
        );
      });
      const response = await dispatch(request());
      expect(response.statusCode).toBe(400);
      expect(bodyOf(response).__type).toBe('com.amazon.coral.availability#ThrottlingException');
      // No failure of the service, but seen: the 5xx alarms no longer count it.
      expect(logged).toEqual([]);
      expect(warned).toEqual([
        expect.objectContaining({
          message: 'throttled',
          error: expect.objectContaining({ cause: expect.objectContaining({ name }) }),
        }),
      ]);
    }
  });

  it('answers any other error with a generic 500 InternalFailure, logging the cause', async () => {
    const { dispatch, logged } = dispatcherWith(async () => {
      throw new Error('table is on fire');
    });

    const response = await dispatch(request());

    expect(response.statusCode).toBe(500);
    expect(bodyOf(response)).toStrictEqual({
      __type: 'com.amazon.coral.service#InternalFailure',
      message: 'Internal failure',
    });
    expect(response.body).not.toContain('fire');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      requestId: response.headers['x-amzn-requestid'],
      action: 'SimpleWorkflowService.DescribeDomain',
      error: { message: 'table is on fire' },
    });
  });

  it.each([
    ['a body over 1 MB (true size given)', { size: MAX_REQUEST_BYTES + 1 }, /ValidationException/],
    ['a GET', { method: 'GET' }, /UnknownOperationException/],
    ['no target', { headers: {} }, /UnknownOperationException/],
    [
      'a target of an action not wired',
      { headers: { 'x-amz-target': 'SimpleWorkflowService.ListDomains' } },
      /UnknownOperationException/,
    ],
    ['malformed JSON', { body: Buffer.from('{') }, /SerializationException/],
    [
      'bytes that are not UTF-8',
      {
        body: Buffer.concat([
          Buffer.from('{"name":"orders'),
          Buffer.from([0xff]),
          Buffer.from('"}'),
        ]),
      },
      /SerializationException/,
    ],
    [
      'a compressed body',
      { headers: { ...request().headers, 'content-encoding': 'gzip' } },
      /SerializationException/,
    ],
    ['a missing member', { body: Buffer.from('{}') }, /ValidationException/],
  ])('refuses %s without calling the operation', async (_, overrides, type) => {
    const { dispatch, calls } = dispatcherWith(async () => ({}));

    const response = await dispatch(request(overrides));

    expect(response.statusCode).toBe(400);
    expect(String(bodyOf(response).__type)).toMatch(type);
    expect(calls).toHaveLength(0);
  });

  it('says a compressed body is not taken, rather than quoting its bytes', async () => {
    const { dispatch } = dispatcherWith(async () => ({}));
    const headers = { ...request().headers, 'content-encoding': 'gzip' };
    const response = await dispatch(request({ headers, body: Buffer.from([0x1f, 0x8b, 8, 0]) }));
    expect(bodyOf(response).message).toBe(
      'Content-Encoding gzip is not supported: send the JSON body uncompressed',
    );
  });

  it("routes the service model's full target name, as boto 2 and the Developer Guide send it", async () => {
    const { dispatch, calls } = dispatcherWith(async () => ({ domainInfo: { name: 'orders' } }));
    const headers = {
      'x-amz-target': 'com.amazonaws.swf.service.model.SimpleWorkflowService.DescribeDomain',
      'content-type': 'application/json; charset=UTF-8',
      'content-encoding': 'amz-1.0',
    };
    const response = await dispatch(request({ headers }));
    expect(response.statusCode).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it.each([
    'com.amazonaws.swf.service.model.SimpleWorkflowService.',
    'com.amazonaws.swf.service.model.SimpleWorkflowService.constructor',
    'com.amazonaws.swf.service.model.SimpleWorkflowService.describeDomain',
    'com.amazonaws.swf.service.model.DescribeDomain',
    'com.amazonaws.swf.service.model.SimpleWorkflowService.SimpleWorkflowService.DescribeDomain',
  ])('refuses the full-name target %s with UnknownOperationException', async (target) => {
    const { dispatch, calls } = dispatcherWith(async () => ({}));
    const response = await dispatch(request({ headers: { 'x-amz-target': target } }));
    expect(response.statusCode).toBe(400);
    expect(bodyOf(response).__type).toBe('com.amazon.coral.service#UnknownOperationException');
    expect(calls).toHaveLength(0);
  });

  it("ignores an encoding that is no compression, as boto 2's amz-1.0 on every call", async () => {
    const { dispatch, calls } = dispatcherWith(async () => ({}));
    const headers = { ...request().headers, 'content-encoding': 'amz-1.0' };
    expect((await dispatch(request({ headers }))).statusCode).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it('gives each request its own id', async () => {
    const { dispatch } = dispatcherWith(async () => ({}));
    const ids = new Set<string | undefined>();
    for (let i = 0; i < 5; i++) ids.add((await dispatch(request())).headers['x-amzn-requestid']);
    expect(ids.size).toBe(5);
  });
});
