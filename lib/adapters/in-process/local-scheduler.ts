import type { Clock } from '../../ports/clock.js';
import type { DeadlineFire, DeadlineScheduler } from '../../ports/deadline-scheduler.js';

export type FireHandler = (fire: DeadlineFire) => Promise<void>;

/**
 * The longest the heap sleeps before it looks at the clock again. Its timer counts monotonic time, and
 * the deadlines are wall-clock times: a clock stepped forward (NTP, a laptop waking from sleep) makes
 * deadlines due that the timer would otherwise reach only by the step's length later.
 */
const MAX_SLEEP_MS = 5_000;
const RETRY_MS = 1_000;

/**
 * The local scheduler: an in-process min-heap of deadlines and one timer for the earliest. The same
 * deadline armed twice is kept once. Deadlines live in memory: the local service re-arms them from the
 * table when it starts, so a restart with --data loses none.
 */
export class LocalDeadlineScheduler implements DeadlineScheduler {
  private heap: DeadlineFire[] = [];
  private readonly armed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running = 0;
  private stopped = false;
  private idle: (() => void)[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly onFire: FireHandler,
    private readonly onError: (error: unknown, fire: DeadlineFire) => void = (error) =>
      console.error('deadline fire failed', error),
    /**
     * Fires are handed over this early: the handler reads the run ahead of time and waits for the
     * deadline itself (see fireRunDeadline), so a slow read does not make the timer late.
     */
    private readonly leadMs = 400,
  ) {}

  async arm(fire: DeadlineFire): Promise<void> {
    if (this.stopped) return;
    const id = `${fire.runId}|${fire.key}|${fire.at}`;
    if (this.armed.has(id)) return;
    this.armed.add(id);
    this.push(fire);
    this.reschedule();
  }

  /**
   * Nothing to save locally: a fire kept in memory costs nothing, and comes to a run that has moved
   * on. (Taking it out of the heap could race the commit that arms the same fire again, as this
   * process arms a change's deadlines at its commit, ahead of the stream.)
   */
  async disarm(_fire: DeadlineFire, _armedAgain: () => Promise<boolean>): Promise<void> {}

  /** Deadlines waiting (for tests and diagnostics). */
  get size(): number {
    return this.heap.length;
  }

  /** Fires handed over whose handler has not finished. */
  get firing(): number {
    return this.running;
  }

  /**
   * Looks at the clock again now: the clock was moved (a test environment skipping time), so the
   * timer set for the earliest deadline counts from a time that is past.
   */
  clockMoved(): void {
    if (!this.stopped) this.fireDue();
  }

  /** Stops firing and waits for fires in progress to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.running > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private reschedule(): void {
    clearTimeout(this.timer);
    const next = this.heap[0];
    if (next === undefined || this.stopped) return;
    const delay = Math.min(
      Math.max(0, next.at * 1000 - this.leadMs - this.clock.now()),
      MAX_SLEEP_MS,
    );
    this.timer = setTimeout(() => this.fireDue(), delay);
  }

  private fireDue(): void {
    const now = this.clock.now();
    while (this.heap[0] !== undefined && this.heap[0].at * 1000 - this.leadMs <= now) {
      const fire = this.pop();
      if (fire === undefined) break;
      this.armed.delete(`${fire.runId}|${fire.key}|${fire.at}`);
      this.running++;
      this.onFire(fire)
        .catch((error: unknown) => {
          this.onError(error, fire);
          // Retry a failed fire: the handler is idempotent and the deadline still stands.
          if (!this.stopped) void this.arm({ ...fire, at: (this.clock.now() + RETRY_MS) / 1000 });
        })
        .finally(() => {
          this.running--;
          if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
        });
    }
    this.reschedule();
  }

  private push(fire: DeadlineFire): void {
    const heap = this.heap;
    heap.push(fire);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const [p, c] = [heap[parent], heap[i]];
      if (p === undefined || c === undefined || p.at <= c.at) break;
      heap[parent] = c;
      heap[i] = p;
      i = parent;
    }
  }

  private pop(): DeadlineFire | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let smallest = i;
        if ((heap[l]?.at ?? Number.POSITIVE_INFINITY) < (heap[smallest]?.at ?? 0)) smallest = l;
        if ((heap[r]?.at ?? Number.POSITIVE_INFINITY) < (heap[smallest]?.at ?? 0)) smallest = r;
        if (smallest === i) break;
        const [a, b] = [heap[i], heap[smallest]];
        if (a === undefined || b === undefined) break;
        heap[i] = b;
        heap[smallest] = a;
        i = smallest;
      }
    }
    return top;
  }
}
