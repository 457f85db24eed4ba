import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ExecutionState } from '../../core/execution-state.js';
import type { RunChange, RunChangeRecords } from '../../ports/run-changes.js';
import type { RunStore } from '../../ports/run-store.js';
import { keys } from './keys.js';
import { unpackAttribute } from './packed-json.js';
import { outboxRecords } from './table-schema.js';

/** A DynamoDB stream record as both Lambda and the Streams API deliver it (AttributeValue images). */
export interface StreamRecordLike {
  readonly eventID?: string | undefined;
  readonly eventName?: string | undefined;
  readonly dynamodb?:
    | {
        readonly Keys?: Record<string, AttributeValue> | undefined;
        readonly OldImage?: Record<string, AttributeValue> | undefined;
        readonly NewImage?: Record<string, AttributeValue> | undefined;
        readonly SequenceNumber?: string | undefined;
      }
    | undefined;
}

/**
 * Whether the stream function's event source delivers this record (infra/constructs/swf-outbox.ts
 * filters on the same): a change of a run's state item, unless its writer marked it as having no work
 * for the outbox. The local stream poller hands over the same records.
 */
export const isOutboxRecord = (record: StreamRecordLike): boolean =>
  isOutboxImage(record.dynamodb?.NewImage);

/** The same of an item's image (attribute values as DynamoDB's JSON gives them). */
export function isOutboxImage(image: Readonly<Record<string, unknown>> | undefined): boolean {
  const value = (name: string, type: 'S' | 'BOOL'): unknown => {
    const attribute = image?.[name];
    return typeof attribute === 'object' && attribute !== null
      ? Reflect.get(attribute, type)
      : undefined;
  };
  return (
    value(outboxRecords.entityAttribute, 'S') === outboxRecords.entity &&
    value(outboxRecords.workAttribute, 'BOOL') !== false
  );
}

/**
 * The run states of a record. A state too big for its item was written apart from it, and the image
 * names it: it is read from `executions`.
 */
export async function runChange(
  record: StreamRecordLike,
  executions: Pick<RunStore, 'readStateApart'>,
): Promise<RunChange | undefined> {
  const images = record.dynamodb;
  if (images?.NewImage === undefined) return undefined;
  const runId = keys.runIdOf(images.Keys?.pk?.S ?? images.NewImage.pk?.S ?? '');
  const after = await stateOf(images.NewImage, runId, executions);
  if (after === undefined) return undefined;
  const before =
    images.OldImage === undefined ? undefined : await stateOf(images.OldImage, runId, executions);
  return before === undefined ? { after } : { before, after };
}

async function stateOf(
  image: Record<string, AttributeValue>,
  runId: string,
  executions: Pick<RunStore, 'readStateApart'>,
): Promise<ExecutionState | undefined> {
  // Only these attributes matter; other attributes of other items are never decoded here.
  if (image[outboxRecords.entityAttribute]?.S !== outboxRecords.entity) return undefined;
  const apart = image[outboxRecords.apartAttribute]?.S;
  if (apart !== undefined) return executions.readStateApart(runId, apart);
  // The state was packed by this service's own execution store.
  return unpackAttribute<ExecutionState>(image[outboxRecords.stateAttribute]);
}

/**
 * The table's stream records as the outbox reads them: a run's records share its state item's key,
 * and a record's id is its event id (or, from the Streams API, its sequence number).
 */
export const dynamoStreamRecords = (
  executions: Pick<RunStore, 'readStateApart'>,
): RunChangeRecords<StreamRecordLike> => ({
  runOf: (record) => record.dynamodb?.Keys?.pk?.S ?? '',
  idOf: (record) => record.eventID ?? record.dynamodb?.SequenceNumber ?? 'unknown',
  changeOf: (record) => runChange(record, executions),
});
