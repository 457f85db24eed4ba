import {
  type ActivityType,
  DescribeActivityTypeCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { deadlineSignal } from '../util.js';

/** How long a failed lookup answers "unknown" before the type is described again. */
const RETRY_AFTER_MS = 60_000;
/** How long one lookup may take: a task's heartbeats wait on it no longer than that. */
const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * The registered default heartbeat timeout of each activity type a worker runs (DescribeActivityType,
 * once per type per worker). A polled task does not carry its heartbeat timeout (PollForActivityTask
 * answers no timeouts), so the worker meets the type's default: a decider that schedules a task with
 * a shorter one is not seen (docs/sdk.md). A lookup that fails or takes over 5 s answers undefined (the
 * configured interval stands) and is tried again a minute later.
 */
export class TypeHeartbeatTimeouts {
  readonly #known = new Map<string, { timeout: Promise<string | undefined>; until: number }>();

  constructor(
    private readonly client: SWFClient,
    private readonly domain: string,
    private readonly logger: Logger,
    private readonly lookupTimeoutMs = LOOKUP_TIMEOUT_MS,
  ) {}

  /** The type's default heartbeat timeout (seconds, or NONE); undefined when unknown. Never rejects. */
  of(type: ActivityType | undefined): Promise<string | undefined> {
    const { name, version } = type ?? {};
    if (!name || !version) return Promise.resolve(undefined);
    const key = JSON.stringify([name, version]);
    const known = this.#known.get(key);
    if (known !== undefined && known.until > Date.now()) return known.timeout;
    const entry = { timeout: this.#describe(name, version, key), until: Number.POSITIVE_INFINITY };
    this.#known.set(key, entry);
    return entry.timeout;
  }

  async #describe(name: string, version: string, key: string): Promise<string | undefined> {
    try {
      // Given up at its deadline even by a client that does not heed the abort.
      const { signal, clear } = deadlineSignal(this.lookupTimeoutMs, 'DescribeActivityType');
      const described = await Promise.race([
        this.client.send(
          new DescribeActivityTypeCommand({ domain: this.domain, activityType: { name, version } }),
          { abortSignal: signal },
        ),
        new Promise<never>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        ),
      ]).finally(clear);
      return described.configuration?.defaultTaskHeartbeatTimeout;
    } catch (error) {
      const entry = this.#known.get(key);
      if (entry !== undefined) entry.until = Date.now() + RETRY_AFTER_MS;
      this.logger.warn(
        'DescribeActivityType failed: heartbeats keep the configured interval for this type',
        { activityType: { name, version }, error: describeError(error) },
      );
      return undefined;
    }
  }
}
