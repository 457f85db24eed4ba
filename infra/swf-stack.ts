import { CfnOutput, type RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type FrontDoor, SwfApi } from './constructs/swf-api.js';
import { SwfOutbox } from './constructs/swf-outbox.js';
import { SwfTable } from './constructs/swf-table.js';

export interface SwfStackProps extends StackProps {
  /** @default RETAIN: deleting the stack keeps the table and every workflow in it. */
  readonly tableRemovalPolicy?: RemovalPolicy;
  readonly logRetention?: RetentionDays;
  /** Roles ScheduleLambdaFunction tasks may run as (see SwfOutboxProps). @default this account's */
  readonly lambdaTaskRoleArns?: readonly string[];
  /** The HTTP API (DESIGN.md's) or the API function's own URL (see SwfApiProps). @default 'http-api' */
  readonly frontDoor?: FrontDoor;
}

/**
 * The SWF-compatible service: HTTP API (IAM auth), or the function's own URL → api Lambda → one
 * DynamoDB table, whose stream runs
 * the outbox (stream function), with deadlines on SQS and EventBridge Scheduler (timer function).
 */
export class SwfStack extends Stack {
  readonly table: SwfTable;
  readonly api: SwfApi;
  readonly outbox: SwfOutbox;

  constructor(scope: Construct, id: string, props: SwfStackProps = {}) {
    super(scope, id, props);
    this.table = new SwfTable(
      this,
      'Table',
      props.tableRemovalPolicy === undefined ? {} : { removalPolicy: props.tableRemovalPolicy },
    );
    this.api = new SwfApi(this, 'Api', {
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      ...(props.frontDoor === undefined ? {} : { frontDoor: props.frontDoor }),
    });
    this.table.bindTable(this.api.handler);
    // Domain ARNs carry the account id; the function could read it from its ARN, this saves the parse.
    this.api.handler.addEnvironment('ACCOUNT_ID', this.account);
    this.outbox = new SwfOutbox(this, 'Outbox', {
      table: this.table,
      ...(props.lambdaTaskRoleArns === undefined
        ? {}
        : { lambdaTaskRoleArns: props.lambdaTaskRoleArns }),
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
    new CfnOutput(this, 'SwfEndpoint', {
      description:
        this.api.frontDoor === 'http-api'
          ? 'Point SWF clients here (SigV4 as execute-api; execute-api:Invoke on POST /)'
          : 'Point SWF clients here (SigV4 as lambda; lambda:InvokeFunctionUrl and lambda:InvokeFunction)',
      value: this.api.url,
    });
    new CfnOutput(this, 'SwfSigningName', {
      description: "The SigV4 service name SWF clients sign with (createSwfClient's signingName)",
      value: this.api.signingName,
    });
  }
}
