import type { DocClient } from './doc-client.js';
import { keys } from './keys.js';
import { outboxRecords } from './table-schema.js';

/** The table's items the admin CLI reads and removes beyond what the service's stores offer. */
export class DynamoAdminItems {
  constructor(
    private readonly doc: DocClient,
    private readonly tableName: string,
  ) {}

  /** Removes one dead letter, filed under when it was written and its record's id. */
  async removeDeadLetter(at: number, id: string): Promise<void> {
    await this.doc.delete({ TableName: this.tableName, Key: keys.deadLetter(at, id) });
  }

  /**
   * A run's state item as stored, without the attributes that hold its packed state and recent
   * events (bytes; the caller shows them decoded), or undefined when there is none.
   */
  async runItem(runId: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.doc.get({
      TableName: this.tableName,
      Key: keys.runState(runId),
      ConsistentRead: true,
    });
    if (Item === undefined) return undefined;
    const { [outboxRecords.stateAttribute]: _state, recent: _recent, ...rest } = Item;
    return rest;
  }
}
