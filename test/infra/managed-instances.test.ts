/**
 * The API function on Lambda Managed Instances (`apiManagedInstances`, `-c managedInstanceSubnets=…
 * -c managedInstanceSecurityGroups=…`): a capacity provider of Arm instances in the given subnets, its
 * operator role, the function on it (Node.js 22, 2 GB, 64 invocations an environment) with its
 * concurrency budget re-derived from the environments; nothing of it when off; bad values refused.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiManagedInstances } from '../../infra/constructs/api-managed-instances.js';
import { contextProps } from '../../infra/context.js';
import { SwfStack, type SwfStackProps } from '../../infra/swf-stack.js';

const SUBNETS = ['subnet-0a1b2c3d', 'subnet-0e1f2a3b'];
const GROUPS = ['sg-0123abcd'];
const ON: ApiManagedInstances = { subnetIds: SUBNETS, securityGroupIds: GROUPS };

const synth = (props: SwfStackProps = {}) =>
  Template.fromStack(new SwfStack(new App(), 'LmiStack', props));

type Resource = { Properties: Record<string, unknown> };

function functionNamed(template: Template, prefix: string): Resource {
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
    id.startsWith(prefix),
  );
  if (found === undefined) throw new Error(`no function ${prefix}`);
  return found[1] as Resource;
}

const env = (fn: Resource) =>
  (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;

describe('the API function on Lambda Managed Instances', () => {
  let on: Template;
  let off: Template;
  beforeAll(() => {
    on = synth({ apiManagedInstances: ON });
    off = synth();
  }, 120_000);

  it('makes a capacity provider of Arm instances in the given subnets and security groups', () => {
    const providers = Object.values(on.findResources('AWS::Lambda::CapacityProvider'));
    expect(providers).toHaveLength(1);
    const props = (providers[0] as Resource).Properties;
    expect(props.VpcConfig).toEqual({ SubnetIds: SUBNETS, SecurityGroupIds: GROUPS });
    expect(props.InstanceRequirements).toMatchObject({ Architectures: ['arm64'] });
  });

  it('lets only Lambda, for this account, manage the instances, with the documented policy alone', () => {
    const provider = Object.values(
      on.findResources('AWS::Lambda::CapacityProvider'),
    )[0] as Resource;
    const roleRef = (
      provider.Properties.PermissionsConfig as {
        CapacityProviderOperatorRoleArn: { 'Fn::GetAtt': string[] };
      }
    ).CapacityProviderOperatorRoleArn['Fn::GetAtt'][0];
    const role = on.toJSON().Resources[roleRef ?? ''] as Resource;
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain(
      ':iam::aws:policy/AWSLambdaManagedEC2ResourceOperator',
    );
    expect((role.Properties.ManagedPolicyArns as unknown[]).length).toBe(1);
    const trust = (role.Properties.AssumeRolePolicyDocument as { Statement: unknown[] }).Statement;
    expect(trust).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'lambda.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      },
    ]);
    // No inline policy widens it.
    const inline = Object.values(on.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify((p as Resource).Properties.Roles).includes(roleRef ?? '?'),
    );
    expect(inline).toEqual([]);
  });

  it('puts the API function on it: Node.js 22, 2 GB, 64 invocations an environment, 3 to 10 environments', () => {
    const api = functionNamed(on, 'ApiHandler');
    expect(api.Properties.Runtime).toBe('nodejs22.x');
    expect(api.Properties.Architectures).toEqual(['arm64']);
    expect(api.Properties.MemorySize).toBe(2048);
    expect(api.Properties.CapacityProviderConfig).toEqual({
      LambdaManagedInstancesCapacityProviderConfig: {
        CapacityProviderArn: expect.anything(),
        PerExecutionEnvironmentMaxConcurrency: 64,
        ExecutionEnvironmentMemoryGiBPerVCpu: 2,
      },
    });
    expect(JSON.stringify(api.Properties.CapacityProviderConfig)).toContain('CapacityProvider');
    expect(api.Properties.FunctionScalingConfig).toEqual({
      MinExecutionEnvironments: 3,
      MaxExecutionEnvironments: 10,
    });
  });

  it('bounds the API by its environments, not reserved concurrency, and keeps room for other calls', () => {
    const api = functionNamed(on, 'ApiHandler');
    // 10 environments × 64 = 640 invocations at once; polls wait in at most 540 of them.
    expect(api.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(env(api).SWF_MAX_WAITING_POLLS).toBe('540');
    const sized = synth({
      apiManagedInstances: { ...ON, perEnvironmentConcurrency: 100, maxEnvironments: 4 },
    });
    expect(env(functionNamed(sized, 'ApiHandler')).SWF_MAX_WAITING_POLLS).toBe('300');
  }, 120_000);

  it('leaves the function workers invoke directly on Lambda’s default compute', () => {
    const direct = functionNamed(on, 'ApiDirectHandler');
    expect(direct.Properties.CapacityProviderConfig).toBeUndefined();
    expect(direct.Properties.MemorySize).toBe(512);
  });

  it('is nothing of the stack when off', () => {
    expect(off.findResources('AWS::Lambda::CapacityProvider')).toEqual({});
    for (const fn of Object.values(off.findResources('AWS::Lambda::Function')))
      expect((fn as Resource).Properties.CapacityProviderConfig).toBeUndefined();
    expect(JSON.stringify(off.toJSON())).not.toContain('AWSLambdaManagedEC2ResourceOperator');
    const api = functionNamed(off, 'ApiHandler');
    expect(api.Properties.MemorySize).toBe(512);
    expect(api.Properties.ReservedConcurrentExecutions).toBe(400);
  });

  it('launches only the instance types it is given (-c managedInstanceTypes=c7g.large,m7g.large)', () => {
    const types = ['c7g.large', 'm7g.large'];
    const props = contextProps(
      (name) =>
        ({
          managedInstanceSubnets: SUBNETS.join(','),
          managedInstanceSecurityGroups: GROUPS.join(','),
          managedInstanceTypes: types.join(','),
        })[name],
    );
    expect(props.apiManagedInstances?.instanceTypes).toEqual(types);
    const filtered = synth(props);
    const provider = Object.values(filtered.findResources('AWS::Lambda::CapacityProvider'))[0];
    expect((provider as Resource).Properties.InstanceRequirements).toEqual({
      Architectures: ['arm64'],
      AllowedInstanceTypes: types,
    });
    // Without them, Lambda chooses.
    const open = Object.values(on.findResources('AWS::Lambda::CapacityProvider'))[0] as Resource;
    expect(open.Properties.InstanceRequirements).toEqual({ Architectures: ['arm64'] });
  }, 120_000);

  it('is turned on by -c managedInstanceSubnets=… -c managedInstanceSecurityGroups=…', () => {
    const props = contextProps(
      (name) =>
        ({
          managedInstanceSubnets: SUBNETS.join(', '),
          managedInstanceSecurityGroups: GROUPS.join(','),
          managedInstanceConcurrency: '32',
          managedInstanceMaxEnvironments: '6',
        })[name],
    );
    expect(props.apiManagedInstances).toEqual({
      subnetIds: SUBNETS,
      securityGroupIds: GROUPS,
      perEnvironmentConcurrency: 32,
      maxEnvironments: 6,
    });
    expect(contextProps(() => undefined).apiManagedInstances).toBeUndefined();
  });

  it.each([
    [{ ...ON, subnetIds: [] }, 'managedInstances.subnetIds must name 1 to 16 (got 0)'],
    [
      { ...ON, subnetIds: ['vpc-1234'] },
      'managedInstances.subnetIds: "vpc-1234" is not such an id',
    ],
    [
      { ...ON, securityGroupIds: ['sg-1', 'sg-2', 'sg-3', 'sg-4', 'sg-5', 'sg-6'] },
      'managedInstances.securityGroupIds must name 1 to 5 (got 6)',
    ],
    [
      { ...ON, instanceTypes: ['c7i.large'] },
      'managedInstances.instanceTypes: "c7i.large" is not a Graviton instance type',
    ],
    [
      { ...ON, perEnvironmentConcurrency: 0 },
      'managedInstances.perEnvironmentConcurrency must be from 1 to 1600 (got 0)',
    ],
    [
      { ...ON, minEnvironments: 5, maxEnvironments: 4 },
      'managedInstances.minEnvironments (5) exceeds maxEnvironments (4)',
    ],
    [
      { ...ON, perEnvironmentConcurrency: 2, maxEnvironments: 5 },
      'managedInstances: maxEnvironments × perEnvironmentConcurrency must be at least 11 (got 10)',
    ],
  ])('refuses a bad setting before anything is built: %o', (managedInstances, message) => {
    expect(() => synth({ apiManagedInstances: managedInstances })).toThrow(message);
  });

  it('refuses reserved concurrency beside it, and half of the context keys', () => {
    expect(() => synth({ apiManagedInstances: ON, apiReservedConcurrency: 400 })).toThrow(
      'reservedConcurrency does not apply on Lambda Managed Instances',
    );
    const only = (values: Record<string, string>) => () => contextProps((name) => values[name]);
    expect(only({ managedInstanceSubnets: SUBNETS.join(',') })).toThrow(
      'managedInstanceSubnets and managedInstanceSecurityGroups: give both, or neither',
    );
    expect(only({ managedInstanceConcurrency: '32' })).toThrow(
      'apply only with managedInstanceSubnets and managedInstanceSecurityGroups',
    );
    expect(
      only({
        managedInstanceSubnets: SUBNETS[0] ?? '',
        managedInstanceSecurityGroups: GROUPS[0] ?? '',
        managedInstanceMaxEnvironments: 'many',
      }),
    ).toThrow('managedInstanceMaxEnvironments must be a whole number (got many)');
  });
});
