import { describe, expect, it } from 'vitest';
import {
  InProcessTaskNotifier,
  NoTaskNotifier,
} from '../../../lib/adapters/in-process/task-notifier.js';
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

  it('delivers a handed task to the reserved waiter, whom notify and time no longer end', async () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const wait = n.wait('decision', 'd', 'l', 5, stop.signal);
    wait.acceptHandoff(starter);
    const reservation = n.reserve('decision', 'd', 'l');
    n.notify('decision', 'd', 'l');
    await new Promise((resolve) => setTimeout(resolve, 20));
    reservation?.deliver({ started: 7 });
    await expect(wait.done).resolves.toEqual({ result: { started: 7 } });
  });

  it("delivers a handed task to its reserved waiter even once the poll's signal fired (a stopping server, the Lambda's deadline: its caller is still there)", async () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const wait = n.wait('decision', 'd', 'l', 10_000, stop.signal);
    wait.acceptHandoff(starter);
    const reservation = n.reserve('decision', 'd', 'l');
    stop.abort();
    reservation?.deliver({ started: 7 });
    await expect(wait.done).resolves.toEqual({ result: { started: 7 } });
  });

  it('hands a task a gone caller left to an idle waiter of its list', async () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const idle = n.wait('decision', 'd', 'l', 10_000, stop.signal);
    idle.acceptHandoff(starter);
    const other = n.wait('decision', 'd', 'other', 10_000, stop.signal);
    other.acceptHandoff(starter);
    n.orphan('decision', 'd', 'l', { started: 7 });
    await expect(idle.done).resolves.toEqual({ result: { started: 7 } });
    expect(n.adopt('decision', 'd', 'l')).toBeUndefined();
    stop.abort();
    await expect(other.done).resolves.toBeUndefined();
  });

  it('keeps a task left by a gone caller for the next poll of its list when none waits idle, and wakes the busy ones', async () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const busy = n.wait('activity', 'd', 'l', 10_000, stop.signal); // reading its queue
    n.orphan('activity', 'd', 'l', { started: 1 });
    n.orphan('activity', 'd', 'l', { started: 2 });
    await expect(busy.done).resolves.toBeUndefined();
    expect(n.adopt('activity', 'd', 'other')).toBeUndefined();
    expect(n.adopt('activity', 'd', 'l')).toEqual({ result: { started: 1 } });
    expect(n.adopt('activity', 'd', 'l')).toEqual({ result: { started: 2 } });
    expect(n.adopt('activity', 'd', 'l')).toBeUndefined();
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

describe('InProcessTaskNotifier.goFor', () => {
  const entry = (runId: string, scheduledEventId: number) => ({
    kind: 'activity' as const,
    domain: 'd',
    runId,
    taskList: 'l',
    taskPriority: '0',
    scheduledAt: 0,
    scheduledEventId,
  });

  it('lets one poller of the process at a time go for an entry, until it lets go', () => {
    const n = new InProcessTaskNotifier();
    const release = n.goFor(entry('r1', 5));
    expect(release).toBeDefined();
    expect(n.goFor(entry('r1', 5))).toBeUndefined();
    const other = n.goFor(entry('r1', 6)); // another task of the same run
    expect(other).toBeDefined();
    expect(n.goFor(entry('r2', 5))).toBeDefined();
    release?.();
    expect(n.goFor(entry('r1', 5))).toBeDefined();
  });
});

describe('NoTaskNotifier (each request in a container of its own)', () => {
  it('lets every poller go for every entry: containers cannot see each other', () => {
    const n = new NoTaskNotifier();
    const e = {
      kind: 'decision' as const,
      domain: 'd',
      runId: 'r',
      taskList: 'l',
      taskPriority: '0',
      scheduledAt: 0,
      scheduledEventId: 2,
    };
    expect(n.goFor(e)).toBeDefined();
    expect(n.goFor(e)).toBeDefined();
  });

  it('never wakes a waiter early nor hands it a task: the poll re-reads the queue when its wait ends', async () => {
    const n = new NoTaskNotifier();
    const stop = new AbortController();
    const started = Date.now();
    const wait = n.wait('activity', 'd', 'l', 50, stop.signal);
    wait.acceptHandoff(starter);
    n.notify('activity', 'd', 'l');
    expect(n.reserve('activity', 'd', 'l')).toBeUndefined();
    expect(n.waiting('activity', 'd', 'l')).toBe(0);
    await expect(wait.done).resolves.toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('keeps no task a gone caller left: no other request of the container can take it', () => {
    const n = new NoTaskNotifier();
    n.orphan('activity', 'd', 'l', { started: 1 });
    expect(n.adopt('activity', 'd', 'l')).toBeUndefined();
  });

  it('ends a wait when its poll is abandoned', async () => {
    const n = new NoTaskNotifier();
    const stop = new AbortController();
    const wait = n.wait('decision', 'd', 'l', 60_000, stop.signal);
    stop.abort();
    await expect(wait.done).resolves.toBeUndefined();
    const gone = new AbortController();
    gone.abort();
    await expect(n.wait('decision', 'd', 'l', 60_000, gone.signal).done).resolves.toBeUndefined();
  });
});

describe('a look at a queue on time alone', () => {
  it('is due for one caller per list per interval in one process, and for every caller apart', async () => {
    const n = new InProcessTaskNotifier();
    expect(n.lookDue('activity', 'd', 'l', 50)).toBe(true);
    expect(n.lookDue('activity', 'd', 'l', 50)).toBe(false);
    expect(n.lookDue('activity', 'd', 'other', 50)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(n.lookDue('activity', 'd', 'l', 50)).toBe(true);
    const apart = new NoTaskNotifier();
    expect([1, 2, 3].map(() => apart.lookDue('activity', 'd', 'l', 50))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('is told apart from a wake: a wait says whether only its time ended it', async () => {
    const n = new InProcessTaskNotifier();
    const stop = new AbortController();
    const timed = n.wait('activity', 'd', 'l', 5, stop.signal);
    await timed.done;
    expect(timed.endedByTime()).toBe(true);
    const woken = n.wait('activity', 'd', 'l', 10_000, stop.signal);
    n.notify('activity', 'd', 'l');
    await woken.done;
    expect(woken.endedByTime()).toBe(false);
  });
});
