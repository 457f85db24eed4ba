import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startKeyProxy } from '../../support/dynamodb-key-proxy.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A stand-in for DynamoDB Local that records what reached it and answers 201 with a body. */
async function recordingUpstream() {
  const seen: { headers: IncomingHttpHeaders; body: string; url: string | undefined }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      seen.push({ headers: request.headers, body, url: request.url });
      response.writeHead(201, { 'x-upstream': 'yes' });
      response.end('{"TableNames":[]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { seen, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const signed = (key: string) =>
  `AWS4-HMAC-SHA256 Credential=${key}/20261129/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc`;

describe('the key proxy in front of a DynamoDB Local without sharedDb', () => {
  it('forwards each request as its own access key id, body and answer untouched', async () => {
    const upstream = await recordingUpstream();
    const proxies = [
      await startKeyProxy(upstream.endpoint, 'file1'),
      await startKeyProxy(upstream.endpoint, 'file2'),
    ];
    for (const proxy of proxies) closers.push(proxy.close);
    const answers = [];
    for (const [index, proxy] of proxies.entries()) {
      const answer = await fetch(`${proxy.endpoint}/`, {
        method: 'POST',
        headers: { authorization: signed(index === 0 ? 'local' : 'test') },
        body: `{"n":${index}}`,
      });
      answers.push({ status: answer.status, body: await answer.text() });
      expect(answer.headers.get('x-upstream')).toBe('yes');
    }
    expect(answers).toEqual([
      { status: 201, body: '{"TableNames":[]}' },
      { status: 201, body: '{"TableNames":[]}' },
    ]);
    expect(upstream.seen.map((s) => [s.headers.authorization, s.body, s.url])).toEqual([
      [signed('file1'), '{"n":0}', '/'],
      [signed('file2'), '{"n":1}', '/'],
    ]);
  });

  it('answers with a broken connection, not a hang, when DynamoDB Local is gone', async () => {
    const proxy = await startKeyProxy('http://127.0.0.1:1', 'file3');
    closers.push(proxy.close);
    await expect(fetch(`${proxy.endpoint}/`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
