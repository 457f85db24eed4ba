/**
 * Push task lists on the local server: in-process handlers invoked as Lambda invokes asynchronously,
 * and handlers that POST each event to a worker served over HTTP (`npm start`'s SWF_PUSH_TASK_LISTS).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalTaskPush, postingHandler } from '../../../lib/adapters/in-process/local-task-push.js';
import { PUSHED_TASK_SOURCE, type PushedTaskEvent } from '../../../lib/ports/task-push.js';

const event: PushedTaskEvent = {
  source: PUSHED_TASK_SOURCE,
  kind: 'activity',
  domain: 'orders',
  taskList: 'work',
  task: { taskToken: 't', activityId: 'a1', startedEventId: 6 },
};
const list = { kind: 'activity' as const, domain: 'orders', taskList: 'work', target: 'worker' };

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('LocalTaskPush', () => {
  it('serves only the registered list, and hands its handler a copy without waiting for it', async () => {
    const push = new LocalTaskPush();
    expect(push.target('activity', 'orders', 'work')).toBeUndefined();
    const got: PushedTaskEvent[] = [];
    let release: () => void = () => {};
    push.register(list, async (e) => {
      got.push(e);
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    expect(push.target('activity', 'orders', 'work')).toBe('worker');
    expect(push.target('decision', 'orders', 'work')).toBeUndefined();
    await push.push('worker', event); // resolves although the handler has not finished
    await settle();
    expect(got).toEqual([event]);
    expect(got[0]).not.toBe(event);
    release();
  });

  it('rejects a push to a function nobody registered, and logs a handler that throws', async () => {
    const push = new LocalTaskPush();
    await expect(push.push('nobody', event)).rejects.toThrow('Function not found: nobody');
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      push.register(list, () => {
        throw new Error('boom');
      });
      await push.push('worker', event);
      await settle();
      expect(errors).toHaveBeenCalledWith(expect.stringContaining('boom'));
    } finally {
      errors.mockRestore();
    }
  });
});

describe('postingHandler', () => {
  let server: Server | undefined;
  afterEach(
    () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  );

  async function worker(status: number): Promise<{ url: string; bodies: unknown[] }> {
    const bodies: unknown[] = [];
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        bodies.push({
          method: req.method,
          type: req.headers['content-type'],
          event: JSON.parse(body),
        });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/tasks`, bodies };
  }

  it('POSTs the event as JSON to the worker', async () => {
    const { url, bodies } = await worker(202);
    await postingHandler(url)(event);
    expect(bodies).toEqual([{ method: 'POST', type: 'application/json', event }]);
  });

  it('fails on an answer other than 2xx, and refuses a target that is not an http URL', async () => {
    const { url } = await worker(500);
    await expect(postingHandler(url)(event)).rejects.toThrow(`${url} answered 500`);
    expect(() => postingHandler('arn:aws:lambda:us-east-1:000000000000:function:w')).toThrow(
      /http:\/\/ URL/,
    );
  });
});
