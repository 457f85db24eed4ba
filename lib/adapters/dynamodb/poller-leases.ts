import type { LeaseSpace, PollerLeaseStore, SlotLease } from '../../ports/poller-leases.js';
import { queryPages, type TableRef } from './client.js';
import { isDynamoError } from './doc-client.js';
import { keys } from './keys.js';

/**
 * Slots one look at a space reads for another live lease: a space holds few ended ones (a poll frees
 * its slot as it ends; only a killed container's stays until its lease ends), so the first page
 * tells. Fifty small items are one read unit.
 */
const OTHERS_PAGE = 50;

/** A slot whose poll's process never freed it leaves the table (TTL) this long after its lease ends. */
const TTL_AFTER_SECONDS = 3_600;

/**
 * The poller slots in the table: an item per slot held, in one partition per space (see
 * keys.pollerSpace). Taking a slot is one conditional put, freeing it one conditional delete; only a
 * crowded space is ever queried. The items carry no `entity`, so the stream's filter passes none of
 * them to the outbox.
 */
export class DynamoPollerLeases implements PollerLeaseStore {
  constructor(private readonly table: TableRef) {}

  async takeSlot(space: LeaseSpace, slot: number, lease: SlotLease, now: number): Promise<boolean> {
    try {
      await this.table.doc.put({
        TableName: this.table.tableName,
        Item: {
          pk: keys.pollerSpace(space),
          sk: keys.pollerSlot(slot),
          holder: lease.holder,
          leaseUntil: lease.until,
          expiresAt: Math.ceil(lease.until / 1000) + TTL_AFTER_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil <= :now OR holder = :holder',
        ExpressionAttributeValues: { ':now': now, ':holder': lease.holder },
      });
      return true;
    } catch (error) {
      if (isDynamoError(error, 'ConditionalCheckFailedException')) return false;
      throw error;
    }
  }

  async freeSlot(space: LeaseSpace, slot: number, holder: string): Promise<void> {
    try {
      await this.table.doc.delete({
        TableName: this.table.tableName,
        Key: { pk: keys.pollerSpace(space), sk: keys.pollerSlot(slot) },
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      });
    } catch (error) {
      if (!isDynamoError(error, 'ConditionalCheckFailedException')) throw error;
    }
  }

  async othersWaiting(
    space: LeaseSpace,
    now: number,
    read: { readonly strong: boolean; readonly except?: string },
  ): Promise<boolean> {
    const { except } = read;
    const page = await this.table.doc.query({
      TableName: this.table.tableName,
      KeyConditionExpression: 'pk = :pk',
      FilterExpression:
        except === undefined ? 'leaseUntil > :now' : 'leaseUntil > :now AND holder <> :holder',
      ExpressionAttributeValues: {
        ':pk': keys.pollerSpace(space),
        ':now': now,
        ...(except === undefined ? {} : { ':holder': except }),
      },
      ProjectionExpression: 'sk',
      ConsistentRead: read.strong,
      Limit: OTHERS_PAGE,
    });
    // A full page of ended leases and more behind it: as good as someone waiting.
    return (page.Items?.length ?? 0) > 0 || page.LastEvaluatedKey !== undefined;
  }

  async liveSlots(space: LeaseSpace, now: number): Promise<number[]> {
    const live: number[] = [];
    const pages = queryPages(this.table, {
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'leaseUntil > :now',
      ExpressionAttributeValues: { ':pk': keys.pollerSpace(space), ':now': now },
      ProjectionExpression: 'sk',
      ConsistentRead: true,
    });
    for await (const page of pages) for (const item of page.Items ?? []) live.push(Number(item.sk));
    return live;
  }
}
