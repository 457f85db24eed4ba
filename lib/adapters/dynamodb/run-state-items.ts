import type { ExecutionState } from '../../core/execution-state.js';
import type { LoadedRun } from '../../ports/run-store.js';
import type { TableRef } from './client.js';
import { parseEvents } from './history-chunks.js';
import { keys } from './keys.js';
import { versionOf } from './run-versions.js';
import type { StateParts } from './state-parts.js';

/** A run's state item as read: its state (from the item or its parts), version and recent events. */
export interface StoredRun {
  readonly state: ExecutionState;
  readonly version: number;
  readonly recent: unknown;
}

/** Reads runs' state items, judging retention by `nowSeconds` (DynamoDB's TTL deletes lazily). */
export class RunStateItems {
  constructor(
    private readonly table: TableRef,
    private readonly parts: StateParts,
    private readonly nowSeconds: () => number,
  ) {}

  async load(runId: string): Promise<LoadedRun | undefined> {
    const stored = await this.read(runId);
    if (stored === undefined || stored === 'expired') return undefined;
    return {
      state: stored.state,
      version: stored.version,
      recentEvents: parseEvents(stored.recent),
    };
  }

  /** A run's state item, or 'expired' once its retention has passed (before TTL's delete). */
  async read(runId: string): Promise<StoredRun | 'expired' | undefined> {
    const { Item } = await this.table.doc.get({
      TableName: this.table.tableName,
      Key: keys.runState(runId),
      ConsistentRead: true,
    });
    const version = versionOf(Item);
    if (Item === undefined || version === undefined) return undefined;
    if (typeof Item.expiresAt === 'number' && Item.expiresAt <= this.nowSeconds()) return 'expired';
    const state = await this.parts.stateIn(runId, Item);
    return state === undefined ? undefined : { state, version, recent: Item.recent };
  }
}
