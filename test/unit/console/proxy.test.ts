import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf } from '../../../console/src/swf.js';
import type { ConsoleAssets } from '../../../lib/console/assets.js';
import { type RunningProxy, startConsoleProxy } from '../../../lib/console/proxy.js';
import type { Signing, SigningName } from '../../../lib/console/signing.js';
import {
  type StubService,
  sdkSignature,
  signatureOf,
  startStubService,
} from '../../support/stub-aws-json.js';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
  sessionToken: 'session-token',
};
const page = Buffer.from('<!doctype html><title>console</title>');
const assets = async (): Promise<ConsoleAssets> =>
  new Map([['index.html', { contentType: 'text/html; charset=utf-8', body: page, etag: '"x"' }]]);

let stub: StubService;
beforeAll(async () => {
  stub = await startStubService();
});
afterAll(() => stub.close());

async function withProxy<T>(
  options: {
    service?: SigningName;
    region?: string;
    credentials?: () => Promise<typeof credentials>;
  },
  use: (proxy: RunningProxy) => Promise<T>,
): Promise<T> {
  const signing: Signing = {
    endpoint: new URL(stub.endpoint),
    service: options.service ?? 'execute-api',
    region: options.region ?? 'eu-west-1',
    local: false,
  };
  const proxy = await startConsoleProxy({
    signing,
    credentials: options.credentials ?? (async () => credentials),
    assets,
  });
  try {
    return await use(proxy);
  } finally {
    await proxy.close();
  }
}

const call = (
  proxy: RunningProxy,
  action: string,
  body: object,
  headers: Record<string, string> = {},
) =>
  fetch(`${proxy.url}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `SimpleWorkflowService.${action}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });

describe('the console proxy', () => {
  it.each([
    ['execute-api', 'eu-west-1'],
    ['lambda', 'ap-southeast-2'],
    ['swf', 'us-west-2'],
  ] as const)(
    'signs each call as %s in %s, with the user credentials and a valid SigV4 signature',
    async (service, region) => {
      await withProxy({ service, region }, async (proxy) => {
        stub.received.length = 0;
        stub.answers.push({
          status: 200,
          body: { domainInfos: [{ name: 'orders', status: 'REGISTERED' }] },
        });
        const answer = await call(proxy, 'ListDomains', { registrationStatus: 'REGISTERED' });
        expect(answer.status).toBe(200);
        expect(await answer.json()).toEqual({
          domainInfos: [{ name: 'orders', status: 'REGISTERED' }],
        });
        const [received] = stub.received;
        if (received === undefined) throw new Error('nothing forwarded');
        expect(received.body).toEqual({ registrationStatus: 'REGISTERED' });
        expect(received.headers['x-amz-target']).toBe('SimpleWorkflowService.ListDomains');
        expect(received.headers['x-amz-security-token']).toBe('session-token');
        const authorization = String(received.headers.authorization);
        expect(authorization).toMatch(
          new RegExp(`Credential=AKIDEXAMPLE/\\d{8}/${region}/${service}/aws4_request`),
        );
        expect(signatureOf(authorization)).toBe(
          await sdkSignature(received, { credentials, region, service }),
        );
      });
    },
  );

  it('gives the page an error the endpoint answered as it came (a refused credential is shown with its fault)', async () => {
    await withProxy({}, async (proxy) => {
      stub.answers.push({
        status: 403,
        body: {
          __type: 'UnrecognizedClientException',
          message: 'The security token included in the request is invalid.',
        },
      });
      const answer = await call(proxy, 'ListDomains', { registrationStatus: 'REGISTERED' });
      expect(answer.status).toBe(403);
      const error = errorOf(
        answer.status,
        answer.headers.get('x-amzn-errortype'),
        await answer.text(),
        'ListDomains',
      );
      expect(error.fault).toBe('UnrecognizedClientException');
      expect(error.message).toBe('The security token included in the request is invalid.');
    });
  });

  it('answers with CredentialsProviderError, and forwards nothing, when the credential chain has none', async () => {
    const refused = async () => {
      throw new Error('Could not load credentials from any providers');
    };
    await withProxy({ credentials: refused }, async (proxy) => {
      stub.received.length = 0;
      const answer = await call(proxy, 'ListDomains', {});
      expect(answer.status).toBe(401);
      const error = errorOf(
        answer.status,
        answer.headers.get('x-amzn-errortype'),
        await answer.text(),
        'ListDomains',
      );
      expect(error.fault).toBe('CredentialsProviderError');
      expect(error.message).toMatch(
        /No AWS credentials to sign with: Could not load credentials from any providers/,
      );
      expect(stub.received).toEqual([]);
    });
  });

  it('says the endpoint is unreachable, as an error the page shows', async () => {
    const signing: Signing = {
      endpoint: new URL('http://127.0.0.1:9'),
      service: 'swf',
      region: 'us-east-1',
      local: false,
    };
    const proxy = await startConsoleProxy({
      signing,
      credentials: async () => credentials,
      assets,
    });
    try {
      const answer = await call(proxy, 'ListDomains', {});
      expect(answer.status).toBe(502);
      expect(await answer.json()).toMatchObject({
        __type: 'NetworkingError',
        message: expect.stringMatching(/Could not reach http:\/\/127\.0\.0\.1:9\//),
      });
    } finally {
      await proxy.close();
    }
  });

  it('forwards calls only from its own page: another Host or Origin, or no SWF action, is refused', async () => {
    await withProxy({}, async (proxy) => {
      stub.received.length = 0;
      const foreign = await call(proxy, 'ListDomains', {}, { origin: 'https://evil.example' });
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toMatchObject({ __type: 'AccessDeniedException' });
      const other = await fetch(`${proxy.url}/`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.Scan',
        },
        body: '{}',
      });
      expect(other.status).toBe(400);
      expect(await other.json()).toMatchObject({ __type: 'UnknownOperationException' });
      const own = await call(proxy, 'ListDomains', {}, { origin: proxy.url });
      expect(own.status).toBe(200);
      expect(stub.received).toHaveLength(1);
    });
  });

  it('serves the console at /console/, sends / there, and has no /metrics', async () => {
    await withProxy({}, async (proxy) => {
      const index = await fetch(`${proxy.url}/console/`);
      expect(index.status).toBe(200);
      expect(await index.text()).toBe(page.toString());
      expect(index.headers.get('content-security-policy')).toMatch(/connect-src 'self'/);
      const root = await fetch(`${proxy.url}/`, { redirect: 'manual' });
      expect(root.status).toBe(302);
      expect(root.headers.get('location')).toBe('/console/');
      expect((await fetch(`${proxy.url}/metrics`)).status).toBe(404);
    });
  });
});
