import { describe, expect, it } from 'vitest';
import { InProcessTaskNotifier } from '../../../lib/adapters/memory/task-notifier.js';
import type { HandoffStarter } from '../../../lib/ports/task-notifier.js';

const starter: HandoffStarter = (state, task, events) => ({
  state,
  events: [...events],
  result: { started: task.scheduledEventId },
});

describe('InProcessTaskNotifier', () => {
  it('wakes every waiter of a list on notify, and only that list', async () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const a = n.wait('activity', 'd', 'l', 10_000, stop.signal);
    const b = n.wait('activity', 'd', 'l', 10_000, stop.signal);
    const other = n.wait('decision', 'd', 'l', 10_000, stop.signal);
    expect(n.waiting('activity', 'd', 'l')).toBe(2);
    n.notify('activity', 'd', 'l');
    await expect(a.done).resolves.toBeUndefined();
    await expect(b.done).resolves.toBeUndefined();
    expect(n.waiting('activity', 'd', 'l')).toBe(0);
    expect(n.waiting('decision', 'd', 'l')).toBe(1);
    stop.abort();
    await expect(other.done).resolves.toBeUndefined();
  });

  it('reserves only waiters that accept handoffs, one per reservation', () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const looking = n.wait('activity', 'd', 'l', 10_000, stop.signal);
    expect(n.reserve('activity', 'd', 'l')).toBeUndefined(); // still reading its queue
    looking.acceptHandoff(starter);
    const first = n.reserve('activity', 'd', 'l');
    expect(first).toBeDefined();
    expect(n.reserve('activity', 'd', 'l')).toBeUndefined();
    stop.abort();
  });

  it('delivers a handed task to the reserved waiter, whom notify, time and abort no longer end', async () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const wait = n.wait('decision', 'd', 'l', 5, stop.signal);
    wait.acceptHandoff(starter);
    const reservation = n.reserve('decision', 'd', 'l');
    n.notify('decision', 'd', 'l');
    stop.abort();
    await new Promise((resolve) => setTimeout(resolve, 20));
    reservation?.deliver({ started: 7 });
    await expect(wait.done).resolves.toEqual({ result: { started: 7 } });
  });

  it('a released waiter goes back to reading its queue', async () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const wait = n.wait('decision', 'd', 'l', 10_000, stop.signal);
    wait.acceptHandoff(starter);
    n.reserve('decision', 'd', 'l')?.release();
    await expect(wait.done).resolves.toBeUndefined();
    expect(n.waiting('decision', 'd', 'l')).toBe(0);
  });

  it('never reserves a waiter whose poll was aborted', () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const wait = n.wait('decision', 'd', 'l', 10_000, stop.signal);
    wait.acceptHandoff(starter);
    stop.abort();
    expect(n.reserve('decision', 'd', 'l')).toBeUndefined();
  });
});
