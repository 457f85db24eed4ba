import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the console, ready to be served. */
export interface ConsoleAsset {
  readonly contentType: string;
  readonly body: Buffer;
  /** A strong validator of the body, for conditional GETs. */
  readonly etag: string;
}

/** The console's files by name (`index.html`, `app.js`, `app.css`). */
export type ConsoleAssets = ReadonlyMap<string, ConsoleAsset>;

/** The repository's (or the package's) `console/` folder: the UI's source and its prebuilt bundle. */
const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));
const ENTRY = join(CONSOLE_DIR, 'src', 'main.tsx');
const INDEX_HTML = join(CONSOLE_DIR, 'index.html');
/** Where `npm run build:console` writes the bundle that a package ships (no esbuild at run time). */
export const PREBUILT_DIR = join(CONSOLE_DIR, 'dist');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

function asset(name: string, body: Buffer): [string, ConsoleAsset] {
  const contentType = CONTENT_TYPES[extname(name)] ?? 'application/octet-stream';
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return [name, { contentType, body, etag }];
}

/**
 * Bundles the console's source with esbuild, in memory: the page, its script and its styles, minified,
 * with nothing left to fetch from elsewhere. About a quarter of a second.
 */
export async function buildConsole(): Promise<ConsoleAssets> {
  // esbuild is a build tool: only a checkout (or a build step) has it, so it is loaded on demand.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: { app: ENTRY },
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const files = new Map<string, ConsoleAsset>([asset('index.html', await readFile(INDEX_HTML))]);
  for (const file of result.outputFiles)
    files.set(...asset(file.path.split(/[\\/]/).pop() ?? '', Buffer.from(file.contents)));
  return files;
}

/** Reads a bundle written by writeConsole. */
export async function readPrebuilt(dir: string): Promise<ConsoleAssets> {
  const files = new Map<string, ConsoleAsset>();
  for (const name of await readdir(dir)) files.set(...asset(name, await readFile(join(dir, name))));
  if (!files.has('index.html')) throw new Error(`${dir} holds no index.html`);
  return files;
}

/** Writes the bundle into `dir` (`npm run build:console`, for a package to ship). */
export async function writeConsole(dir = PREBUILT_DIR): Promise<string[]> {
  const files = await buildConsole();
  await mkdir(dir, { recursive: true });
  for (const [name, file] of files) await writeFile(join(dir, name), file.body);
  return [...files.keys()];
}

/**
 * The console's files: built from its source when the source is there (a checkout: always what the
 * source says, never a stale bundle), else the bundle a package ships in `console/dist`. Built once
 * per process and kept.
 */
let loaded: Promise<ConsoleAssets> | undefined;
export function consoleAssets(): Promise<ConsoleAssets> {
  loaded ??= (async () => {
    if (existsSync(ENTRY)) {
      try {
        return await buildConsole();
      } catch (error) {
        if (!existsSync(PREBUILT_DIR)) throw error;
      }
    }
    return readPrebuilt(PREBUILT_DIR);
  })();
  // A failed build (a syntax error being fixed) is tried again on the next request.
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}
