/**
 * Golden histories, recorded through the local service (test/contract/workflow-golden.test.ts):
 * every decision task of each replays, with the workflow's code, to exactly the decisions the
 * history recorded for it: the activities, timers, markers and closes, with their inputs and results.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { WorkflowDefinition } from '../../lib/sdk/index.js';
import { replayDifferences } from '../support/workflow-replay-check.js';
import { readGolden } from './golden/files.js';
import { goldenWorkflows } from './golden/workflows.js';

const names = readdirSync(new URL('./golden/code/', import.meta.url))
  .filter((f) => f.endsWith('.history.json'))
  .map((f) => f.replace('.history.json', ''));

const definitionOf = (typeName: string | undefined): WorkflowDefinition => {
  const found = goldenWorkflows.find((w) => w.name === typeName);
  if (found === undefined) throw new Error(`no golden workflow ${typeName}`);
  return found;
};

it('has the golden histories of every scenario', () => {
  expect(names.length).toBeGreaterThanOrEqual(14);
});

describe.each(names)('golden history %s', (name) => {
  it('replays each decision task to the decisions it recorded', async () => {
    const run = readGolden(name);
    expect(await replayDifferences(definitionOf(run.workflowType.name), run)).toEqual([]);
  });
});
