import {
  type ActivityType,
  DescribeActivityTypeCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';

/** How long a failed lookup answers "unknown" before the type is described again. */
const RETRY_AFTER_MS = 60_000;

/**
 * The registered default heartbeat timeout of each activity type a worker runs (DescribeActivityType,
 * once per type per worker). A polled task does not carry its heartbeat timeout (PollForActivityTask
 * answers no timeouts), so the worker meets the type's default: a decider that schedules a task with
 * a shorter one is not seen (README). A lookup that fails answers undefined (the configured interval
 * stands) and is tried again a minute later.
 */
export class TypeHeartbeatTimeouts {
  readonly #known = new Map<string, { timeout: Promise<string | undefined>; until: number }>();

  constructor(
    private readonly client: SWFClient,
    private readonly domain: string,
    private readonly logger: Logger,
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
      const described = await this.client.send(
        new DescribeActivityTypeCommand({ domain: this.domain, activityType: { name, version } }),
      );
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
