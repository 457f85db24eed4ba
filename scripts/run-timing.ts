/**
 * `npm run test:timing` (the last step of `npm test`): the timing project's files one after another,
 * each in a vitest run of its own and so with a DynamoDB Local of its own. These files measure latency
 * or saturate the store; run after one another on a shared DynamoDB Local, a later file inherited the
 * earlier ones' leftovers (dropped tables, their streams) and ran several times slower than alone.
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

/** Runs the timing files whose paths contain one of `only` (every one without any); the failed. */
export function runTimingFiles(only: readonly string[]): string[] {
  const failed: string[] = [];
  for (const file of timing.filter((f) => only.length === 0 || only.some((o) => f.includes(o)))) {
    const run = spawnSync(process.execPath, [vitest, 'run', '--project', 'timing', file], {
      stdio: 'inherit',
    });
    if (run.status !== 0) failed.push(file);
  }
  if (failed.length > 0) console.error(`timing tests failed: ${failed.join(', ')}`);
  return failed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (runTimingFiles(process.argv.slice(2)).length > 0) process.exitCode = 1;
}
