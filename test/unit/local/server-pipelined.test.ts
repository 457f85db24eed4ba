/**
 * Review of 2e57500: serve() adds a listener for its socket's 'end' per request and removes it when
 * the request ends. Node's server runs pipelined requests of one connection at once, so a client that
 * pipelines 9 or more requests puts 11+ 'end' listeners on one socket (Node's own two included):
 * Node's MaxListenersExceededWarning, which the server avoids elsewhere (setMaxListeners on the
 * stopping signal, "Node's warning past ten listeners would say otherwise").
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../../lib/local/server.js';

describe('pipelined requests on one connection', () => {
  it('are all answered, without a MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const server = await startServer(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return {
        statusCode: 200,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: '{}',
      };
    });
    const socket = net.connect(server.port, '127.0.0.1');
    try {
      await new Promise((resolve) => socket.once('connect', resolve));
      let got = '';
      socket.on('data', (d: Buffer) => {
        got += d.toString();
      });
      const request =
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n' +
        'X-Amz-Target: SimpleWorkflowService.ListDomains\r\nContent-Length: 2\r\n\r\n{}';
      socket.write(request.repeat(12));
      const answers = () => (got.match(/HTTP\/1\.1 200/g) ?? []).length;
      for (let i = 0; i < 200 && answers() < 12; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answers()).toBe(12);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      socket.destroy();
      await server.close();
    }
  });
});
