/**
 * `npm run build` (and `npm pack`'s prepack): the package in dist/, which `files` in package.json
 * ships. It holds the compiled ESM JavaScript of lib/ and infra/ with its `.d.ts` types (tsc), the
 * service's Lambda functions bundled as the CDK construct deploys them (dist/bundles/<entry>), and
 * the console's bundle (dist/console/dist, where lib/console/assets.ts looks in the package). Nothing
 * of it needs tsx, TypeScript or esbuild at run time.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEntry, SERVICE_ENTRIES } from '../infra/constructs/function-code.js';
import { writeConsole } from '../lib/console/assets.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
for (const entry of SERVICE_ENTRIES) {
  const outdir = join(dist, 'bundles', entry);
  bundleEntry(entry, outdir);
  console.log(`bundle ${entry}: ${sizes(outdir)}`);
}
const consoleDir = join(dist, 'console', 'dist');
console.log(`console: ${(await writeConsole(consoleDir)).join(', ')} (${sizes(consoleDir)})`);

/** Each file of a folder with its size. */
function sizes(dir: string): string {
  return readdirSync(dir)
    .map((name) => `${name} ${(statSync(join(dir, name)).size / 1024).toFixed(0)} KiB`)
    .join(', ');
}
