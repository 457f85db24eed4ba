import { Stack } from 'aws-cdk-lib';
import { InstanceType, SecurityGroup, Subnet } from 'aws-cdk-lib/aws-ec2';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  CapacityProvider,
  InstanceTypeFilter,
  type Function as LambdaFunction,
} from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/**
 * The API function on Lambda Managed Instances (docs/dispatch-on-aws.md): its execution environments
 * run on EC2 instances of a capacity provider in your VPC, each serving many invocations at once, and
 * are billed by the instance (EC2's price and a management fee) and the request, not by the
 * GB-second. A waiting long poll then costs its requests only, not a container of its own.
 */
export interface ApiManagedInstances {
  /**
   * The subnets the instances run in (1 to 16, of one VPC; several Availability Zones). They need a
   * way to DynamoDB, SQS, Secrets Manager and CloudWatch Logs: a NAT gateway, or VPC endpoints.
   */
  readonly subnetIds: readonly string[];
  /** The instances' security groups (1 to 5): outbound HTTPS is all they need. */
  readonly securityGroupIds: readonly string[];
  /**
   * Invocations one execution environment serves at once (PerExecutionEnvironmentMaxConcurrency, 1
   * to 1,600): a waiting poll holds one of them. @default 64 (Lambda's own for Node.js, per vCPU)
   */
  readonly perEnvironmentConcurrency?: number;
  /** Execution environments kept running at least. @default 3 (Lambda's: one per zone) */
  readonly minEnvironments?: number;
  /**
   * Execution environments at most: with perEnvironmentConcurrency, the most invocations of the API
   * at once (what reserved concurrency is on Lambda's default compute). @default 10
   */
  readonly maxEnvironments?: number;
  /**
   * The Graviton instance types Lambda may launch (e.g. `c7g.large`, which the bench's cost model
   * prices). @default any Lambda chooses
   */
  readonly instanceTypes?: readonly string[];
}

/** Lambda's own default for Node.js: 64 invocations at once per vCPU (an environment has one). */
export const DEFAULT_PER_ENVIRONMENT_CONCURRENCY = 64;
const DEFAULT_MIN_ENVIRONMENTS = 3;
const DEFAULT_MAX_ENVIRONMENTS = 10;
/**
 * An environment of one vCPU at the least memory per vCPU Lambda allows (2 GiB): the function's
 * memory must cover it.
 */
export const MANAGED_INSTANCES_MEMORY_MB = 2048;
const MEMORY_GIB_PER_VCPU = 2;
/** An Arm (Graviton) instance type: a family whose generation is followed by `g` (c7g, m8gd…). */
const GRAVITON_TYPE = /^[a-z]+\d+g[a-z]*\.[a-z0-9]+$/;

/** The settings checked and defaulted; a bad one fails the synth, naming it. */
export function managedInstancesSettings(props: ApiManagedInstances) {
  const ids = (
    name: string,
    values: readonly string[],
    pattern: RegExp,
    most: number,
    what = 'such an id',
  ) => {
    if (values.length < 1 || values.length > most)
      throw new Error(`managedInstances.${name} must name 1 to ${most} (got ${values.length})`);
    for (const value of values)
      if (!pattern.test(value))
        throw new Error(`managedInstances.${name}: ${JSON.stringify(value)} is not ${what}`);
    return values;
  };
  const count = (name: string, value: number, least: number, most: number) => {
    if (!Number.isInteger(value) || value < least || value > most)
      throw new Error(`managedInstances.${name} must be from ${least} to ${most} (got ${value})`);
    return value;
  };
  const min = count(
    'minEnvironments',
    props.minEnvironments ?? DEFAULT_MIN_ENVIRONMENTS,
    0,
    15_000,
  );
  const max = count(
    'maxEnvironments',
    props.maxEnvironments ?? DEFAULT_MAX_ENVIRONMENTS,
    1,
    15_000,
  );
  if (min > max)
    throw new Error(`managedInstances.minEnvironments (${min}) exceeds maxEnvironments (${max})`);
  return {
    subnetIds: ids('subnetIds', props.subnetIds, /^subnet-[0-9a-f]+$/, 16),
    securityGroupIds: ids('securityGroupIds', props.securityGroupIds, /^sg-[0-9a-f]+$/, 5),
    perEnvironmentConcurrency: count(
      'perEnvironmentConcurrency',
      props.perEnvironmentConcurrency ?? DEFAULT_PER_ENVIRONMENT_CONCURRENCY,
      1,
      1_600,
    ),
    minEnvironments: min,
    maxEnvironments: max,
    instanceTypes:
      props.instanceTypes === undefined
        ? undefined
        : ids('instanceTypes', props.instanceTypes, GRAVITON_TYPE, 50, 'a Graviton instance type'),
  };
}

/** Invocations of the API at once on the instances: what its concurrency budget is made of. */
export const managedInstancesConcurrency = (props: ApiManagedInstances) => {
  const settings = managedInstancesSettings(props);
  return settings.maxEnvironments * settings.perEnvironmentConcurrency;
};

/**
 * A capacity provider of Arm instances in the given subnets, and `fn` on it. Lambda manages the
 * instances through an operator role holding only the AWS-managed policy Lambda documents as what it
 * needs, which only Lambda, acting for this account, may assume.
 */
export function runOnManagedInstances(
  scope: Construct,
  fn: LambdaFunction,
  props: ApiManagedInstances,
): CapacityProvider {
  const settings = managedInstancesSettings(props);
  const account = Stack.of(scope).account;
  const operatorRole = new Role(scope, 'CapacityOperatorRole', {
    description: 'Lets Lambda run the SWF API function on EC2 instances (Lambda Managed Instances)',
    assumedBy: new ServicePrincipal('lambda.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': account } },
    }),
    managedPolicies: [
      ManagedPolicy.fromAwsManagedPolicyName('AWSLambdaManagedEC2ResourceOperator'),
    ],
  });
  const provider = new CapacityProvider(scope, 'CapacityProvider', {
    subnets: settings.subnetIds.map((id, i) => Subnet.fromSubnetId(scope, `Subnet${i}`, id)),
    securityGroups: settings.securityGroupIds.map((id, i) =>
      SecurityGroup.fromSecurityGroupId(scope, `SecurityGroup${i}`, id),
    ),
    operatorRole,
    architectures: [Architecture.ARM_64],
    ...(settings.instanceTypes === undefined
      ? {}
      : {
          instanceTypeFilter: InstanceTypeFilter.allow(
            settings.instanceTypes.map((type) => new InstanceType(type)),
          ),
        }),
  });
  provider.addFunction(fn, {
    perExecutionEnvironmentMaxConcurrency: settings.perEnvironmentConcurrency,
    executionEnvironmentMemoryGiBPerVCpu: MEMORY_GIB_PER_VCPU,
    latestPublishedScalingConfig: {
      minExecutionEnvironments: settings.minEnvironments,
      maxExecutionEnvironments: settings.maxEnvironments,
    },
  });
  return provider;
}
