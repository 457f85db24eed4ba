/**
 * `npm run test:only -- [filters]`: the test files whose paths contain a filter (every file without
 * any), as `npm test` runs them: the timing project's files after the others, one at a time and each
 * on a DynamoDB Local of its own (scripts/run-timing.ts), never beside the other projects' load.
 */
import { spawnSync } from 'node:child_process';
import config from '../vitest.config.js';
import { runTimingFiles, vitest } from './run-timing.js';

const filters = process.argv.slice(2);
const projects = (config.test?.projects ?? []).flatMap((project) =>
  typeof project === 'object' && 'test' in project && project.test?.name !== 'timing'
    ? ['--project', String(project.test?.name)]
    : [],
);
const others = spawnSync(
  process.execPath,
  [vitest, 'run', ...projects, '--passWithNoTests', ...filters],
  { stdio: 'inherit' },
);
const timingPassed = runTimingFiles(filters);
if (others.status !== 0 || !timingPassed) process.exitCode = 1;
