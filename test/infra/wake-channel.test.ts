/**
 * The wake channel in the stack: every function that commits changes knows the wake queues' prefix
 * (SWF_WAKE_QUEUE_PREFIX); the API function, whose polls wait, may make, read and delete from those
 * queues only; the others may only look them up and send to them; `wakeChannel: false` leaves it out.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { contextProps } from '../../infra/context.js';
import { SwfStack } from '../../infra/swf-stack.js';

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const COMMITTERS = [
  'ApiHandler',
  'ApiDirectHandler',
  'OutboxStreamHandler',
  'OutboxTimerHandler',
  'OutboxLambdaTaskHandler',
];

function functionsOf(template: Template) {
  return Object.entries(template.findResources('AWS::Lambda::Function')).map(([id, r]) => ({
    id,
    env: (r.Properties.Environment?.Variables ?? {}) as Record<string, unknown>,
    role: (r.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] ?? '',
  }));
}

function sqsStatementsOf(template: Template, role: string): Statement[] {
  return Object.values(
    template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: role }] } }),
  )
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
    .filter((s) => [s.Action].flat().some((a) => a.startsWith('sqs:')));
}

/** Whether a statement's resource is the ARN of the queues named by `prefix`, and nothing else. */
const isQueuesArn = (resource: unknown, prefix: string) => {
  const text = JSON.stringify(resource);
  return text.includes('":sqs:"') && text.endsWith(`":${prefix}-*"]]}`);
};

describe('the wake channel', () => {
  let template: Template;
  beforeAll(() => {
    template = Template.fromStack(new SwfStack(new App(), 'WakeStack'));
  }, 120_000);

  it('gives every committing function one prefix of SQS-name characters', () => {
    const fns = functionsOf(template);
    const prefixes = COMMITTERS.map(
      (id) => fns.find((f) => f.id.startsWith(id))?.env.SWF_WAKE_QUEUE_PREFIX,
    );
    const prefix = prefixes[0];
    expect(prefix).toMatch(/^[A-Za-z0-9_-]{1,30}$/);
    expect(new Set(prefixes)).toEqual(new Set([prefix]));
  });

  it('lets the API function make and read its queues only (a wake taken outlives its retention hidden: no delete), the others send', () => {
    const fns = functionsOf(template);
    const api = fns.find((f) => f.id.startsWith('ApiHandler'));
    const prefix = String(api?.env.SWF_WAKE_QUEUE_PREFIX);
    const apiWakes = sqsStatementsOf(template, api?.role ?? '');
    expect(apiWakes).toHaveLength(1);
    expect([apiWakes[0]?.Action].flat().sort()).toEqual([
      'sqs:CreateQueue',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ]);
    expect(isQueuesArn(apiWakes[0]?.Resource, prefix)).toBe(true);
    const direct = fns.find((f) => f.id.startsWith('ApiDirectHandler'));
    const directWakes = sqsStatementsOf(template, direct?.role ?? '');
    expect(directWakes.map((s) => [s.Action].flat().sort())).toEqual([
      ['sqs:GetQueueUrl', 'sqs:SendMessage'],
    ]);
    expect(isQueuesArn(directWakes[0]?.Resource, prefix)).toBe(true);
  });

  it('is left out with wakeChannel off (-c wakeChannel=off)', () => {
    const props = contextProps((name) => (name === 'wakeChannel' ? 'off' : undefined));
    expect(props.wakeChannel).toBe(false);
    const off = Template.fromStack(new SwfStack(new App(), 'NoWakeStack', props));
    for (const fn of functionsOf(off)) expect(fn.env.SWF_WAKE_QUEUE_PREFIX).toBeUndefined();
    const api = functionsOf(off).find((f) => f.id.startsWith('ApiHandler'));
    expect(sqsStatementsOf(off, api?.role ?? '')).toEqual([]);
  }, 120_000);
});
