/**
 * The synthesized SwfStack's resources, found by logical id prefix, and the IAM actions, statements
 * and event patterns the infrastructure tests read from them.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { Match } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';

/** The resources of a synthesized stack, found by logical id prefix. */
export class StackResources {
  constructor(readonly template: Template) {}

  tableId(): string {
    return only(this.template.findResources('AWS::DynamoDB::Table'));
  }

  functionId(): string {
    return this.functionNamed('ApiHandler');
  }

  /** The one Lambda function whose logical id starts with `prefix` (ApiHandler, OutboxStreamHandler…). */
  functionNamed(prefix: string): string {
    return this.resourceNamed('AWS::Lambda::Function', prefix);
  }

  /** The one resource of `type` whose logical id starts with `prefix`. */
  resourceNamed(type: string, prefix: string): string {
    return only(
      Object.fromEntries(
        Object.entries(this.template.findResources(type)).filter(([id]) => id.startsWith(prefix)),
      ),
    );
  }

  /** Every statement of the policies attached to the role whose logical id starts with `rolePrefix`. */
  statementsOf(rolePrefix: string): Statement[] {
    return Object.values(
      this.template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp(`^${rolePrefix}`) }] },
      }),
    ).flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
  }
}

/** Item calls the stores make: no Scan, no table or stream management. */
export const tableActions = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/** What writing to its own log group takes (LogGroup.grantWrite). */
export const logWriting = ['logs:CreateLogStream', 'logs:PutLogEvents'];

/** What reading the token-signing key's secret takes (Secret.grantRead). */
export const secretReading = ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'];

/** What the wake channel lets committers do (test/infra/wake-channel.test.ts), and polls besides. */
export const wakeSending = ['sqs:GetQueueUrl', 'sqs:SendMessage'];
export const wakeWaiting = ['sqs:CreateQueue', 'sqs:ReceiveMessage'];

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

export const actionsOf = (statements: readonly Statement[]) =>
  new Set(statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])));

export function only(resources: Record<string, unknown>): string {
  const ids = Object.keys(resources);
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
}

export function sortByName(definitions: unknown): unknown {
  if (!Array.isArray(definitions)) return definitions;
  return definitions
    .map((d: unknown) => JSON.stringify(d))
    .sort()
    .map((d) => JSON.parse(d));
}

/**
 * Whether an event filter pattern matches an event, for the rules these patterns use: an object
 * matches when each of its keys does, an array when any of its values does (a value equal to the
 * event's, or `{ exists: false }` where the event has nothing).
 */
export function matchesPattern(pattern: unknown, event: unknown): boolean {
  if (Array.isArray(pattern))
    return pattern.some((rule) =>
      typeof rule === 'object' && rule !== null && 'exists' in rule
        ? (event !== undefined) === rule.exists
        : rule === event,
    );
  if (typeof pattern !== 'object' || pattern === null) return false;
  return Object.entries(pattern).every(([key, inner]) =>
    matchesPattern(
      inner,
      typeof event === 'object' && event !== null ? Reflect.get(event, key) : undefined,
    ),
  );
}
