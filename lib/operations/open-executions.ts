import type { VisibilityStore } from '../ports/visibility-store.js';
import type { OperationDeps } from './context.js';

/** SWF's quota of open executions per domain, children included. */
export const MAX_OPEN_EXECUTIONS = 100_000;
/** How long a process trusts a domain's count before counting again. */
const COUNT_FRESH_MS = 10_000;

/** A count's age: a negative one is a clock stepped back since (NTP), an age unknown, so not fresh. */
const fresh = (ageMs: number) => ageMs >= 0 && ageMs < COUNT_FRESH_MS;

/**
 * How many open executions a domain has, as this process last counted them (the visibility rows, which
 * are eventually consistent) plus the runs it has started since. Counting costs a query of the domain's
 * open rows, so a process counts a domain at most every 10 s, and only when it is asked to start a run
 * there. The quota is therefore kept approximately, as SWF's documents allow ("may occur earlier"):
 * other processes' starts since the last count are not seen until the next.
 */
export class OpenExecutionGauge {
  readonly #counts = new Map<string, DomainCount>();

  constructor(
    private readonly visibility: VisibilityStore,
    private readonly now: () => number,
  ) {}

  /**
   * How many more executions the domain can have open (0 at the quota). A count that fails (the
   * store throttled it) lets the request through: the quota is approximate, a start is not.
   */
  async room(domain: string): Promise<number> {
    try {
      return await this.#room(domain);
    } catch {
      return MAX_OPEN_EXECUTIONS;
    }
  }

  async #room(domain: string): Promise<number> {
    const known = this.#counts.get(domain);
    const count =
      known?.counting !== undefined
        ? await known.counting
        : known !== undefined && fresh(this.now() - known.at)
          ? known.count
          : await this.#count(domain);
    return Math.max(0, MAX_OPEN_EXECUTIONS - count);
  }

  /** This process opened `n` runs in the domain: counted until the next count replaces them. */
  opened(domain: string, n = 1): void {
    const known = this.#counts.get(domain);
    if (known === undefined) return;
    known.count += n;
    known.openedSince += n;
  }

  /** Counts the domain's open rows; runs opened while counting are added (they may be missing). */
  #count(domain: string): Promise<number> {
    const at = this.now();
    const previous = this.#counts.get(domain);
    const entry: DomainCount = {
      count: previous?.count ?? 0,
      at: previous?.at ?? 0,
      openedSince: 0,
    };
    const counting = this.visibility
      .count({ domain, list: 'open', filter: { kind: 'all' }, range: { oldest: 0 }, retention: 0 })
      .then(
        ({ count }) => {
          const total = count + entry.openedSince;
          this.#counts.set(domain, { count: total, at, openedSince: 0 });
          return total;
        },
        (error: unknown) => {
          if (previous === undefined) this.#counts.delete(domain);
          else this.#counts.set(domain, { count: entry.count, at: previous.at, openedSince: 0 });
          throw error;
        },
      );
    entry.counting = counting;
    this.#counts.set(domain, entry);
    return counting;
  }
}

interface DomainCount {
  count: number;
  /** When `count` was taken (ms). */
  at: number;
  /** A count in flight, and the runs this process opened since it began. */
  counting?: Promise<number>;
  openedSince: number;
}

const gauges = new WeakMap<VisibilityStore, OpenExecutionGauge>();

/** The process's gauge over `deps.visibility` (one per store, so one per process). */
export function openExecutions(deps: Pick<OperationDeps, 'visibility' | 'clock'>) {
  let gauge = gauges.get(deps.visibility);
  if (gauge === undefined) {
    gauge = new OpenExecutionGauge(deps.visibility, () => deps.clock.now());
    gauges.set(deps.visibility, gauge);
  }
  return gauge;
}
