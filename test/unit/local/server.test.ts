/**
 * The local server's close is graceful: long polls waiting get their empty answer, requests in
 * progress finish and are answered, new connections are refused, and close resolves.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../../lib/http/dispatch.js';
import { startServer } from '../../../lib/local/server.js';

/** POSTs `body` and resolves with the status and body, or the connection's error code. */
function post(
  url: string,
  body: string,
): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message }),
    );
    req.end(body);
  });
}

const ok = (body: string) => ({ statusCode: 200, headers: {}, body });

// 'poll' waits until its signal fires (a long poll), then answers an empty task; 'slow' takes 300 ms.
const dispatch: Dispatcher = async (req) => {
  const kind = req.body.toString();
  if (kind === 'poll') {
    await new Promise<void>((resolve) => {
      if (req.signal?.aborted) resolve();
      req.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    return ok('{"startedEventId":0}');
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  return ok('{"done":true}');
};

describe('closing the local server', () => {
  it('answers waiting long polls empty and lets requests in progress finish', async () => {
    const server = await startServer(dispatch);
    const poll = post(server.url, 'poll');
    const slow = post(server.url, 'slow');
    await new Promise((resolve) => setTimeout(resolve, 50)); // both are in progress
    const closing = server.close();
    expect(await poll).toEqual({ status: 200, body: '{"startedEventId":0}' });
    expect(await slow).toEqual({ status: 200, body: '{"done":true}' });
    await closing;
    expect((await post(server.url, 'slow')).error).toBe('ECONNREFUSED');
  });
});

describe('a caller that hangs up while sending its body', () => {
  it('is not logged as an error of the server', async () => {
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => {
      errors.push(args);
    };
    try {
      const server = await startServer(dispatch);
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"partial":');
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await server.close();
      expect(errors).toEqual([]);
    } finally {
      console.error = original;
    }
  });
});
