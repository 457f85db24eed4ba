import { randomBytes } from 'node:crypto';
import type { ExecutionState } from '../../core/execution-state.js';
import { cutText } from '../../core/limits.js';
import type { DeadLetter, DeadLetterStore } from '../../ports/dead-letter-store.js';
import type { ActivityHeartbeat, HeartbeatStore } from '../../ports/heartbeat-store.js';
import type { LambdaTaskClaims } from '../../ports/lambda-task-claims.js';
import { queryPages, type TableRef } from './client.js';
import { isDynamoError } from './doc-client.js';
import { keys } from './keys.js';
import type { StateParts } from './state-parts.js';

/** What a dead letter keeps of its record and its error (characters: up to three bytes each). */
const DEAD_LETTER_RECORD_CHARS = 64 * 1024;
const DEAD_LETTER_ERROR_CHARS = 4 * 1024;
const cut = (text: string, chars: number) =>
  text.length <= chars ? text : `${cutText(text, chars)}... (${text.length} characters)`;

/** Stream records the outbox could not handle, in one partition of their own. */
export class DeadLetterItems implements DeadLetterStore {
  constructor(private readonly table: TableRef) {}

  async putDeadLetter(id: string, record: string, error: string): Promise<void> {
    const at = Date.now();
    // A run's record can be most of an item itself (its state and recent events, both images): the
    // letter keeps the start of it, enough to find the run and the change, and stays one item.
    await this.table.doc.put({
      TableName: this.table.tableName,
      Item: {
        ...keys.deadLetter(at, id),
        entity: 'DeadLetter',
        id,
        record: cut(record, DEAD_LETTER_RECORD_CHARS),
        error: cut(error, DEAD_LETTER_ERROR_CHARS),
        at,
      },
    });
  }

  async listDeadLetters(): Promise<DeadLetter[]> {
    // A letter is up to ~200 KB: a Query page (1 MB) holds a handful, so every page is read.
    const letters: DeadLetter[] = [];
    const pages = queryPages(this.table, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.deadLetterPartition },
      ConsistentRead: true,
    });
    for await (const page of pages)
      for (const item of page.Items ?? [])
        letters.push({
          id: String(item.id),
          record: String(item.record),
          error: String(item.error),
          at: Number(item.at),
        });
    return letters;
  }
}

/** Activity tasks' latest heartbeats, an item each beside their run's state. */
export class HeartbeatItems implements HeartbeatStore {
  constructor(private readonly table: TableRef) {}

  async putHeartbeat(
    runId: string,
    scheduledEventId: number,
    heartbeat: ActivityHeartbeat,
    expiresAt?: number,
  ): Promise<void> {
    await this.table.doc.put({
      TableName: this.table.tableName,
      Item: {
        ...keys.heartbeat(runId, scheduledEventId),
        entity: 'Heartbeat',
        ...heartbeat,
        ...(expiresAt === undefined ? {} : { expiresAt }),
      },
    });
  }

  async getHeartbeat(
    runId: string,
    scheduledEventId: number,
  ): Promise<ActivityHeartbeat | undefined> {
    const { Item } = await this.table.doc.get({
      TableName: this.table.tableName,
      Key: keys.heartbeat(runId, scheduledEventId),
      ConsistentRead: true,
    });
    if (Item === undefined || typeof Item.at !== 'number') return undefined;
    return { at: Item.at, ...(typeof Item.details === 'string' ? { details: Item.details } : {}) };
  }
}

/** The mark of a Lambda claim's writer (see claimLambdaTask). */
const CLAIM_MARK = 'w';

/** Claims of Lambda tasks: the one invoker that wins a task's claim invokes it. */
export class LambdaClaimItems implements LambdaTaskClaims {
  constructor(private readonly table: TableRef) {}

  async claimLambdaTask(
    runId: string,
    scheduledEventId: number,
    expiresAt: number,
  ): Promise<boolean> {
    const claim = randomBytes(6).toString('base64url');
    try {
      await this.table.doc.put({
        TableName: this.table.tableName,
        Item: {
          ...keys.lambdaClaim(runId, scheduledEventId),
          entity: 'LambdaClaim',
          expiresAt,
          [CLAIM_MARK]: claim,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return true;
    } catch (error) {
      // This claim's own put, landed before its retry: claimed.
      if (isDynamoError(error, 'ConditionalCheckFailedException'))
        return error.Item?.[CLAIM_MARK] === claim;
      throw error;
    }
  }
}

/**
 * Open runs, for the local scheduler to re-arm their deadlines when the local server starts. A Scan:
 * used once at local start-up only, never on a request path.
 */
export async function scanOpenRuns(table: TableRef, parts: StateParts): Promise<ExecutionState[]> {
  const states: ExecutionState[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await table.doc.scan({
      TableName: table.tableName,
      FilterExpression: 'entity = :run',
      ExpressionAttributeValues: { ':run': 'Run' },
      ExclusiveStartKey: startKey,
    });
    for (const item of result.Items ?? []) {
      const state = await parts.stateIn(keys.runIdOf(String(item.pk)), item);
      if (state?.status === 'OPEN') states.push(state);
    }
    startKey = result.LastEvaluatedKey;
  } while (startKey !== undefined);
  return states;
}
