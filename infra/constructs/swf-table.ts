import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { tableSchema } from '../../lib/adapters/dynamodb/table-schema.js';

export interface SwfTableProps {
  /** What happens to the table (and every workflow in it) when the stack is deleted. @default RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

export type TableAccess = 'read' | 'readWrite';

/** CDK's name for each stream view the schema may ask for. */
const streamViews = {
  KEYS_ONLY: StreamViewType.KEYS_ONLY,
  NEW_IMAGE: StreamViewType.NEW_IMAGE,
  OLD_IMAGE: StreamViewType.OLD_IMAGE,
  NEW_AND_OLD_IMAGES: StreamViewType.NEW_AND_OLD_IMAGES,
} as const;

/**
 * The service's one table, built from lib/adapters/dynamodb/table-schema.ts like the local server's,
 * so keys, indexes, TTL and stream cannot drift between the deployed and the local table. Every key
 * attribute is a string, as in createTableInput.
 */
export class SwfTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: SwfTableProps = {}) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: tableSchema.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableSchema.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableSchema.timeToLiveAttribute,
      stream: streamViews[tableSchema.streamView],
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    for (const index of tableSchema.globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      });
    }
  }

  /**
   * Gives a function the table's name in TABLE_NAME and item access to the table and its indexes: the
   * calls lib/adapters/dynamodb makes and no others (no Scan, no table or stream management).
   */
  bindTable(fn: LambdaFunction, access: TableAccess = 'readWrite'): void {
    fn.addEnvironment('TABLE_NAME', this.table.tableName);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: access === 'readWrite' ? [...readActions, ...writeActions] : [...readActions],
        resources: [this.table.tableArn, `${this.table.tableArn}/index/*`],
      }),
    );
  }
}

/** Get and Query (the stores never Scan on AWS: that is the local server's start-up only). */
const readActions = ['dynamodb:GetItem', 'dynamodb:Query'] as const;
/** Single writes, the visibility store's batch writes, and TransactWriteItems (its parts' actions). */
const writeActions = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
] as const;
