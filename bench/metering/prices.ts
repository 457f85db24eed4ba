/**
 * us-east-1 on-demand list prices (USD), as published on the AWS pricing pages when this was written
 * (looked up in 2026; DynamoDB's on-demand prices are those after the November 2024 cut). Free tiers
 * are ignored: the figures are for a service past them.
 */
export const US_EAST_1 = {
  /** DynamoDB on-demand: per write request unit and per read request unit. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /** API Gateway HTTP API, per request (first 300 million a month). */
  httpApiRequest: 1.0 / 1e6,
  /** Lambda: per invocation, and per GB-second on Arm (Graviton, first 7.5 billion GB-s a month). */
  lambdaRequest: 0.2 / 1e6,
  lambdaArmGbSecond: 0.0000133334,
  lambdaX86GbSecond: 0.0000166667,
  /** SQS standard queue, per request (each 64 KB chunk of a payload is one request). */
  sqsRequest: 0.4 / 1e6,
  /** EventBridge Scheduler, per scheduled invocation (creating a schedule is free). */
  schedulerInvocation: 1.0 / 1e6,
  /**
   * EC2 c7g.large on demand (Graviton3, 2 vCPU, 4 GiB: the smallest type at Lambda Managed
   * Instances' 2 GiB per vCPU), per hour; the instances add a management fee of 15 % of that.
   */
  ec2C7gLargeHour: 0.0725,
  managedInstancesFee: 0.15,
  /** Amazon SWF: $0.000025 per workflow task, activity task, timer or signal. */
  swfTask: 25 / 1e6,
} as const;

export type PriceList = { readonly [K in keyof typeof US_EAST_1]: number };
