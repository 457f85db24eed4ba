import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  type Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type ServiceEntry, serviceCode } from './function-code.js';

/** What the stack sets on every function of the service alike. */
export interface ServiceFunctionOptions {
  /** X-Ray: `Tracing.ACTIVE` traces each invocation and the AWS calls it makes. @default none */
  readonly tracing?: Tracing;
}

export interface ServiceFunctionProps extends ServiceFunctionOptions {
  /** The handler: functions/<entry>.ts, which exports `handler`. */
  readonly entry: ServiceEntry;
  readonly description?: string;
  /** @default 30 seconds */
  readonly timeout?: Duration;
  /** @default 1024 */
  readonly memorySize?: number;
  readonly environment?: Readonly<Record<string, string>>;
  /** @default one month */
  readonly logRetention?: RetentionDays;
  /**
   * Files written beside the bundle (name → content), read by the function at cold start: what is
   * too large for environment variables (4 KB in all), such as access policies.
   */
  readonly files?: Readonly<Record<string, string>>;
  /**
   * Concurrency kept for this function alone, and its most: a flood of other invocations cannot
   * starve it, nor it them. @default none (the account's unreserved pool)
   */
  readonly reservedConcurrentExecutions?: number;
}

/**
 * A function of the service with its defaults: Node 22 on ARM64, an ESM bundle with the AWS SDK
 * inside and source maps on (function-code.ts), its own log group with a retention, logs in JSON.
 */
export class ServiceFunction extends LambdaFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    // The log group is created before the function (it is one of its props), hence beside it.
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // A role of its own instead of AWSLambdaBasicExecutionRole, which may write to every log group
    // of the account (a function could forge another's audit lines): this one writes to its own.
    const role = new Role(scope, `${id}ServiceRole`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      code: serviceCode(props.entry, props.files),
      handler: 'index.handler',
      ...(props.description === undefined ? {} : { description: props.description }),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      timeout: props.timeout ?? Duration.seconds(30),
      memorySize: props.memorySize ?? 1024,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      logGroup,
      // One JSON object per log event, queryable by field (level, requestId, message). The EMF
      // documents of SWF's metrics are written to stdout as they are (Powertools bypasses the
      // console Lambda wraps), so CloudWatch still extracts them.
      loggingFormat: LoggingFormat.JSON,
      ...(props.tracing === undefined ? {} : { tracing: props.tracing }),
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      role,
    });
  }
}
