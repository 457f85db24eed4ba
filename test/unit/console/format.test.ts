import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  eventSummary,
  formatDuration,
  formatTimeout,
  prettyPayload,
} from '../../../console/src/format.js';
import { readPrebuilt, writeConsole } from '../../../lib/console/assets.js';

describe('how the console writes values', () => {
  it.each([
    [850, '850 ms'],
    [1234, '1.23 s'],
    [30_000, '30 s'],
    [12_400, '12.4 s'],
    [600_000, '10 min'],
    [185_000, '3 min 5 s'],
    [7_800_000, '2 h 10 min'],
    [90_000_000, '1 d 1 h'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('timeouts as SWF gives them', () => {
    expect(formatTimeout('600')).toBe('10 min (600 s)');
    expect(formatTimeout('30')).toBe('30 s');
    expect(formatTimeout('NONE')).toBe('none');
    expect(formatTimeout(undefined)).toBe('—');
  });

  it('pretty-prints JSON payloads, and leaves other text as it is', () => {
    expect(prettyPayload('{"a":[1,2]}')).toEqual({
      text: '{\n  "a": [\n    1,\n    2\n  ]\n}',
      json: true,
    });
    expect(prettyPayload('{not json')).toEqual({ text: '{not json', json: false });
    expect(prettyPayload('shipped')).toEqual({ text: 'shipped', json: false });
  });

  it('sums up an event by its main members, the empty ones left out', () => {
    const scheduled = {
      eventId: 5,
      eventTimestamp: 1,
      eventType: 'ActivityTaskScheduled',
      activityTaskScheduledEventAttributes: {
        activityType: { name: 'ShipOrder', version: '1' },
        activityId: 'ship',
      },
    };
    expect(eventSummary(scheduled)).toBe('ShipOrder v1 · id ship');
    const marker = {
      eventId: 6,
      eventTimestamp: 1,
      eventType: 'SomethingNew',
      somethingNewEventAttributes: { name: 'x', scheduledEventId: 3 },
    };
    expect(eventSummary(marker)).toBe('name x');
  });
});

describe('the bundle a package ships', () => {
  it('is written by npm run build:console and read back as served', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'console-dist-'));
    try {
      const written = await writeConsole(dir);
      expect(written.sort()).toEqual(['app.css', 'app.js', 'index.html']);
      expect((await readdir(dir)).sort()).toEqual(['app.css', 'app.js', 'index.html']);
      const assets = await readPrebuilt(dir);
      expect(assets.get('app.js')?.contentType).toBe('text/javascript; charset=utf-8');
      expect(assets.get('index.html')?.body.toString()).toContain(
        '<script type="module" src="app.js">',
      );
      // Nothing is loaded from elsewhere: no URL with a host in the page or the bundle.
      expect(assets.get('index.html')?.body.toString()).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect(assets.get('app.js')?.body.toString()).not.toMatch(/import\s*\(?\s*["']https?:/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is refused without its page', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'console-dist-'));
    try {
      await expect(readPrebuilt(dir)).rejects.toThrow(/holds no index.html/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
