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
  readonly range: TimeRange;
}

export interface VisibilityPage {
  readonly infos: readonly ExecutionInfo[];
  readonly next?: string;
}

/** The rows behind ListOpen/ListClosed/CountOpen/CountClosedWorkflowExecutions. */
export interface VisibilityStore {
  /** Writes a run's row changes; closed rows expire at `expiresAt` (epoch seconds) when given. */
  apply(changes: VisibilityChanges, expiresAt: number | undefined): Promise<void>;
  /** Newest first unless `reverse`. */
  list(
    query: VisibilityQuery,
    page: { limit: number; reverse: boolean; after?: string },
  ): Promise<VisibilityPage>;
  count(query: VisibilityQuery): Promise<{ count: number; truncated: boolean }>;
}
