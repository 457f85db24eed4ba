/**
 * The awsJson1_0 wire protocol: what any client sees on the wire, checked with raw HTTP
 * (fetch) for what the SDK cannot send and with the official SDK for what it reads. Every refused
 * request gets its own clear fault with HTTP 400, and nothing stored changes because of it.
 */
import {
  DescribeWorkflowTypeCommand,
  GetWorkflowExecutionHistoryCommand,
  ListDomainsCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  StartWorkflowExecutionCommand,
  UnknownResourceFault,
} from '@aws-sdk/client-swf';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectFault,
  expectServiceError,
  expectWireError,
  oneViolation,
  type RawResponse,
  rawCall,
  rawRequest,
  unique,
  wireType,
} from '../support/contract.js';
import { serverForFile } from '../support/local.js';

const domain = unique('protocol');
const server = serverForFile();

beforeAll(async () => {
  await server.swf.send(
    new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
  );
});

const MB = 1024 * 1024;

/** Every domain, both statuses, in one listing each: refused requests must leave it unchanged. */
async function storedDomains() {
  const listing = async (registrationStatus: 'REGISTERED' | 'DEPRECATED') =>
    (await server.swf.send(new ListDomainsCommand({ registrationStatus }))).domainInfos ?? [];
  return { registered: await listing('REGISTERED'), deprecated: await listing('DEPRECATED') };
}

/** Sends a request that must be refused, and checks that no domain appeared or changed. */
async function refusedWithoutChange(send: () => Promise<RawResponse>): Promise<RawResponse> {
  const before = await storedDomains();
  const response = await send();
  expect(await storedDomains()).toStrictEqual(before);
  return response;
}

const registerDomainBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  workflowExecutionRetentionPeriodInDays: '1',
  ...extra,
});

describe('a successful call', () => {
  it('answers 200 with the awsJson1_0 content type and an x-amzn-RequestId', async () => {
    const response = await rawCall(server.endpoint, 'DescribeDomain', { name: domain });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-amz-json-1.0');
    expect(response.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(response.text)).toMatchObject({ domainInfo: { name: domain } });
  });

  it('gives every request its own request id, which the SDK reports', async () => {
    const a = await rawCall(server.endpoint, 'DescribeDomain', { name: domain });
    const b = await rawCall(server.endpoint, 'DescribeDomain', { name: domain });
    expect(a.headers.get('x-amzn-requestid')).not.toBe(b.headers.get('x-amzn-requestid'));
    const out = await server.swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }));
    expect(out.$metadata.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an action without output with an empty body', async () => {
    const response = await rawCall(
      server.endpoint,
      'RegisterDomain',
      registerDomainBody(unique('empty')),
    );
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    expect(response.headers.get('content-length')).toBe('0');
  });

  it('sends timestamps as epoch seconds (numbers) and omits absent members instead of null', async () => {
    const since = Date.now() / 1000;
    await server.swf.send(
      new RegisterWorkflowTypeCommand({ domain, name: 'stamped', version: '1' }),
    );
    const response = await rawCall(server.endpoint, 'DescribeWorkflowType', {
      domain,
      workflowType: { name: 'stamped', version: '1' },
    });
    const body = JSON.parse(response.text) as { typeInfo: { creationDate: unknown } };
    const { creationDate } = body.typeInfo;
    expect(typeof creationDate).toBe('number');
    expect(creationDate).toBeGreaterThanOrEqual(since - 2);
    expect(creationDate).toBeLessThanOrEqual(Date.now() / 1000 + 2);
    expect(response.text).not.toContain('null');
    expect(body.typeInfo).not.toHaveProperty('description');
    expect(body.typeInfo).not.toHaveProperty('deprecationDate');
    // The SDK reads the same number as a Date.
    const out = await server.swf.send(
      new DescribeWorkflowTypeCommand({ domain, workflowType: { name: 'stamped', version: '1' } }),
    );
    expect(out.typeInfo?.creationDate?.getTime()).toBe(Number(creationDate) * 1000);
  });

  it('sends history eventTimestamps as epoch seconds', async () => {
    await server.swf.send(
      new RegisterWorkflowTypeCommand({
        domain,
        name: 'history-stamps',
        version: '1',
        defaultTaskList: { name: 'nowhere' },
        defaultChildPolicy: 'TERMINATE',
        defaultExecutionStartToCloseTimeout: '60',
        defaultTaskStartToCloseTimeout: '10',
      }),
    );
    const workflowId = unique('stamps');
    const { runId } = await server.swf.send(
      new StartWorkflowExecutionCommand({
        domain,
        workflowId,
        workflowType: { name: 'history-stamps', version: '1' },
      }),
    );
    const response = await rawCall(server.endpoint, 'GetWorkflowExecutionHistory', {
      domain,
      execution: { workflowId, runId },
    });
    const { events } = JSON.parse(response.text) as {
      events: { eventTimestamp: unknown; eventId: unknown }[];
    };
    expect(events.map((e) => e.eventId)).toStrictEqual([1, 2]);
    for (const event of events) {
      expect(typeof event.eventTimestamp).toBe('number');
      expect(Math.abs(Number(event.eventTimestamp) - Date.now() / 1000)).toBeLessThan(30);
    }
    const out = await server.swf.send(
      new GetWorkflowExecutionHistoryCommand({ domain, execution: { workflowId, runId } }),
    );
    expect(out.events?.[0]?.eventTimestamp?.getTime()).toBe(
      Number(events[0]?.eventTimestamp) * 1000,
    );
  });

  it('accepts fractional epoch seconds and numeric strings in timestamp inputs', async () => {
    for (const oldestDate of [1_700_000_000.25, '1700000000.5', 0]) {
      const response = await rawCall(server.endpoint, 'ListOpenWorkflowExecutions', {
        domain,
        startTimeFilter: { oldestDate, latestDate: Date.now() / 1000 + 60 },
      });
      expect(response.status, response.text).toBe(200);
      expect(JSON.parse(response.text)).toHaveProperty('executionInfos');
    }
  });
});

describe('the target', () => {
  it.each([
    ['an unknown action', 'SimpleWorkflowService.FlyToTheMoon'],
    ['an action of another service', 'AmazonSQS.ListQueues'],
    ['a lower-case action name', 'SimpleWorkflowService.listDomains'],
    ['a prototype property name', 'SimpleWorkflowService.constructor'],
  ])('refuses %s with UnknownOperationException', async (_, target) => {
    const response = await refusedWithoutChange(() =>
      rawRequest(server.endpoint, {
        target,
        body: JSON.stringify(registerDomainBody(unique('x'))),
      }),
    );
    expectWireError(response, wireType.unknownOperation);
    expect(response.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a request without X-Amz-Target with UnknownOperationException', async () => {
    const response = await rawRequest(server.endpoint, { body: '{}' });
    expectWireError(response, wireType.unknownOperation, /X-Amz-Target/);
  });

  it('refuses a GET with UnknownOperationException', async () => {
    const response = await fetch(server.endpoint, {
      method: 'GET',
      headers: { 'x-amz-target': 'SimpleWorkflowService.ListDomains' },
    });
    expectWireError(
      { status: response.status, headers: response.headers, text: await response.text() },
      wireType.unknownOperation,
    );
  });
});

describe('the body', () => {
  it.each([
    ['cut-off JSON', '{"name": '],
    ['trailing garbage', '{"name": "a", "workflowExecutionRetentionPeriodInDays": "1"} x'],
    ['not JSON at all', 'name=a&workflowExecutionRetentionPeriodInDays=1'],
  ])('refuses %s with SerializationException', async (_, body) => {
    const response = await refusedWithoutChange(() =>
      rawRequest(server.endpoint, { target: 'SimpleWorkflowService.RegisterDomain', body }),
    );
    expectWireError(response, wireType.serialization, /not valid JSON/);
  });

  it.each([
    ['an array', '[]'],
    ['a string', '"RegisterDomain"'],
    ['a number', '42'],
  ])('refuses %s in place of the request object with SerializationException', async (_, body) => {
    const response = await refusedWithoutChange(() =>
      rawRequest(server.endpoint, { target: 'SimpleWorkflowService.RegisterDomain', body }),
    );
    expectWireError(response, wireType.serialization, /request body/);
  });

  it.each([
    ['a number for a string', { name: 5 }, /Expected a string at 'name' but found a number/],
    [
      'an object for a string',
      { name: { value: 'x' } },
      /Expected a string at 'name' but found an object/,
    ],
    ['a string for a list', { tags: 'k=v' }, /Expected a JSON array at 'tags' but found a string/],
    [
      'a number for a list item member',
      { tags: [{ key: 7 }] },
      /Expected a string at 'tags\.1\.member\.key' but found a number/,
    ],
  ])('refuses %s with SerializationException naming the member', async (_, extra, message) => {
    const response = await refusedWithoutChange(() =>
      rawCall(server.endpoint, 'RegisterDomain', {
        ...registerDomainBody(unique('typed')),
        ...extra,
      }),
    );
    expectWireError(response, wireType.serialization, message);
  });

  it.each([
    ['a fraction', 1.5],
    ['a string', '10'],
    ['a boolean', true],
  ])('refuses %s for an integer with SerializationException', async (_, maximumPageSize) => {
    const response = await rawCall(server.endpoint, 'ListDomains', {
      registrationStatus: 'REGISTERED',
      maximumPageSize,
    });
    expectWireError(response, wireType.serialization, /'maximumPageSize'/);
  });

  it('refuses a string for a boolean and a word for a timestamp', async () => {
    const reverse = await rawCall(server.endpoint, 'ListDomains', {
      registrationStatus: 'REGISTERED',
      reverseOrder: 'true',
    });
    expectWireError(reverse, wireType.serialization, /'reverseOrder'/);
    const stamp = await rawCall(server.endpoint, 'ListOpenWorkflowExecutions', {
      domain,
      startTimeFilter: { oldestDate: 'yesterday' },
    });
    expectWireError(stamp, wireType.serialization, /'startTimeFilter\.oldestDate'/);
  });

  it('refuses a missing required member with the Coral "must not be null" message', async () => {
    const response = await refusedWithoutChange(() =>
      rawCall(server.endpoint, 'RegisterDomain', { name: unique('half') }),
    );
    expectWireError(
      response,
      wireType.validation,
      oneViolation(null, 'workflowExecutionRetentionPeriodInDays', 'Member must not be null'),
    );
  });

  it('treats an empty body as {} and reports what is missing', async () => {
    const response = await rawRequest(server.endpoint, {
      target: 'SimpleWorkflowService.DescribeDomain',
      body: '',
    });
    expectWireError(
      response,
      wireType.validation,
      oneViolation(null, 'name', 'Member must not be null'),
    );
  });

  it('treats null as absent', async () => {
    const response = await rawCall(server.endpoint, 'DescribeDomain', { name: null });
    expectWireError(
      response,
      wireType.validation,
      oneViolation(null, 'name', 'Member must not be null'),
    );
  });

  it('refuses an over-long string with the Coral length message, through the SDK too', async () => {
    const name = 'n'.repeat(257);
    const response = await refusedWithoutChange(() =>
      rawCall(server.endpoint, 'RegisterDomain', registerDomainBody(name)),
    );
    const message = oneViolation(
      `${name.slice(0, 200)}...`,
      'name',
      'Member must have length less than or equal to 256',
    );
    expectWireError(response, wireType.validation, message);
    await expectServiceError(
      server.swf.send(
        new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }),
      ),
      'ValidationException',
      message,
    );
  });

  it('ignores members the model does not know', async () => {
    const name = unique('extra');
    const response = await rawCall(
      server.endpoint,
      'RegisterDomain',
      registerDomainBody(name, { colour: 'blue', nested: { a: [1, 2] } }),
    );
    expect(response.status, response.text).toBe(200);
    const described = await rawCall(server.endpoint, 'DescribeDomain', { name });
    expect(described.text).not.toContain('colour');
  });
});

describe('the request size', () => {
  const padded = (name: string, bodyBytes: number) => {
    const base = JSON.stringify(registerDomainBody(name, { padding: '' }));
    return base.replace('"padding":""', `"padding":"${'p'.repeat(bodyBytes - base.length)}"`);
  };

  it('accepts a body of just under 1 MB', async () => {
    const name = unique('big');
    const body = padded(name, MB - 1);
    expect(Buffer.byteLength(body)).toBe(MB - 1);
    const response = await rawRequest(server.endpoint, {
      target: 'SimpleWorkflowService.RegisterDomain',
      body,
    });
    expect(response.status, response.text).toBe(200);
  });

  it('refuses a body over 1 MB with ValidationException, storing nothing', async () => {
    const name = unique('huge');
    const body = padded(name, MB + 1);
    const response = await refusedWithoutChange(() =>
      rawRequest(server.endpoint, { target: 'SimpleWorkflowService.RegisterDomain', body }),
    );
    expectWireError(response, wireType.validation, /exceeds the maximum request size/);
    const listed = await server.swf.send(
      new ListDomainsCommand({ registrationStatus: 'REGISTERED' }),
    );
    expect(listed.domainInfos?.map((d) => d.name)).not.toContain(name);
  });

  it('refuses a 5 MB body quickly, without reading it all into one buffer', async () => {
    const started = Date.now();
    const response = await rawRequest(server.endpoint, {
      target: 'SimpleWorkflowService.ListDomains',
      body: Buffer.alloc(5 * MB, 0x20),
    });
    expectWireError(response, wireType.validation, /5242880 bytes/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('faults', () => {
  it('are typed SDK faults with HTTP 400 and the modeled __type', async () => {
    const missing = unique('missing');
    const response = await rawCall(server.endpoint, 'DescribeDomain', { name: missing });
    expectWireError(response, wireType.fault('UnknownResourceFault'), `Unknown domain: ${missing}`);
    expect(response.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    const error = await expectFault(
      server.swf.send(
        new DescribeWorkflowTypeCommand({
          domain: missing,
          workflowType: { name: 'a', version: '1' },
        }),
      ),
      UnknownResourceFault,
      `Unknown domain: ${missing}`,
    );
    expect(error.$metadata.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
