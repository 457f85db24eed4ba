/**
 * Runs driven by the pure core and committed through the DynamoDB execution store, and readers of
 * the raw items the store writes, for the execution store's tests against DynamoDB Local.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { expect } from 'vitest';
import type { TableRef } from '../../lib/adapters/dynamodb/client.js';
import { DynamoExecutionStore } from '../../lib/adapters/dynamodb/execution-store.js';
import { itemSize } from '../../lib/adapters/dynamodb/item-size.js';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import type { HistoryEvent } from '../../lib/core/history-event.js';
import { queueChanges } from '../../lib/core/task-queue.js';
import type { LoadedRun, RunWrite } from '../../lib/ports/run-store.js';
import { RunDriver } from './core-builders.js';
import { type FreshTable, tableForFile } from './local.js';

/** A fresh table for the calling test file, and execution stores over it. */
export function executionStoreTable(prefix: string): {
  table: () => FreshTable;
  storeWith: (stateItemBudget?: number) => DynamoExecutionStore;
} {
  const table = tableForFile(prefix);
  const storeWith = (stateItemBudget?: number) =>
    new DynamoExecutionStore(table(), stateItemBudget === undefined ? {} : { stateItemBudget });
  return { table, storeWith };
}

/** A run driven by the pure core, each step committed through a store as one write. */
export class StoredRun {
  readonly driver: RunDriver;
  private committed = 0;
  loaded: LoadedRun | undefined;
  /** The events of the latest commit. */
  lastEvents: HistoryEvent[] = [];

  constructor(
    private readonly store: DynamoExecutionStore,
    runId: string,
    startAt?: number,
  ) {
    this.driver = new RunDriver(startAt === undefined ? {} : { startAt });
    // RunDriver's runs share one runId: give this one its own.
    const execution = { ...this.driver.state.execution, runId };
    this.driver.state = { ...this.driver.state, execution };
  }

  get runId() {
    return this.driver.state.execution.runId;
  }

  /** Commits what the driver appended since the last commit. */
  async commit(step: (driver: RunDriver) => unknown = () => undefined, via = this.store) {
    const before = this.loaded?.state;
    step(this.driver);
    const events = this.driver.history.slice(this.committed);
    const write: RunWrite = {
      state: this.driver.state,
      events,
      queue: queueChanges(before, this.driver.state),
      ...(this.loaded === undefined ? {} : { base: this.loaded }),
    };
    expect(await via.commit([write], [])).toBe('committed');
    this.committed = this.driver.history.length;
    this.lastEvents = events;
    this.loaded = await this.store.loadRun(this.runId);
  }

  async readAll(store = this.store): Promise<readonly HistoryEvent[]> {
    return (await store.readHistory(this.runId, { limit: 10_000, reverse: false })).events;
  }
}

/** Reads the whole history page by page (size `limit`) in one direction. */
export async function readPaged(
  store: DynamoExecutionStore,
  runId: string,
  limit: number,
  reverse: boolean,
): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await store.readHistory(runId, {
      limit,
      reverse,
      ...(after === undefined ? {} : { after }),
    });
    events.push(...page.events);
    if (page.next === undefined) return events;
    after = page.next;
  }
}

/** The first and last event ids of each of the run's history chunks. */
export async function chunksOf(table: TableRef, runId: string) {
  const result = await table.doc.query({
    TableName: table.tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :h)',
    ExpressionAttributeValues: { ':pk': keys.runPartition(runId), ':h': 'H|' },
    ConsistentRead: true,
  });
  return (result.Items ?? []).map((item) => ({
    first: Number(item.first),
    last: Number(item.last),
  }));
}

export async function stateItemBytes(table: TableRef, runId: string): Promise<number> {
  const { Item } = await table.doc.get({
    TableName: table.tableName,
    Key: keys.runState(runId),
    ConsistentRead: true,
  });
  return Item === undefined ? 0 : itemSize(marshall(Item));
}

/** The run's state item as stored (empty when there is none). */
export async function stateItem(table: TableRef, runId: string) {
  const { Item } = await table.doc.get({
    TableName: table.tableName,
    Key: keys.runState(runId),
    ConsistentRead: true,
  });
  return Item ?? {};
}
