import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ConsoleAssets, consoleAssets } from './assets.js';

/**
 * A request handler that answers the requests it knows and returns true, or returns false and leaves
 * the request alone: what the local server takes as its route hook.
 */
export type RouteHook = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Where the console is served, on the local server and on the console proxy. */
export const CONSOLE_PATH = '/console/';

/**
 * The page may load only its own files and talk only to its own origin (the SWF endpoint at `POST /`,
 * `GET /metrics`): nothing from a CDN, nothing inline, no framing.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/**
 * The console's pages at /console/ (a RouteHook): GET and HEAD of its files, a redirect from
 * /console, 404 for a file it does not have, 405 for another method. Anything else is left alone.
 * The bundle starts building at once, so the first page comes quickly.
 */
export function consoleRoute(load: () => Promise<ConsoleAssets> = consoleAssets): RouteHook {
  load().catch((error: unknown) => console.error('console: the bundle could not be built', error));
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    if (url.pathname === '/console') {
      res.writeHead(301, { location: `${CONSOLE_PATH}${url.search}` }).end();
      return true;
    }
    if (!url.pathname.startsWith(CONSOLE_PATH)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      req.resume();
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('GET only\n');
      return true;
    }
    const name = url.pathname.slice(CONSOLE_PATH.length) || 'index.html';
    serveAsset(load, name, req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const message = error instanceof Error ? error.message : String(error);
      res
        .writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`The console is not available: ${message}\nBuild it with: npm run build:console\n`);
    });
    return true;
  };
}

async function serveAsset(
  load: () => Promise<ConsoleAssets>,
  name: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const file = (await load()).get(name);
  if (file === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`No such file: ${name}\n`);
    return;
  }
  const headers = { ...SECURITY_HEADERS, etag: file.etag };
  if (req.headers['if-none-match'] === file.etag) {
    res.writeHead(304, headers).end();
    return;
  }
  res.writeHead(200, {
    ...headers,
    'content-type': file.contentType,
    'content-length': String(file.body.length),
  });
  res.end(req.method === 'HEAD' ? undefined : file.body);
}
