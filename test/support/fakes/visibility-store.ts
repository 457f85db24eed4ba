/**
 * Visibility in memory: the VisibilityStore port as the DynamoDB adapter answers it (rows kept to the
 * millisecond, newest first, a time range inclusive and rounded inward, closed rows hidden once past
 * their retention, COMPLETED read from every closed row, a type name merging its versions), checked
 * against the same contract suite (test/support/store-contract).
 */
import { assertNever } from '../../../lib/core/assert-never.js';
import {
  type ExecutionInfo,
  MAX_VISIBILITY_MS,
  STATUS_READ_FROM_ALL,
  type VisibilityChanges,
  type VisibilityFilter,
  type VisibilityRow,
  visibilityMillis,
} from '../../../lib/core/visibility.js';
import type {
  VisibilityCount,
  VisibilityPage,
  VisibilityQuery,
  VisibilityStore,
} from '../../../lib/ports/visibility-store.js';

/** A row's place in its list: its time to the millisecond, then its runId. */
const sortKey = (row: VisibilityRow) =>
  `${String(visibilityMillis(row.time)).padStart(16, '0')}|${row.runId}`;

/** A filter as a string, whatever order its members were written in. */
function filterKey(f: VisibilityFilter): string {
  switch (f.kind) {
    case 'all':
      return 'all';
    case 'workflowId':
      return JSON.stringify([f.kind, f.workflowId]);
    case 'type':
      return JSON.stringify([f.kind, f.name]);
    case 'typeVersion':
      return JSON.stringify([f.kind, f.name, f.version]);
    case 'tag':
      return JSON.stringify([f.kind, f.tag]);
    case 'closeStatus':
      return JSON.stringify([f.kind, f.status]);
    default:
      return assertNever(f);
  }
}

export interface VisibilityRowItem {
  readonly row: VisibilityRow;
  readonly info: ExecutionInfo;
  readonly expiresAt?: number;
}

export interface InMemoryVisibilityOptions {
  readonly nowSeconds?: () => number;
  /** Counting stops here and answers `truncated: true`. */
  readonly maxCount?: number;
  /** What expireRun does to the run's other items (the execution stores' part). */
  readonly expireRun?: (runId: string, expiresAt: number) => void;
}

export class InMemoryVisibilityStore implements VisibilityStore {
  /** Stores over the same `rows` are the service's processes over one table. */
  constructor(
    private readonly options: InMemoryVisibilityOptions = {},
    private readonly rows: Map<string, VisibilityRowItem> = new Map(),
  ) {}

  async apply(changes: VisibilityChanges, expiresAt: number | undefined): Promise<void> {
    for (const row of changes.remove) this.rows.delete(this.key(row));
    for (const row of changes.put)
      this.rows.set(this.key(row), {
        row,
        info: changes.info,
        ...(row.list !== 'open' && expiresAt !== undefined ? { expiresAt } : {}),
      });
  }

  async list(
    query: VisibilityQuery,
    page: { limit: number; reverse: boolean; after?: string },
  ): Promise<VisibilityPage> {
    const ascending = page.reverse;
    const { after } = page;
    const rows = this.matching(query)
      .sort((a, b) => (ascending ? 1 : -1) * (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0))
      .filter((r) => after === undefined || (ascending ? r.sk > after : r.sk < after));
    const shown = rows.slice(0, page.limit);
    const last = shown[shown.length - 1];
    const infos = shown.map((r) => r.info);
    return rows.length > page.limit && last !== undefined ? { infos, next: last.sk } : { infos };
  }

  async count(query: VisibilityQuery): Promise<VisibilityCount> {
    const maxCount = this.options.maxCount ?? 100_000;
    const count = this.matching(query).length;
    return count > maxCount ? { count: maxCount, truncated: true } : { count, truncated: false };
  }

  async expireRun(runId: string, expiresAt: number): Promise<void> {
    this.options.expireRun?.(runId, expiresAt);
  }

  private matching(query: VisibilityQuery): { sk: string; info: ExecutionInfo }[] {
    const now = this.options.nowSeconds?.() ?? Date.now() / 1000;
    const oldest =
      query.list === 'closed-by-close'
        ? Math.max(query.range.oldest, now - query.retention)
        : query.range.oldest;
    const low = visibilityMillis(oldest, 'up');
    const high = visibilityMillis(query.range.latest ?? MAX_VISIBILITY_MS / 1000, 'down');
    const fromAll =
      query.list !== 'open' &&
      query.filter.kind === 'closeStatus' &&
      query.filter.status === STATUS_READ_FROM_ALL;
    const filters = this.filters(query, fromAll).map(filterKey);
    return [...this.rows.values()]
      .filter(({ row, info, expiresAt }) => {
        const ms = visibilityMillis(row.time);
        return (
          row.domain === query.domain &&
          row.list === query.list &&
          filters.includes(filterKey(row.filter)) &&
          ms >= low &&
          ms <= high &&
          (row.list === 'open' || expiresAt === undefined || expiresAt > now) &&
          (!fromAll || info.closeStatus === STATUS_READ_FROM_ALL)
        );
      })
      .map(({ row, info }) => ({ sk: sortKey(row), info }));
  }

  /** The row filters a query reads: a type name's are those of its versions. */
  private filters(query: VisibilityQuery, fromAll: boolean): VisibilityFilter[] {
    const { filter } = query;
    if (fromAll) return [{ kind: 'all' }];
    if (filter.kind !== 'type') return [filter];
    return (query.versions ?? []).map((version) => ({
      kind: 'typeVersion',
      name: filter.name,
      version,
    }));
  }

  private key(row: VisibilityRow): string {
    return JSON.stringify([row.domain, row.list, filterKey(row.filter), sortKey(row)]);
  }
}
