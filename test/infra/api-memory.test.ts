/**
 * The API function's memory (`apiMemorySize`, `-c apiMemorySize=160`): what a waiting poller costs
 * an hour. It sizes the front door's function only; the function push-task-list workers invoke keeps
 * the default; sizes Lambda has not, and a size beside Lambda Managed Instances, are refused.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_MEMORY_MB } from '../../infra/constructs/swf-api.js';
import { contextProps } from '../../infra/context.js';
import { SwfStack, type SwfStackProps } from '../../infra/swf-stack.js';

/** Synthesized without bundling the functions' code: only their settings are looked at. */
const stack = (props: SwfStackProps) =>
  new SwfStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'MemoryStack', props);

const propsOf = (values: Record<string, string>) => contextProps((name) => values[name]);

function memoryOf(template: Template, prefix: string): unknown {
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
    id.startsWith(prefix),
  );
  if (found === undefined) throw new Error(`no function ${prefix}`);
  return (found[1] as { Properties: Record<string, unknown> }).Properties.MemorySize;
}

describe('the API function’s memory', () => {
  let sized: Template;
  let plain: Template;
  beforeAll(() => {
    sized = Template.fromStack(stack(propsOf({ apiMemorySize: '160' })));
    plain = Template.fromStack(stack({}));
  }, 120_000);

  it('is 512 MB unless told', () => {
    expect(API_MEMORY_MB).toBe(512);
    expect(memoryOf(plain, 'ApiHandler')).toBe(512);
  });

  it('-c apiMemorySize=160 sizes the front door’s function, not the direct one', () => {
    expect(propsOf({ apiMemorySize: '160' }).apiMemorySize).toBe(160);
    expect(memoryOf(sized, 'ApiHandler')).toBe(160);
    expect(memoryOf(sized, 'ApiDirectHandler')).toBe(512);
  });

  it.each([
    [{ apiMemorySize: '160.5' }, 'apiMemorySize must be a whole number of MB (got 160.5)'],
    [{ apiMemorySize: 'small' }, 'apiMemorySize must be a whole number of MB (got small)'],
  ])('refuses %j', (values, message) => {
    expect(() => propsOf(values)).toThrow(message);
  });

  it.each([
    [127, 'memorySize must be a whole number of MB from 128 to 10240 (got 127)'],
    [10_241, 'memorySize must be a whole number of MB from 128 to 10240 (got 10241)'],
  ])('the stack refuses %d MB before building anything', (size, message) => {
    expect(() => stack({ apiMemorySize: size })).toThrow(message);
  });

  it('is refused beside Lambda Managed Instances, whose environments have their own', () => {
    const managed = { subnetIds: ['subnet-0a1b2c3d'], securityGroupIds: ['sg-0123abcd'] };
    expect(() => stack({ apiMemorySize: 160, apiManagedInstances: managed })).toThrow(
      'memorySize does not apply on Lambda Managed Instances: each environment has 2048 MB',
    );
  });
});
