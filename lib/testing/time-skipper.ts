/**
 * Skips a test environment's time. Virtual time jumps to the next deadline at once when nothing in
 * the environment could happen before it: every open run waits on timers and timeouts alone (no task
 * queued or started, nothing for the service to carry out), no call is being answered (a long poll
 * waiting is no work), no deadline fire is running, and the outbox has handled every change committed
 * (a change may start a child, deliver a signal or schedule a task). Otherwise time runs at the rate
 * of real time, so a running activity's heartbeat timeout still catches it. See docs/testing.md.
 */
import type { ExecutionState } from '../core/execution-state.js';
import type { HttpRequest } from '../http/dispatch.js';
import type { RunBook } from './run-book.js';
import type { VirtualClock } from './virtual-clock.js';

/** The parts of the local service the skipper watches and moves. */
export interface SkippedService {
  readonly scheduler: { readonly firing: number; clockMoved(): void };
  /** Resolves once the outbox has handled every change committed before the call. */
  streamCaughtUp(): Promise<void>;
}

/**
 * How often the skipper looks again with nothing told to it: a deadline fire retried after a failure
 * is the one change it is not told of.
 */
const RECHECK_MS = 100;

/** How far past a deadline a skip lands: past it by the clock however the milliseconds round. */
const PAST_DEADLINE_MS = 1;

const LONG_POLLS = ['PollForDecisionTask', 'PollForActivityTask'];

/** Whether a request is a long poll, whose wait for a task is no work of the service. */
export function isLongPoll(request: HttpRequest): boolean {
  const target = request.headers['x-amz-target'] ?? '';
  return LONG_POLLS.includes(target.slice(target.lastIndexOf('.') + 1));
}

export class TimeSkipper {
  readonly #clock: VirtualClock;
  readonly #runs: RunBook;
  #service: SkippedService | undefined;
  /** Calls being answered, long polls aside. */
  #calls = 0;
  /** Counts every change that may make work: a commit, the start or end of a call. */
  #generation = 0;
  #holds = 0;
  #closed = false;
  readonly #napping = new Set<() => void>();
  /** Skips and sleeps, one at a time. */
  #turn: Promise<void> = Promise.resolve();
  #loop: Promise<void> | undefined;

  constructor(clock: VirtualClock, runs: RunBook) {
    this.#clock = clock;
    this.#runs = runs;
  }

  /** Starts skipping time on its own. */
  start(service: SkippedService): void {
    this.#service = service;
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#closed = true;
    this.#kick();
    await this.#loop;
  }

  /** A run's state was committed. */
  committed(state: ExecutionState): void {
    this.#runs.record(state);
    this.#generation++;
    this.#kick();
  }

  /** Runs one call the service answers, counted as work unless it is a long poll. */
  async aroundCall<T>(call: () => Promise<T>, request: HttpRequest): Promise<T> {
    if (isLongPoll(request)) return call();
    this.#calls++;
    this.#generation++;
    try {
      return await call();
    } finally {
      this.#calls--;
      this.#generation++;
      this.#kick();
    }
  }

  /** Whether time is held (see hold). */
  get held(): boolean {
    return this.#holds > 0;
  }

  /** Time does not skip by itself until the returned release is called (env.sleep still moves it). */
  hold(): () => void {
    this.#holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds--;
      this.#kick();
    };
  }

  /**
   * Moves time forward by `ms`, by hand: each deadline on the way fires at its own time, in order,
   * once the service has carried out what the one before caused and deciders have answered the
   * decision tasks they started. Tasks queued or activities running do not hold it up.
   */
  sleep(ms: number): Promise<void> {
    const target = this.#clock.now() + ms;
    return this.#exclusive(async () => {
      for (;;) {
        await this.#settle(true);
        const next = this.#runs.nextDeadline();
        if (next === undefined || next > target) break;
        if (next > this.#clock.now()) this.#moveTo(next + PAST_DEADLINE_MS);
        // Due already: its fire is on its way (or being tried again).
        else await this.#nap(RECHECK_MS);
      }
      this.#moveTo(target);
      await this.#settle(false);
    });
  }

  async #run(): Promise<void> {
    let again = false;
    while (!this.#closed) {
      if (!again) await this.#nap(RECHECK_MS);
      if (this.#closed) return;
      again = this.#holds === 0 && (await this.#exclusive(() => this.#skipIfIdle()));
    }
  }

  /**
   * One look: the jump to the next deadline if nothing can happen before it. True when something
   * changed while it looked, so it should look again at once.
   */
  async #skipIfIdle(): Promise<boolean> {
    const service = this.#service;
    const target = this.#idleUntil();
    if (service === undefined || target === undefined) return false;
    const generation = this.#generation;
    await service.streamCaughtUp();
    // Between the look and now nothing may have changed: no commit, no call begun or ended.
    if (this.#closed || this.#holds > 0) return false;
    if (generation !== this.#generation || this.#idleUntil() !== target) return true;
    this.#moveTo(target + PAST_DEADLINE_MS);
    return false;
  }

  /** The next deadline when the environment has nothing to do before it. */
  #idleUntil(): number | undefined {
    if (this.#calls > 0 || (this.#service?.scheduler.firing ?? 0) > 0) return undefined;
    const next = this.#runs.nextDeadlineWhenIdle();
    return next !== undefined && next > this.#clock.now() ? next : undefined;
  }

  #moveTo(ms: number): void {
    this.#clock.advanceTo(ms);
    this.#service?.scheduler.clockMoved();
  }

  /**
   * Waits until the service has nothing in progress: no call, no fire, the outbox caught up; with
   * `decisions`, no decision task started and unanswered either.
   */
  async #settle(decisions: boolean): Promise<void> {
    const service = this.#service;
    if (service === undefined) return;
    for (;;) {
      if (this.#closed) return;
      const busy =
        this.#calls > 0 ||
        service.scheduler.firing > 0 ||
        (decisions && this.#runs.hasStartedDecisionTask());
      if (busy) {
        await this.#nap(RECHECK_MS);
        continue;
      }
      const generation = this.#generation;
      await service.streamCaughtUp();
      if (generation === this.#generation && this.#calls === 0 && service.scheduler.firing === 0)
        return;
    }
  }

  /** Waits for the next change told to the skipper, or `ms` at most. */
  #nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#napping.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#napping.add(done);
    });
  }

  /** Ends every nap: something changed. */
  #kick(): void {
    for (const done of [...this.#napping]) done();
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#turn.then(work);
    this.#turn = turn.then(
      () => {},
      () => {},
    );
    return turn;
  }
}
