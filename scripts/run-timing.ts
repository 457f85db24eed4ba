/**
 * `npm run test:timing` (the last step of `npm test`): the timing phase, after every other suite.
 * First the `timing-loads` files, two at a time: they load the machine or DynamoDB Local heavily but
 * hold no bound that other load breaks. Then the `timing` files, one after another in one vitest run
 * with nothing beside them: they measure latency, or hold bounds that other load broke. Every file
 * of both runs gets a DynamoDB Local of its own (dynamodb-global-setup.ts): on one that earlier files
 * had used, dropped tables and all, a file ran several times slower than alone.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loads, timing } from '../vitest.config.js';

export const vitest = join(
  dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);

/** The timing phase's projects, in the order they run: the files of each, and how many at a time. */
export const timingPhase = [
  { project: 'timing-loads', files: loads, workers: 2 },
  { project: 'timing', files: timing, workers: 1 },
] as const;

/** Runs the timing phase's files whose paths contain one of `only` (every one without any); true if all pass. */
export function runTimingFiles(only: readonly string[]): boolean {
  let passed = true;
  for (const { project, files, workers } of timingPhase) {
    const chosen = files.filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
    if (chosen.length === 0) continue;
    const run = spawnSync(
      process.execPath,
      [vitest, 'run', '--project', project, `--maxWorkers=${workers}`, ...chosen],
      { stdio: 'inherit' },
    );
    passed &&= run.status === 0;
  }
  return passed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!runTimingFiles(process.argv.slice(2))) process.exitCode = 1;
}
