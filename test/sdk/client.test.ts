/**
 * createSwfClient: what the requests it sends look like (signed, addressed, timed), captured before they
 * leave the process.
 */
import { ListDomainsCommand, type SWFClient } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { createSwfClient, DEFAULT_REQUEST_TIMEOUT_MS } from '../../lib/sdk/index.js';

interface Sent {
  readonly hostname: string;
  readonly headers: Record<string, string>;
}

/** Sends one call and returns the request as signed, stopping it before the network. */
async function sentBy(client: SWFClient): Promise<Sent> {
  let sent: Sent | undefined;
  client.middlewareStack.add(
    () => async (args) => {
      const request = args.request as Sent;
      sent = { hostname: request.hostname, headers: { ...request.headers } };
      throw new Error('captured');
    },
    { step: 'deserialize', priority: 'low', name: 'captureRequest' },
  );
  await expect(
    client.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' })),
  ).rejects.toThrow('captured');
  client.destroy();
  if (sent === undefined) throw new Error('nothing was sent');
  return sent;
}

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

describe('createSwfClient', () => {
  it('signs for API Gateway IAM authorization when asked: execute-api in the credential scope', async () => {
    const sent = await sentBy(
      createSwfClient({
        endpoint: 'https://abc123.execute-api.eu-west-1.amazonaws.com',
        region: 'eu-west-1',
        signingName: 'execute-api',
        credentials,
        maxAttempts: 1,
      }),
    );
    expect(sent.hostname).toBe('abc123.execute-api.eu-west-1.amazonaws.com');
    expect(sent.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request,/,
    );
    expect(sent.headers['x-amz-target']).toBe('SimpleWorkflowService.ListDomains');
  });

  it('signs as SWF by default, for Amazon SWF itself', async () => {
    const sent = await sentBy(
      createSwfClient({ region: 'us-west-2', credentials, maxAttempts: 1 }),
    );
    expect(sent.hostname).toBe('swf.us-west-2.amazonaws.com');
    expect(sent.headers.authorization).toMatch(/\/us-west-2\/swf\/aws4_request,/);
  });

  it('points at the local server with dummy credentials, and outlives a 60 s long poll', async () => {
    const client = createSwfClient({ endpoint: 'local', maxAttempts: 1 });
    const handler = client.config.requestHandler as unknown as {
      configProvider?: Promise<{ requestTimeout?: number }>;
      config?: { requestTimeout?: number };
    };
    const config = handler.config ?? (await handler.configProvider);
    expect(config?.requestTimeout).toBe(DEFAULT_REQUEST_TIMEOUT_MS);
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBeGreaterThanOrEqual(70_000);
    const sent = await sentBy(client);
    expect(sent.hostname).toBe('127.0.0.1');
    expect(sent.headers.authorization).toMatch(/Credential=local\//);
  });
});
