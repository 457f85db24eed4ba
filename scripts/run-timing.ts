/**
 * `npm run test:timing` (the last step of `npm test`): the timing project's files, one after another
 * in one vitest run, each on a DynamoDB Local of its own (vitest.config.ts). These files measure
 * latency or saturate the store; on a DynamoDB Local that earlier files had used, dropped tables and
 * all, a file ran several times slower than alone.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { timing } from '../vitest.config.js';

export const vitest = join(
  dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);

/** Runs the timing files whose paths contain one of `only` (every one without any); true if all pass. */
export function runTimingFiles(only: readonly string[]): boolean {
  const files = timing.filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
  if (files.length === 0) return true;
  const run = spawnSync(process.execPath, [vitest, 'run', '--project', 'timing', ...files], {
    stdio: 'inherit',
  });
  return run.status === 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!runTimingFiles(process.argv.slice(2))) process.exitCode = 1;
}
