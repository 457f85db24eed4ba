import type { TaskKind } from '../../core/task-queue.js';
import type { TaskNotifier } from '../../ports/task-notifier.js';

/** In-process notifier: waiters per task list, woken all at once (one of them wins the claim). */
export class InProcessTaskNotifier implements TaskNotifier {
  private readonly waiters = new Map<string, Set<() => void>>();

  notify(kind: TaskKind, domain: string, taskList: string): void {
    const key = listKey(kind, domain, taskList);
    const set = this.waiters.get(key);
    if (set === undefined) return;
    this.waiters.delete(key);
    for (const wake of set) wake();
  }

  wait(
    kind: TaskKind,
    domain: string,
    taskList: string,
    ms: number,
    signal: AbortSignal,
  ): Promise<void> {
    const key = listKey(kind, domain, taskList);
    return new Promise((resolve) => {
      const set = this.waiters.get(key) ?? new Set<() => void>();
      this.waiters.set(key, set);
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  waiting(kind: TaskKind, domain: string, taskList: string): number {
    return this.waiters.get(listKey(kind, domain, taskList))?.size ?? 0;
  }
}

const listKey = (kind: TaskKind, domain: string, taskList: string) =>
  `${kind}|${domain}|${taskList}`;
