import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local endpoint in front of a DynamoDB Local started without `sharedDb`, that signs every request
 * it forwards as `accessKeyId`: DynamoDB Local keeps a database per access key id and region, and it
 * checks no signature, so each test file behind a proxy of its own sees a fresh database of the one
 * long-lived JVM, with no change to the credentials its clients use.
 */
export async function startKeyProxy(
  target: string,
  accessKeyId: string,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers };
    if (typeof headers.authorization === 'string')
      headers.authorization = headers.authorization.replace(
        /Credential=[^/]*\//,
        `Credential=${accessKeyId}/`,
      );
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers,
        agent,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
