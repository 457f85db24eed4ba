/**
 * `npm run test:only -- [filters]`: the test files whose paths contain a filter (every file without
 * any), as `npm test` runs them: the timing phase's files after the others, each on a DynamoDB Local
 * of its own (scripts/run-timing.ts), never beside the other projects' load.
 */
import { spawnSync } from 'node:child_process';
import config from '../vitest.config.js';
import { runTimingFiles, timingPhase, vitest } from './run-timing.js';

const filters = process.argv.slice(2);
const timingProjects = new Set<string>(timingPhase.map((run) => run.project));
const projects = (config.test?.projects ?? []).flatMap((project) =>
  typeof project === 'object' &&
  'test' in project &&
  !timingProjects.has(String(project.test?.name))
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
