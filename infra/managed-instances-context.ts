import type { SwfStackProps } from './swf-stack.js';

/**
 * `-c managedInstanceSubnets=subnet-a,subnet-b -c managedInstanceSecurityGroups=sg-c` puts the API
 * function on Lambda Managed Instances in those subnets (docs/dispatch-on-aws.md);
 * `managedInstanceConcurrency`, `managedInstanceMinEnvironments` and `managedInstanceMaxEnvironments`
 * size it; `managedInstanceTypes=c7g.large,m7g.large` limits the instance types. Without the subnets and security groups, none of them may be given.
 */
export function managedInstancesContext(
  context: (name: string) => unknown,
): Pick<SwfStackProps, 'apiManagedInstances'> {
  const subnets = idList(context('managedInstanceSubnets'));
  const groups = idList(context('managedInstanceSecurityGroups'));
  const types = idList(context('managedInstanceTypes'));
  const sizes = {
    perEnvironmentConcurrency: count(context, 'managedInstanceConcurrency'),
    minEnvironments: count(context, 'managedInstanceMinEnvironments'),
    maxEnvironments: count(context, 'managedInstanceMaxEnvironments'),
  };
  if (subnets === undefined && groups === undefined) {
    if (types !== undefined || Object.values(sizes).some((size) => size !== undefined))
      throw new Error(
        'managedInstanceTypes, managedInstanceConcurrency and the environments apply only with managedInstanceSubnets and managedInstanceSecurityGroups',
      );
    return {};
  }
  if (subnets === undefined || groups === undefined)
    throw new Error(
      'managedInstanceSubnets and managedInstanceSecurityGroups: give both, or neither',
    );
  return {
    apiManagedInstances: {
      subnetIds: subnets,
      securityGroupIds: groups,
      ...(types === undefined ? {} : { instanceTypes: types }),
      ...Object.fromEntries(Object.entries(sizes).filter(([, size]) => size !== undefined)),
    },
  };
}

/** A comma-separated list of ids (the construct checks each), or undefined when not set. */
const idList = (value: unknown) =>
  value === undefined
    ? undefined
    : String(value)
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== '');

function count(context: (name: string) => unknown, name: string): number | undefined {
  const value = context(name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number))
    throw new Error(`${name} must be a whole number (got ${String(value)})`);
  return number;
}
