import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleAssets } from '../../../lib/console/assets.js';
import { consoleRoute } from '../../../lib/console/route.js';
import { type RunningServer, startServer } from '../../../lib/local/server.js';

const asset = (body: string, contentType: string) => ({
  contentType,
  body: Buffer.from(body),
  etag: `"${body.length}"`,
});
const assets = async (): Promise<ConsoleAssets> =>
  new Map([
    ['index.html', asset('<!doctype html>page', 'text/html; charset=utf-8')],
    ['app.js', asset('console.log(1)', 'text/javascript; charset=utf-8')],
  ]);

let server: RunningServer;
const dispatched: string[] = [];
beforeAll(async () => {
  server = await startServer(
    async (request) => {
      dispatched.push(`${request.method} ${request.headers['x-amz-target'] ?? ''}`);
      return {
        statusCode: 200,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: '{"domainInfos":[]}',
      };
    },
    { routes: consoleRoute(assets) },
  );
});
afterAll(() => server.close());

describe('the local server serves the console at /console/ beside the SWF endpoint', () => {
  it('GET /console/ and its files, with a strict content policy and validators', async () => {
    const page = await fetch(`${server.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(
      /default-src 'none'; script-src 'self'/,
    );
    expect(await page.text()).toBe('<!doctype html>page');
    const script = await fetch(`${server.url}/console/app.js`);
    expect(await script.text()).toBe('console.log(1)');
    const again = await fetch(`${server.url}/console/app.js`, {
      headers: { 'if-none-match': script.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
    const head = await fetch(`${server.url}/console/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('19');
  });

  it('/console redirects, an unknown file is 404, another method 405', async () => {
    const bare = await fetch(`${server.url}/console?x=1`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/console/?x=1']);
    expect((await fetch(`${server.url}/console/nope.js`)).status).toBe(404);
    const put = await fetch(`${server.url}/console/`, { method: 'PUT', body: 'x' });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('leaves every POST, even to /console/, and every other GET to the SWF endpoint', async () => {
    dispatched.length = 0;
    const call = await fetch(`${server.url}/`, {
      method: 'POST',
      headers: {
        'x-amz-target': 'SimpleWorkflowService.ListDomains',
        'content-type': 'application/x-amz-json-1.0',
      },
      body: '{}',
    });
    expect(await call.json()).toEqual({ domainInfos: [] });
    await (
      await fetch(`${server.url}/console/`, {
        method: 'POST',
        headers: { 'x-amz-target': 'SimpleWorkflowService.ListDomains' },
        body: '{}',
      })
    ).text();
    await (await fetch(`${server.url}/`)).text();
    expect(dispatched).toEqual([
      'POST SimpleWorkflowService.ListDomains',
      'POST SimpleWorkflowService.ListDomains',
      'GET ',
    ]);
  });

  it('says why when the console cannot be built, without touching the endpoint', async () => {
    const broken = await startServer(async () => ({ statusCode: 200, headers: {}, body: '' }), {
      routes: consoleRoute(() => Promise.reject(new Error('esbuild is not installed'))),
    });
    try {
      const page = await fetch(`${broken.url}/console/`);
      expect(page.status).toBe(503);
      expect(await page.text()).toMatch(/esbuild is not installed[\s\S]*npm run build:console/);
    } finally {
      await broken.close();
    }
  });
});
