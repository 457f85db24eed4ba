import type { QueuedTaskRef, TaskKind } from '../../core/task-queue.js';
import type {
  HandoffStarter,
  PollWait,
  Reservation,
  TaskNotifier,
} from '../../ports/task-notifier.js';

type Outcome = { readonly result: unknown } | undefined;

interface Waiter {
  /** Ends the wait (a notify, the time, the signal) unless the waiter is reserved. */
  wake(): void;
  /** Set once the poller accepts handoffs; cleared when it is reserved. */
  starter: HandoffStarter | undefined;
  reserved: boolean;
  /** The poll's signal: fired once the poll ends (its time, its caller gone, the server stopping). */
  readonly signal: AbortSignal;
  finish(outcome: Outcome): void;
}

/** Tasks left by gone callers that one list keeps for its next polls; past this the oldest go. */
const MAX_ORPHANS = 1_000;

/**
 * In-process notifier: waiters per task list. A notify wakes them all (one of them wins the claim);
 * a commit that schedules a task may instead reserve one idle waiter and start the task for it.
 */
export class InProcessTaskNotifier implements TaskNotifier {
  readonly wakesOnQueue = true;
  private readonly waiters = new Map<string, Set<Waiter>>();
  /** Queue entries a poller of this process is claiming (or dropping) right now. */
  private readonly entriesInHand = new Set<string>();
  /** Per list, tasks started for polls whose callers left: the next polls there answer with them. */
  private readonly orphans = new Map<string, unknown[]>();
  /** Per list, when a poller last read its queue on time alone (see lookDue). */
  private readonly lastLook = new Map<string, number>();

  notify(kind: TaskKind, domain: string, taskList: string): void {
    const set = this.waiters.get(listKey(kind, domain, taskList));
    if (set === undefined) return;
    for (const waiter of [...set]) waiter.wake();
  }

  wait(
    kind: TaskKind,
    domain: string,
    taskList: string,
    ms: number,
    signal: AbortSignal,
  ): PollWait {
    const key = listKey(kind, domain, taskList);
    const set = this.waiters.get(key) ?? new Set<Waiter>();
    this.waiters.set(key, set);
    let resolve: (outcome: Outcome) => void = () => {};
    const done = new Promise<Outcome>((r) => {
      resolve = r;
    });
    const leave = () => {
      set.delete(waiter);
      if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
    };
    const waiter: Waiter = {
      starter: undefined,
      reserved: false,
      signal,
      wake: () => {
        if (!waiter.reserved) waiter.finish(undefined);
      },
      finish: (outcome) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', waiter.wake);
        leave();
        resolve(outcome);
      },
    };
    let byTime = false;
    const timer = setTimeout(
      () => {
        byTime = !waiter.reserved;
        waiter.wake();
      },
      Math.max(0, ms),
    );
    signal.addEventListener('abort', waiter.wake, { once: true });
    set.add(waiter);
    if (signal.aborted) waiter.wake();
    return {
      done,
      acceptHandoff: (start) => {
        waiter.starter = start;
      },
      endedByTime: () => byTime,
    };
  }

  lookDue(kind: TaskKind, domain: string, taskList: string, intervalMs: number): boolean {
    const key = listKey(kind, domain, taskList);
    const now = performance.now();
    if (now - (this.lastLook.get(key) ?? Number.NEGATIVE_INFINITY) < intervalMs) return false;
    this.lastLook.set(key, now);
    // Forget lists nobody waits on any more, so the map holds at most the lists with pollers.
    if (this.lastLook.size > 2 * this.waiters.size + 100) {
      for (const k of this.lastLook.keys()) if (!this.waiters.has(k)) this.lastLook.delete(k);
    }
    return true;
  }

  reserve(kind: TaskKind, domain: string, taskList: string): Reservation | undefined {
    const waiter = this.idle(listKey(kind, domain, taskList));
    const start = waiter?.starter;
    if (waiter === undefined || start === undefined) return undefined;
    waiter.reserved = true;
    waiter.starter = undefined;
    return {
      start,
      // Its poll answers with it; one whose caller left meanwhile hands it on (see orphan).
      deliver: (result) => waiter.finish({ result }),
      release: () => waiter.finish(undefined),
    };
  }

  orphan(kind: TaskKind, domain: string, taskList: string, result: unknown): void {
    const key = listKey(kind, domain, taskList);
    const idle = this.idle(key);
    if (idle !== undefined) {
      idle.finish({ result });
      return;
    }
    const kept = this.orphans.get(key) ?? [];
    if (kept.push(result) > MAX_ORPHANS) kept.shift();
    this.orphans.set(key, kept);
    // Polls busy reading the queue look again, and adopt it first.
    this.notify(kind, domain, taskList);
  }

  adopt(
    kind: TaskKind,
    domain: string,
    taskList: string,
  ): { readonly result: unknown } | undefined {
    const key = listKey(kind, domain, taskList);
    const kept = this.orphans.get(key);
    if (kept === undefined) return undefined;
    const result = kept.shift();
    if (kept.length === 0) this.orphans.delete(key);
    return { result };
  }

  /** A poller waiting on the list that takes tasks handed to it, and whose caller is still there. */
  private idle(key: string): Waiter | undefined {
    for (const waiter of this.waiters.get(key) ?? []) {
      if (waiter.starter !== undefined && !waiter.reserved && !waiter.signal.aborted) return waiter;
    }
    return undefined;
  }

  waiting(kind: TaskKind, domain: string, taskList: string): number {
    return this.waiters.get(listKey(kind, domain, taskList))?.size ?? 0;
  }

  goFor(entry: QueuedTaskRef): (() => void) | undefined {
    const key = entryKey(entry);
    if (this.entriesInHand.has(key)) return undefined;
    this.entriesInHand.add(key);
    return () => this.entriesInHand.delete(key);
  }
}

const entryKey = (entry: QueuedTaskRef) =>
  `${entry.kind}|${entry.runId}|${entry.scheduledEventId}|${entry.taskList}`;

const listKey = (kind: TaskKind, domain: string, taskList: string) =>
  `${kind}|${domain}|${taskList}`;

/**
 * What the deployed API amounts to: a Lambda container serves one request at a time, so no poller of
 * another request waits in it to be woken or handed a task (its in-process notifier never finds one),
 * and polls find tasks by reading the queue again every PollingConfig.recheckMs. The bench's cost
 * scenario runs the local stack with it, to count what the deployed service does.
 */
export class NoTaskNotifier implements TaskNotifier {
  readonly wakesOnQueue = false;
  notify(_kind: TaskKind, _domain: string, _taskList: string): void {}

  wait(_kind: TaskKind, _domain: string, _list: string, ms: number, signal: AbortSignal): PollWait {
    let byTime = false;
    const done = new Promise<undefined>((resolve) => {
      const end = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', end);
        resolve(undefined);
      };
      const timer = setTimeout(
        () => {
          byTime = true;
          end();
        },
        Math.max(0, ms),
      );
      signal.addEventListener('abort', end, { once: true });
      if (signal.aborted) end();
    });
    return { done, acceptHandoff: () => {}, endedByTime: () => byTime };
  }

  /** Each container's poll is alone: it must read the queue itself every time. */
  lookDue(_kind: TaskKind, _domain: string, _taskList: string, _intervalMs: number): boolean {
    return true;
  }

  reserve(_kind: TaskKind, _domain: string, _taskList: string): Reservation | undefined {
    return undefined;
  }

  /** No other poll waits here to take it: the task waits out its start-to-close timeout, as in SWF. */
  orphan(_kind: TaskKind, _domain: string, _taskList: string, _result: unknown): void {}

  adopt(_kind: TaskKind, _domain: string, _taskList: string): undefined {
    return undefined;
  }

  waiting(_kind: TaskKind, _domain: string, _taskList: string): number {
    return 0;
  }

  /** Requests in different containers cannot see each other's claims: every poller tries. */
  goFor(_entry: QueuedTaskRef): () => void {
    return () => {};
  }
}
