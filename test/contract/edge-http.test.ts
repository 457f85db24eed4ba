/**
 * Malformed HTTP at the local server: bad X-Amz-Target values, methods and JSON bodies (wrong types,
 * deep nesting, 10 MB) are 400 faults in SWF's wire shape, and other content types 200 or 400; cut,
 * half-closed or malformed chunked bodies, very long headers and a garbage request line get a 4xx or
 * a close, never a 5xx; 300 slow connections held open do not stop it answering. None of them stores
 * anything.
 */
import net from 'node:net';
import { ListDomainsCommand } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { expectSwfFault, rawCall, rawRequest, wireType } from '../support/contract.js';
import { sleep } from '../support/decider.js';
import { serverForFile } from '../support/local.js';

let port: number;

const server = serverForFile({ polling: { maxWaitMs: 300 } }, async ({ service }) => {
  port = Number(new URL(service.endpoint).port);
});

const listDomains = '{"registrationStatus":"REGISTERED"}';

const domains = async () =>
  (await server.swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' })))
    .domainInfos ?? [];

/** The server still answers a well-formed call. */
async function alive() {
  const r = await rawCall(server.service.endpoint, 'ListDomains', {
    registrationStatus: 'REGISTERED',
  });
  expect(r.status, r.text).toBe(200);
}

/** Raw bytes on a socket; resolves with what came back before the server closed (or timeout). */
function rawSocket(
  chunks: (string | Buffer)[],
  opts: { endAfter?: boolean; waitMs?: number; destroyAfter?: boolean } = {},
) {
  return new Promise<{ data: string; closed: boolean }>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    let closed = false;
    socket.on('data', (d) => {
      data += d.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      resolve({ data, closed });
    });
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
      if (opts.destroyAfter) {
        socket.destroy();
        return;
      }
      if (opts.endAfter) socket.end();
    });
    setTimeout(() => {
      socket.destroy();
      resolve({ data, closed });
    }, opts.waitMs ?? 1500);
  });
}

describe('HTTP edge', () => {
  it('bad targets, methods and bodies are 400 SWF faults', async () => {
    const before = await domains();
    const targets = [
      'SimpleWorkflowService.',
      'SimpleWorkflowService',
      'simpleworkflowservice.ListDomains',
      'SimpleWorkflowService.listDomains',
      'SimpleWorkflowService.ListDomains ',
      ' SimpleWorkflowService.ListDomains',
      'SimpleWorkflowService.__proto__',
      'SimpleWorkflowService.constructor',
      'SimpleWorkflowService.hasOwnProperty',
      'SimpleWorkflowService.toString',
      'AmazonSWF.ListDomains',
      'SimpleWorkflowService.ListDomains.x',
      'SimpleWorkflowService.ListDomains,SimpleWorkflowService.RegisterDomain',
      'x'.repeat(8000),
    ];
    for (const target of targets) {
      const r = await rawRequest(server.service.endpoint, { target, body: listDomains });
      // header values are trimmed by HTTP itself
      if (target.trim() === 'SimpleWorkflowService.ListDomains') continue;
      expectSwfFault(r, wireType.unknownOperation, target);
    }
    const bodies = [
      '[]',
      '1',
      '"x"',
      'true',
      '{',
      '{"registrationStatus":',
      '\u00ef\u00bb\u00bf{}',
      Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
      '[{"registrationStatus":"REGISTERED"}]',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
      '{"registrationStatus":1}',
      '{"registrationStatus":["REGISTERED"]}',
      '{"registrationStatus":{"a":1}}',
      '{"registrationStatus":"REGISTERED","maximumPageSize":"5"}',
      '{"registrationStatus":"REGISTERED","maximumPageSize":1.5}',
      '{"registrationStatus":"REGISTERED","maximumPageSize":1e400}',
      '{"registrationStatus":"REGISTERED","maximumPageSize":-1}',
      '{"registrationStatus":"REGISTERED","maximumPageSize":99999999999999999999999}',
      '{"registrationStatus":"REGISTERED","reverseOrder":"true"}',
      '{"registrationStatus":"REGISTERED","reverseOrder":1}',
      '{"registrationStatus":"REGISTERED","nextPageToken":5}',
      '{"registrationStatus":"\\ud800"}',
      '{"registrationStatus":"NOPE"}',
    ];
    for (const body of bodies) {
      const r = await rawRequest(server.service.endpoint, {
        target: 'SimpleWorkflowService.ListDomains',
        body,
      });
      expectSwfFault(r, undefined, String(body).slice(0, 100));
    }
    // RegisterDomain bodies with wrong types: nothing stored
    for (const body of [
      '{"name":1,"workflowExecutionRetentionPeriodInDays":"1"}',
      '{"name":["x"],"workflowExecutionRetentionPeriodInDays":"1"}',
      '{"name":"typed","workflowExecutionRetentionPeriodInDays":1}',
      '{"name":"typed","workflowExecutionRetentionPeriodInDays":"1","tags":{"key":"a"}}',
      '{"name":"typed","workflowExecutionRetentionPeriodInDays":"1","tags":[{"key":1}]}',
      '{"name":"typed","workflowExecutionRetentionPeriodInDays":"1","tags":[null]}',
      '{"name":"typed","workflowExecutionRetentionPeriodInDays":"1","description":{}}',
    ]) {
      const r = await rawRequest(server.service.endpoint, {
        target: 'SimpleWorkflowService.RegisterDomain',
        body,
      });
      expectSwfFault(r, undefined, body);
    }
    // duplicated keys and unknown members: accepted (last value wins)
    const dup = await rawRequest(server.service.endpoint, {
      target: 'SimpleWorkflowService.ListDomains',
      body: '{"registrationStatus":"NOPE","registrationStatus":"REGISTERED","extra":{"deep":[1,2,{"x":null}]},"__proto__":{"x":1},"constructor":1}',
    });
    expect(dup.status, dup.text).toBe(200);
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const r = await fetch(server.service.endpoint, {
        method,
        headers: { 'x-amz-target': 'SimpleWorkflowService.ListDomains' },
        ...(method === 'GET' || method === 'OPTIONS' ? {} : { body: '{}' }),
      });
      const response = { status: r.status, headers: r.headers, text: await r.text() };
      expectSwfFault(response, wireType.unknownOperation, method);
    }
    const head = await fetch(server.service.endpoint, { method: 'HEAD' });
    expect(head.status).toBe(400);
    for (const contentType of [
      'text/plain',
      'application/json',
      'application/x-www-form-urlencoded',
      '',
    ]) {
      const r = await rawRequest(server.service.endpoint, {
        target: 'SimpleWorkflowService.ListDomains',
        body: listDomains,
        headers: { 'content-type': contentType },
      });
      expect([200, 400], r.text).toContain(r.status);
    }
    // 10 MB body
    const big = await rawRequest(server.service.endpoint, {
      target: 'SimpleWorkflowService.RegisterDomain',
      body: JSON.stringify({
        name: 'big',
        workflowExecutionRetentionPeriodInDays: '1',
        description: 'x'.repeat(10 * 1024 * 1024),
      }),
    });
    expectSwfFault(big, wireType.validation);
    expect(await domains()).toStrictEqual(before);
    await alive();
  }, 120_000);

  it('very long headers, cut and malformed chunked bodies: clean 4xx or close, server alive, nothing stored', async () => {
    const before = await domains();
    const body = '{"name":"cut-domain","workflowExecutionRetentionPeriodInDays":"1"}';
    const head = (extra: string) =>
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: SimpleWorkflowService.RegisterDomain\r\n${extra}\r\n`;
    const cutChunked = [
      head('Transfer-Encoding: chunked\r\n'),
      `${body.length.toString(16)}\r\n${body.slice(0, 20)}`,
    ];
    // chunked body cut mid-way and the socket closed
    const cut = await rawSocket(cutChunked, { destroyAfter: true });
    expect(cut.data).toBe('');
    // chunked body cut and half-closed
    const half = await rawSocket(cutChunked, { endAfter: true });
    expect(half.data.startsWith('HTTP/1.1 5')).toBe(false);
    // content-length larger than the body, then closed
    const short = await rawSocket([head(`Content-Length: ${body.length + 10}\r\n`), body], {
      endAfter: true,
    });
    expect(short.data.startsWith('HTTP/1.1 5')).toBe(false);
    // a whole JSON body in one chunk, no last chunk, half-closed: must not be run
    const noLast = await rawSocket(
      [head('Transfer-Encoding: chunked\r\n'), `${body.length.toString(16)}\r\n${body}\r\n`],
      {
        endAfter: true,
      },
    );
    expect(noLast.data.startsWith('HTTP/1.1 4')).toBe(true);
    // malformed chunk size
    const bad = await rawSocket([
      head('Transfer-Encoding: chunked\r\n'),
      `zz\r\n${body}\r\n0\r\n\r\n`,
    ]);
    expect(bad.data.startsWith('HTTP/1.1 5')).toBe(false);
    // both content-length and chunked
    const both = await rawSocket([
      head(`Transfer-Encoding: chunked\r\nContent-Length: 3\r\n`),
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    ]);
    expect(both.data.startsWith('HTTP/1.1 5')).toBe(false);
    // very long header value
    const long = await rawRequest(server.service.endpoint, {
      target: 'SimpleWorkflowService.ListDomains',
      body: listDomains,
      headers: { 'x-long': 'a'.repeat(100_000) },
    }).catch((e: unknown) => ({ status: -1, text: String(e) }));
    expect(long.status === -1 || (long.status >= 400 && long.status < 500), long.text).toBe(true);
    const longTarget = await rawSocket([
      `POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: SimpleWorkflowService.${'L'.repeat(200_000)}\r\nContent-Length: 2\r\n\r\n{}`,
    ]);
    expect(longTarget.data.startsWith('HTTP/1.1 5')).toBe(false);
    // garbage request line
    const garbage = await rawSocket(['\u0000\u0001\u0002 garbage\r\n\r\n']);
    expect(garbage.data.startsWith('HTTP/1.1 5')).toBe(false);
    await alive();
    expect(await domains()).toStrictEqual(before);
  }, 60_000);

  it('many slow connections do not stop the server answering', async () => {
    const sockets: net.Socket[] = [];
    for (let i = 0; i < 300; i++) {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => {});
      s.on('connect', () => {
        if (i % 2 === 0) s.write('POST / HTTP/1.1\r\nHost: x\r\n');
        else
          s.write(
            'POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: SimpleWorkflowService.ListDomains\r\nContent-Length: 1000\r\n\r\n{"regi',
          );
      });
      sockets.push(s);
    }
    await sleep(500);
    const t0 = Date.now();
    await alive();
    expect(Date.now() - t0).toBeLessThan(2000);
    for (const s of sockets) s.destroy();
    await sleep(200);
    await alive();
  }, 60_000);
});
