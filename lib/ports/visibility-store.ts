import type {
  ExecutionInfo,
  VisibilityChanges,
  VisibilityFilter,
  VisibilityList,
} from '../core/visibility.js';

export interface TimeRange {
  /** Epoch seconds, inclusive. */
  readonly oldest: number;
  /** Epoch seconds, inclusive; none means no upper bound. */
  readonly latest?: number;
}

export interface VisibilityQuery {
  readonly domain: string;
  readonly list: VisibilityList;
  readonly filter: VisibilityFilter;
  /**
   * For a filter by type name (kind `type`): every version of that name that may have executions.
   * Rows are kept by name and version only; the name's listing merges its versions' rows.
   */
  readonly versions?: readonly string[];
  readonly range: TimeRange;
  /**
   * The domain's retention in seconds: closed rows whose retention has passed are not shown, whether or
   * not DynamoDB's TTL has deleted them yet.
   */
  readonly retention: number;
}

export interface VisibilityPage {
  readonly infos: readonly ExecutionInfo[];
  /** Opaque cursor of the next page, present only when more rows follow. */
  readonly next?: string;
}

export interface VisibilityCount {
  readonly count: number;
  /** The store stopped counting at its cap: `count` is a lower bound. */
  readonly truncated: boolean;
}

/** The rows behind ListOpen/ListClosed/CountOpen/CountClosedWorkflowExecutions, and retention. */
export interface VisibilityStore {
  /** Writes a run's row changes (idempotent); closed rows expire at `expiresAt` (epoch seconds). */
  apply(changes: VisibilityChanges, expiresAt: number | undefined): Promise<void>;
  /** Newest first unless `reverse`; `after` is the `next` of the previous page. */
  list(
    query: VisibilityQuery,
    page: { limit: number; reverse: boolean; after?: string },
  ): Promise<VisibilityPage>;
  count(query: VisibilityQuery): Promise<VisibilityCount>;
  /**
   * Retention: marks every item a closed run left (state, history, heartbeats) to
   * expire at `expiresAt`. Idempotent: items already marked are not written again.
   */
  expireRun(runId: string, expiresAt: number): Promise<void>;
}
