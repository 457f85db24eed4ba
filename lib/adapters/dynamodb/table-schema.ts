import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The one table, described once: the CDK stack and the local server (and the tests) both build it from
 * here, so the deployed and the local schema cannot drift apart.
 */
export const tableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** DynamoDB TTL attribute (epoch seconds): closed executions expire after the domain's retention. */
  timeToLiveAttribute: 'expiresAt',
  globalIndexes: [{ indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  streamView: 'NEW_AND_OLD_IMAGES',
} as const;

/**
 * What the stream's records are selected on (the stream function's event filter): a run's state item
 * is `entity = Run`, and says in a boolean whether its change has work for the outbox. Items written
 * before that attribute existed lack it, and are selected whatever they hold.
 */
export const outboxRecords = {
  entityAttribute: 'entity',
  entity: 'Run',
  workAttribute: 'fx',
  /**
   * A run's item whose state is too big for it names the commit attempt that wrote the state apart
   * (`apart`) and how many parts it has (`parts`) instead of holding it (`state`).
   */
  stateAttribute: 'state',
  apartAttribute: 'apart',
  partsAttribute: 'parts',
} as const;

export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyAttributes = [
    tableSchema.partitionKey,
    tableSchema.sortKey,
    ...tableSchema.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttributes.map((name) => ({
      AttributeName: name,
      AttributeType: 'S',
    })),
    KeySchema: [
      { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: tableSchema.globalIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: tableSchema.streamView },
  };
}
