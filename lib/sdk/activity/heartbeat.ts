import { describeError, isUnknownResource } from '../errors.js';
import type { Logger } from '../logger.js';
import { cutOrUndefined } from '../util.js';

export interface HeartbeatOptions {
  /** Sends one RecordActivityTaskHeartbeat (given up when `signal` aborts) and returns its `cancelRequested`. */
  readonly send: (details: string | undefined, signal: AbortSignal) => Promise<boolean>;
  readonly intervalMs: number;
  /** How long one heartbeat (its retries included) may take before it is given up. @default heartbeatCallTimeoutMs(intervalMs) */
  readonly callTimeoutMs?: number;
  readonly details: () => string | undefined;
  readonly onCancelRequested: () => void;
  readonly onTaskGone: () => void;
  readonly logger: Logger;
}

/** SWF's limit on a heartbeat's details (RecordActivityTaskHeartbeat): longer details are cut to it. */
export const HEARTBEAT_DETAILS_MAX = 2_048;

/**
 * How long one heartbeat may take: three intervals, and at least 3 s. A request that hangs (a socket
 * that never answers) is given up then, so the next beat goes out instead of waiting on the client's
 * socket timeout while the task's heartbeat timeout runs out.
 */
export const heartbeatCallTimeoutMs = (intervalMs: number) => Math.max(3 * intervalMs, 3_000);

/**
 * Sends a heartbeat every `intervalMs` (the first one interval after start), whether or not the
 * previous one has been answered, carrying the latest details (their first 2,048 characters, SWF's
 * limit). `cancelRequested` and UnknownResourceFault are
 * reported; every other error (throttling, 5xx, network, a heartbeat that takes too long, anything)
 * is logged and the next beat tries again: they never cancel.
 */
export class Heartbeater {
  readonly #options: HeartbeatOptions;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #failures = 0;
  #inFlight = 0;
  readonly #stopping = new AbortController();

  constructor(options: HeartbeatOptions) {
    this.#options = options;
  }

  start(): void {
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#stopping.abort();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#beat(), this.#options.intervalMs);
  }

  async #beat(): Promise<void> {
    if (this.#stopped) return;
    // The next beat is due one interval from now whatever this one does: a request that hangs until
    // it is given up must not hold the next one back (SWF times the task out when no heartbeat
    // lands within its heartbeat timeout). A few may be out at once; beyond that a beat is skipped.
    this.#schedule();
    if (this.#inFlight >= MAX_IN_FLIGHT) return;
    this.#inFlight++;
    try {
      await this.#send();
    } finally {
      this.#inFlight--;
    }
  }

  async #send(): Promise<void> {
    const o = this.#options;
    const timeoutMs = o.callTimeoutMs ?? heartbeatCallTimeoutMs(o.intervalMs);
    const signal = AbortSignal.any([this.#stopping.signal, AbortSignal.timeout(timeoutMs)]);
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
    }
  }
}

/** Heartbeats of one task out at once (the others hanging until given up). */
const MAX_IN_FLIGHT = 3;
