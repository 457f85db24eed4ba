import { describeError, isUnknownResource } from '../errors.js';
import type { Logger } from '../logger.js';
import { cutOrUndefined, deadlineSignal, durationSeconds } from '../util.js';

export interface HeartbeatOptions {
  /**
   * Sends one RecordActivityTaskHeartbeat (given up when `signal` aborts) and returns its
   * `cancelRequested`.
   */
  readonly send: (details: string | undefined, signal: AbortSignal) => Promise<boolean>;
  readonly intervalMs: number;
  /**
   * How long one heartbeat (its retries included) may take before it is given up.
   * @default heartbeatCallTimeoutMs(intervalMs)
   */
  readonly callTimeoutMs?: number;
  readonly details: () => string | undefined;
  readonly onCancelRequested: () => void;
  readonly onTaskGone: () => void;
  readonly logger: Logger;
}

/** SWF's limit on a heartbeat's details (RecordActivityTaskHeartbeat): longer details are cut to it. */
export const HEARTBEAT_DETAILS_MAX = 2_048;

/**
 * How long one heartbeat may take: two intervals, and at least 2 s. A request that hangs (a socket
 * that never answers) is given up then and the next beat goes out at once, instead of waiting on the
 * client's socket timeout while the task's heartbeat timeout runs out.
 */
export const heartbeatCallTimeoutMs = (intervalMs: number) => Math.max(2 * intervalMs, 2_000);

/**
 * The interval that meets a heartbeat timeout of `timeout` (SWF's duration: seconds, or NONE): a
 * third of it. A beat that hangs is given up after one such interval (see `tighten`) and the next
 * sent at once, so with one beat lost the next still lands within two thirds of the timeout.
 * Undefined when the timeout asks for nothing (NONE, unknown, not a number).
 */
export function intervalForHeartbeatTimeout(timeout: string | undefined): number | undefined {
  const seconds = durationSeconds(timeout);
  return seconds !== undefined && seconds > 0 ? Math.floor((seconds * 1_000) / 3) : undefined;
}

/**
 * Sends a heartbeat every `intervalMs` (the first one interval after start), one at a time, carrying
 * the latest details (their first 2,048 characters, SWF's limit). `cancelRequested` and
 * UnknownResourceFault are reported; every other error (throttling, 5xx, network, a heartbeat that
 * takes too long, anything) is logged and the next beat tries again: they never cancel. `tighten`
 * shortens the interval once the task's heartbeat timeout is known to need it.
 */
export class Heartbeater {
  readonly #options: HeartbeatOptions;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #failures = 0;
  #intervalMs: number;
  #callTimeoutMs: number;
  /** When the interval now running began (start, or the latest beat's send); undefined mid-send. */
  #since: number | undefined;
  readonly #stopping = new AbortController();

  constructor(options: HeartbeatOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs;
    this.#callTimeoutMs = options.callTimeoutMs ?? heartbeatCallTimeoutMs(options.intervalMs);
  }

  get intervalMs(): number {
    return this.#intervalMs;
  }

  start(): void {
    this.#since = Date.now();
    this.#schedule();
  }

  /**
   * Beats at least every `intervalMs` from now on, if that is sooner than the interval so far, and
   * gives a beat up after no longer than that (a hung beat must not hold the next one back past the
   * timeout the interval serves); a beat that is waiting is brought forward (at once if its moment has
   * passed).
   */
  tighten(intervalMs: number): void {
    if (this.#stopped || !(intervalMs > 0 && intervalMs < this.#intervalMs)) return;
    this.#intervalMs = intervalMs;
    this.#callTimeoutMs = Math.min(this.#callTimeoutMs, Math.ceil(intervalMs));
    if (this.#since === undefined) return; // a beat is out: the next is scheduled from it
    clearTimeout(this.#timer);
    this.#schedule(Math.max(0, intervalMs - (Date.now() - this.#since)));
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#stopping.abort();
  }

  #schedule(delayMs = this.#intervalMs): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#beat(), delayMs);
  }

  async #beat(): Promise<void> {
    if (this.#stopped) return;
    // One at a time, so the details SWF keeps are always the newest sent; the next is due an
    // interval after this one started, at once if it took that long (a request that hung until it
    // was given up holds the next back no longer than that).
    const started = Date.now();
    this.#since = undefined;
    await this.#send();
    this.#since = started;
    this.#schedule(Math.max(0, this.#intervalMs - (Date.now() - started)));
  }

  async #send(): Promise<void> {
    const o = this.#options;
    const { signal, clear } = deadlineSignal(
      this.#callTimeoutMs,
      'heartbeat',
      this.#stopping.signal,
    );
    try {
      const cancelRequested = await o.send(
        cutOrUndefined(o.details(), HEARTBEAT_DETAILS_MAX),
        signal,
      );
      this.#failures = 0;
      if (cancelRequested && !this.#stopped) o.onCancelRequested();
    } catch (error) {
      if (isUnknownResource(error)) {
        if (!this.#stopped) o.onTaskGone();
        this.stop();
        return;
      }
      if (this.#stopped) return;
      this.#failures++;
      const log = this.#failures === 1 ? o.logger.warn : o.logger.debug;
      log.call(o.logger, 'heartbeat failed; retrying (the activity is not cancelled)', {
        error: describeError(error),
        failures: this.#failures,
      });
    } finally {
      clear();
    }
  }
}
