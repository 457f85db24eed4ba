import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  StreamViewType,
  Table,
  TableEncryption,
  type WarmThroughput,
} from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { tableSchema } from '../../lib/adapters/dynamodb/table-schema.js';

export interface SwfTableProps {
  /** What happens to the table (and every workflow in it) when the stack is deleted. @default RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * DynamoDB refuses to delete the table (a stack deletion or replacement included) until this is
   * turned off again. @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * A customer-managed KMS key for the table and its stream; the functions bound to the table are
   * granted its use. The key's policy, rotation and deletion are yours. @default DynamoDB's own key
   */
  readonly encryptionKey?: IKey;
  /**
   * Throughput the on-demand table takes at once, before traffic has grown it. A new table starts at
   * 4,000 write units a second: about 200 SWF round trips a second at 15 write units each
   * (docs/operations.md). Warming is charged once per increase. @default none
   */
  readonly warmThroughput?: WarmThroughput;
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
  readonly encryptionKey: IKey | undefined;

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
      deletionProtection: props.deletionProtection ?? true,
      ...(props.encryptionKey === undefined
        ? {}
        : { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }),
      ...(props.warmThroughput === undefined ? {} : { warmThroughput: props.warmThroughput }),
    });
    this.encryptionKey = props.encryptionKey;
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
   * calls lib/adapters/dynamodb makes and no others (no Scan, no table or stream management), and
   * the use of the table's key when it is the customer's.
   */
  bindTable(fn: LambdaFunction, access: TableAccess = 'readWrite'): void {
    fn.addEnvironment('TABLE_NAME', this.table.tableName);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: access === 'readWrite' ? [...readActions, ...writeActions] : [...readActions],
        resources: [this.table.tableArn, `${this.table.tableArn}/index/*`],
      }),
    );
    // Items are decrypted (and written) with the customer's key: the function needs its use too.
    if (access === 'readWrite') this.encryptionKey?.grantEncryptDecrypt(fn);
    else this.encryptionKey?.grantDecrypt(fn);
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
