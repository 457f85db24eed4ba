import { describeError, isUnknownResource } from '../errors.js';
import type { Logger } from '../logger.js';

export interface HeartbeatOptions {
  /** Sends one RecordActivityTaskHeartbeat and returns its `cancelRequested`. */
  readonly send: (details: string | undefined) => Promise<boolean>;
  readonly intervalMs: number;
  readonly details: () => string | undefined;
  readonly onCancelRequested: () => void;
  readonly onTaskGone: () => void;
  readonly logger: Logger;
}

/**
 * Sends a heartbeat every `intervalMs` (the first one interval after start), carrying the latest
 * details. `cancelRequested` and UnknownResourceFault are reported; every other error (throttling,
 * 5xx, network, anything) is logged and the next beat tries again: they never cancel.
 */
export class Heartbeater {
  readonly #options: HeartbeatOptions;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #failures = 0;

  constructor(options: HeartbeatOptions) {
    this.#options = options;
  }

  start(): void {
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#beat(), this.#options.intervalMs);
  }

  async #beat(): Promise<void> {
    if (this.#stopped) return;
    const o = this.#options;
    try {
      const cancelRequested = await o.send(o.details());
      this.#failures = 0;
      if (cancelRequested && !this.#stopped) o.onCancelRequested();
    } catch (error) {
      if (isUnknownResource(error)) {
        if (!this.#stopped) o.onTaskGone();
        this.stop();
        return;
      }
      this.#failures++;
      const log = this.#failures === 1 ? o.logger.warn : o.logger.debug;
      log.call(o.logger, 'heartbeat failed; retrying (the activity is not cancelled)', {
        error: describeError(error),
        failures: this.#failures,
      });
    }
    this.#schedule();
  }
}
