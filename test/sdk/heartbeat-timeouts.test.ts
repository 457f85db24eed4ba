import type { SWFClient } from '@aws-sdk/client-swf';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TypeHeartbeatTimeouts } from '../../lib/sdk/activity/heartbeat-timeouts.js';
import { recordingLogger } from './support.js';

/** A client whose DescribeActivityType answers from `answer`, counting the calls. */
function describing(answer: (name: string) => string | Error) {
  const asked: string[] = [];
  const client = {
    send: async (command: { input: { activityType: { name: string } } }) => {
      const { name } = command.input.activityType;
      asked.push(name);
      const out = answer(name);
      if (out instanceof Error) throw out;
      return { configuration: { defaultTaskHeartbeatTimeout: out } };
    },
  } as unknown as SWFClient;
  return { client, asked };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("a worker's lookup of its types' heartbeat timeouts", () => {
  it('describes each type once and answers its default', async () => {
    const { client, asked } = describing((name) => (name === 'a' ? '5' : 'NONE'));
    const timeouts = new TypeHeartbeatTimeouts(client, 'd', recordingLogger());
    const a = { name: 'a', version: '1' };
    expect(await Promise.all([timeouts.of(a), timeouts.of(a)])).toEqual(['5', '5']);
    expect(await timeouts.of({ name: 'b', version: '1' })).toBe('NONE');
    expect(await timeouts.of(a)).toBe('5');
    expect(await timeouts.of(undefined)).toBeUndefined();
    expect(asked).toEqual(['a', 'b']);
  });

  it('answers undefined when the lookup fails, with a warning, and asks again a minute later', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let denied = true;
    const { client, asked } = describing(() =>
      denied ? Object.assign(new Error('no'), { name: 'AccessDeniedException' }) : '3',
    );
    const logger = recordingLogger();
    const timeouts = new TypeHeartbeatTimeouts(client, 'd', logger);
    const a = { name: 'a', version: '1' };
    expect(await timeouts.of(a)).toBeUndefined();
    expect(await timeouts.of(a)).toBeUndefined();
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(logger.lines)).toContain('DescribeActivityType failed');
    denied = false;
    vi.setSystemTime(Date.now() + 61_000);
    expect(await timeouts.of(a)).toBe('3');
    expect(asked).toHaveLength(2);
  });

  it('gives up a lookup that hangs, as one that fails, and asks again a minute later', async () => {
    let asked = 0;
    const client = {
      send: () => {
        asked++;
        // The first never answers (a stalled connection on a client that ignores the abort).
        return asked === 1
          ? new Promise(() => {})
          : Promise.resolve({ configuration: { defaultTaskHeartbeatTimeout: '2' } });
      },
    } as unknown as SWFClient;
    const timeouts = new TypeHeartbeatTimeouts(client, 'd', recordingLogger(), 50);
    const a = { name: 'a', version: '1' };
    expect(await timeouts.of(a)).toBeUndefined();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await timeouts.of(a)).toBe('2');
    expect(asked).toBe(2);
  });
});
