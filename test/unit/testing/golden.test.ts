/**
 * Golden histories: a run is recorded once into a file and read back as SWF answered it; recorded
 * again only when asked.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  goldenHistory,
  historyOf,
  loadHistory,
  events as on,
  saveHistory,
  UPDATE_GOLDEN,
} from '../../../lib/testing/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'golden-'));
});
afterEach(async () => {
  delete process.env[UPDATE_GOLDEN];
  await rm(dir, { recursive: true, force: true });
});

const run = historyOf(
  on.workflowStarted({ workflowType: 'Order', input: 'o-1' }),
  on.timerStarted('wait', '1d'),
  on.timerFired('wait'),
);

describe('golden histories', () => {
  it('saves a history and reads it back as it was, timestamps as dates', async () => {
    const file = join(dir, 'nested', 'order.history.json');
    await saveHistory(file, run);
    const loaded = await loadHistory(file);
    expect(loaded.events).toEqual(run.events);
    expect(loaded.events[0]?.eventTimestamp).toBeInstanceOf(Date);
    expect(loaded.state().timers.get('wait')?.status).toBe('fired');
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.workflowType).toEqual({ name: 'Order', version: '1' });
  });

  it('records a run once, and again only with SWF_UPDATE_GOLDEN=1', async () => {
    const file = new URL(`file://${join(dir, 'run.history.json')}`);
    let recorded = 0;
    const record = async () => {
      recorded++;
      return recorded === 1 ? run : run.with(on.signaled('again'));
    };
    expect((await goldenHistory(file, record)).events).toEqual(run.events);
    expect((await goldenHistory(file, record)).events).toEqual(run.events);
    expect(recorded).toBe(1);
    process.env[UPDATE_GOLDEN] = '1';
    const again = await goldenHistory(file, record);
    expect(recorded).toBe(2);
    expect(again.events.at(-1)?.eventType).toBe('WorkflowExecutionSignaled');
  });

  it('says so when a file holds no history', async () => {
    const file = join(dir, 'not-a-history.json');
    await writeFile(file, '{"hello": "world"}');
    await expect(loadHistory(file)).rejects.toThrow(/holds no history/);
  });
});
