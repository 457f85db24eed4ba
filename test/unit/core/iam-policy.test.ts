import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../lib/core/iam-evaluate.js';
import { conditionContext } from '../../../lib/core/iam-keys.js';
import { PolicyError, parsePolicyDocument } from '../../../lib/core/iam-policy.js';
import { parseAccessPolicies, principalKeys } from '../../../lib/core/principals.js';

const DOMAIN = 'arn:aws:swf:us-east-1:111122223333:/domain/orders';
const doc = (...statements: object[]) =>
  parsePolicyDocument({ Version: '2012-10-17', Statement: statements }, 'test');
const allowAll = { Effect: 'Allow', Action: 'swf:*', Resource: '*' };
const verdict = (
  statements: object[],
  keys: Record<string, string | string[] | undefined> = {},
  action = 'swf:PollForActivityTask',
  resource = DOMAIN,
) => evaluate([doc(...statements)], { action, resource, context: conditionContext(keys) });
/** Whether one Allow statement with this condition applies to a request with these keys. */
const holds = (condition: object, keys: Record<string, string | string[] | undefined> = {}) =>
  verdict([{ ...allowAll, Condition: condition }], keys) === 'allow';

describe('IAM policy evaluation', () => {
  it('denies by default, allows what a statement allows, and an explicit deny wins', () => {
    expect(
      verdict([{ Effect: 'Allow', Action: 'swf:StartWorkflowExecution', Resource: '*' }]),
    ).toBe('implicit-deny');
    expect(verdict([allowAll])).toBe('allow');
    expect(verdict([allowAll, { Effect: 'Deny', Action: 'swf:Poll*', Resource: DOMAIN }])).toBe(
      'explicit-deny',
    );
    // across documents too
    const both = [doc(allowAll), doc({ Effect: 'Deny', Action: '*', Resource: '*' })];
    expect(
      evaluate(both, { action: 'swf:ListDomains', resource: DOMAIN, context: new Map() }),
    ).toBe('explicit-deny');
  });

  it('matches actions with wildcards, case-insensitively, and NotAction by exclusion', () => {
    expect(verdict([{ Effect: 'Allow', Action: 'swf:Poll*', Resource: '*' }])).toBe('allow');
    expect(verdict([{ Effect: 'Allow', Action: 'SWF:pollforactivitytask', Resource: '*' }])).toBe(
      'allow',
    );
    expect(verdict([{ Effect: 'Allow', Action: 'swf:PollFor?ctivityTask', Resource: '*' }])).toBe(
      'allow',
    );
    expect(verdict([{ Effect: 'Allow', Action: 'swf:Poll', Resource: '*' }])).toBe('implicit-deny');
    const notPoll = { Effect: 'Allow', NotAction: 'swf:Poll*', Resource: '*' };
    expect(verdict([notPoll])).toBe('implicit-deny');
    expect(verdict([notPoll], {}, 'swf:StartWorkflowExecution')).toBe('allow');
  });

  it('matches domain ARNs part by part, with wildcards, and NotResource by exclusion', () => {
    const on = (Resource: string) => verdict([{ Effect: 'Allow', Action: '*', Resource }]);
    expect(on('arn:aws:swf:*:111122223333:/domain/orders')).toBe('allow');
    expect(on('arn:aws:swf:us-east-1:111122223333:/domain/ord*')).toBe('allow');
    expect(on('arn:aws:swf:us-east-1:111122223333:/domain/other')).toBe('implicit-deny');
    expect(on('arn:aws:swf:eu-west-1:111122223333:/domain/orders')).toBe('implicit-deny');
    expect(on('arn:aws:swf:us-*:1111*:/domain/orders')).toBe('allow');
    // A wildcard stays within its part of the ARN: the region's star does not reach the account.
    expect(on('arn:aws:swf:*3333:*:/domain/orders')).toBe('implicit-deny');
    expect(verdict([{ Effect: 'Allow', Action: '*', NotResource: DOMAIN }])).toBe('implicit-deny');
    expect(
      verdict([{ Effect: 'Allow', Action: '*', NotResource: 'arn:aws:swf:*:*:/domain/x' }]),
    ).toBe('allow');
  });

  it('reads each string operator, IfExists and a missing key as IAM does', () => {
    const key = 'swf:taskList.name';
    expect(holds({ StringEquals: { [key]: 'a' } }, { [key]: 'a' })).toBe(true);
    expect(holds({ StringEquals: { [key]: 'a' } }, { [key]: 'A' })).toBe(false);
    expect(holds({ StringEquals: { [key]: ['b', 'a'] } }, { [key]: 'a' })).toBe(true);
    expect(holds({ StringEquals: { [key]: 'a' } })).toBe(false); // missing: fails
    expect(holds({ StringEqualsIfExists: { [key]: 'a' } })).toBe(true); // missing: passes
    expect(holds({ StringEqualsIfExists: { [key]: 'a' } }, { [key]: 'b' })).toBe(false);
    expect(holds({ StringNotEquals: { [key]: 'a' } })).toBe(true); // missing: negated passes
    expect(holds({ StringNotEquals: { [key]: ['a', 'b'] } }, { [key]: 'b' })).toBe(false);
    expect(holds({ StringEqualsIgnoreCase: { [key]: 'a' } }, { [key]: 'A' })).toBe(true);
    expect(holds({ StringNotEqualsIgnoreCase: { [key]: 'a' } }, { [key]: 'A' })).toBe(false);
    expect(holds({ StringLike: { [key]: 'ord?r-*' } }, { [key]: 'order-7' })).toBe(true);
    expect(holds({ StringNotLike: { [key]: 'ord*' } }, { [key]: 'order-7' })).toBe(false);
    // Key names are case-insensitive; values of StringEquals are not.
    expect(holds({ StringEquals: { 'SWF:TASKLIST.NAME': 'a' } }, { [key]: 'a' })).toBe(true);
  });

  it('reads the numeric, date, Bool, Binary, IP and ARN operators', () => {
    const t = 'aws:EpochTime';
    expect(holds({ NumericLessThan: { [t]: '10' } }, { [t]: '9' })).toBe(true);
    expect(holds({ NumericGreaterThanEquals: { [t]: 10 } }, { [t]: '10' })).toBe(true);
    expect(holds({ NumericNotEquals: { [t]: '10' } }, { [t]: '10.0' })).toBe(false);
    const now = 'aws:CurrentTime';
    expect(
      holds({ DateLessThan: { [now]: '2030-01-01T00:00:00Z' } }, { [now]: '2025-05-05T10:00:00Z' }),
    ).toBe(true);
    expect(
      holds({ DateGreaterThan: { [now]: '1893456000' } }, { [now]: '2025-05-05T10:00:00Z' }),
    ).toBe(false);
    expect(
      holds({ Bool: { 'aws:SecureTransport': 'true' } }, { 'aws:SecureTransport': 'true' }),
    ).toBe(true);
    expect(
      holds({ Bool: { 'aws:SecureTransport': true } }, { 'aws:SecureTransport': 'false' }),
    ).toBe(false);
    expect(holds({ BinaryEquals: { 'swf:name': 'QUJD' } }, { 'swf:name': 'QUJD' })).toBe(true);
    const ip = 'aws:SourceIp';
    expect(holds({ IpAddress: { [ip]: '203.0.113.0/24' } }, { [ip]: '203.0.113.7' })).toBe(true);
    expect(holds({ IpAddress: { [ip]: '203.0.113.0/24' } }, { [ip]: '198.51.100.7' })).toBe(false);
    expect(holds({ IpAddress: { [ip]: '2001:db8::/32' } }, { [ip]: '2001:db8:1::9' })).toBe(true);
    expect(holds({ NotIpAddress: { [ip]: '10.0.0.0/8' } }, { [ip]: '10.9.9.9' })).toBe(false);
    const p = 'aws:PrincipalArn';
    const role = 'arn:aws:iam::111122223333:role/deciders';
    expect(holds({ ArnLike: { [p]: 'arn:aws:iam::*:role/decid*' } }, { [p]: role })).toBe(true);
    expect(
      holds({ ArnEquals: { [p]: 'arn:aws:iam::111122223333:role/workers' } }, { [p]: role }),
    ).toBe(false);
    expect(holds({ ArnNotLike: { [p]: 'arn:aws:iam::*:user/*' } }, { [p]: role })).toBe(true);
  });

  it('reads Null and the set qualifiers, on present, missing and several values', () => {
    const tag = 'swf:tagList.member.0';
    expect(holds({ Null: { [tag]: 'true' } })).toBe(true);
    expect(holds({ Null: { [tag]: 'true' } }, { [tag]: 'x' })).toBe(false);
    expect(holds({ Null: { [tag]: 'false' } }, { [tag]: 'x' })).toBe(true);
    const tags = { 'swf:tagFilter.tag': ['a', 'b'] };
    const k = 'swf:tagFilter.tag';
    expect(holds({ 'ForAllValues:StringEquals': { [k]: ['a', 'b', 'c'] } }, tags)).toBe(true);
    expect(holds({ 'ForAllValues:StringEquals': { [k]: ['a'] } }, tags)).toBe(false);
    expect(holds({ 'ForAllValues:StringEquals': { [k]: ['a'] } })).toBe(true); // empty: vacuous
    expect(holds({ 'ForAnyValue:StringEquals': { [k]: ['b'] } }, tags)).toBe(true);
    expect(holds({ 'ForAnyValue:StringEquals': { [k]: ['b'] } })).toBe(false); // empty: none
    expect(holds({ 'ForAnyValue:StringEqualsIfExists': { [k]: ['z'] } })).toBe(true);
    expect(holds({ 'ForAnyValue:StringNotEquals': { [k]: ['a'] } }, tags)).toBe(true);
    expect(holds({ 'ForAllValues:StringNotEquals': { [k]: ['a'] } }, tags)).toBe(false);
  });

  it('resolves policy variables in 2012-10-17 policies only', () => {
    const own = {
      Effect: 'Allow',
      Action: '*',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, not a template
      Resource: 'arn:aws:swf:*:*:/domain/${aws:username}',
    };
    const keys = { 'aws:username': 'orders' };
    expect(verdict([own], keys)).toBe('allow');
    expect(verdict([own], { 'aws:username': 'else' })).toBe('implicit-deny');
    expect(verdict([own])).toBe('implicit-deny'); // no such key: matches nothing
    const old = parsePolicyDocument({ Version: '2008-10-17', Statement: own }, 'old');
    expect(
      evaluate([old], { action: 'swf:X', resource: DOMAIN, context: conditionContext(keys) }),
    ).toBe('implicit-deny');
    expect(
      holds(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, not a template
        { StringEquals: { 'swf:taskList.name': '${aws:username}-tasks' } },
        { ...keys, 'swf:taskList.name': 'orders-tasks' },
      ),
    ).toBe(true);
  });
});

describe('reading policy documents', () => {
  const refused = (statement: object) => () => doc(statement);
  it.each([
    [{ ...allowAll, Effect: 'allow' }, 'Effect must be "Allow" or "Deny"'],
    [{ Effect: 'Allow', Resource: '*' }, 'exactly one of Action and NotAction'],
    [{ ...allowAll, NotAction: 'swf:X' }, 'exactly one of Action and NotAction'],
    [{ Effect: 'Allow', Action: 'swf:*' }, 'exactly one of Resource and NotResource'],
    [{ ...allowAll, Resource: 'arn:aws:swf:us-east-1:/domain/x' }, 'is not an ARN'],
    [{ ...allowAll, Resource: 'domain/orders' }, 'is not an ARN'],
    [{ ...allowAll, Action: 'PollForActivityTask' }, 'is not an action'],
    [{ ...allowAll, Principal: { AWS: '*' } }, 'names no Principal'],
    [
      { ...allowAll, Condition: { StringEqualz: { 'swf:name': 'x' } } },
      'unknown condition operator "StringEqualz"',
    ],
    [
      { ...allowAll, Condition: { 'ForSomeValues:StringEquals': { 'swf:name': 'x' } } },
      'unknown condition operator',
    ],
    [{ ...allowAll, Condition: { NullIfExists: { 'swf:name': 'true' } } }, 'Null takes neither'],
    [{ ...allowAll, Condition: { NumericLessThan: { 'aws:EpochTime': 'soon' } } }, 'is no number'],
    [
      { ...allowAll, Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/33' } } },
      'is no IP address',
    ],
    [
      { ...allowAll, Condition: { Bool: { 'aws:MultiFactorAuthPresent': 'true' } } },
      'condition key "aws:MultiFactorAuthPresent" is not one this service supplies',
    ],
    [
      { ...allowAll, Sid: 'Poll', Extra: 1 },
      'statement 1 (Sid "Poll"): unknown statement element "Extra"',
    ],
  ])('refuses %j', (statement, message) => {
    expect(refused(statement)).toThrow(PolicyError);
    expect(refused(statement)).toThrow(message);
  });

  it('names the principal and the statement at fault, and refuses what is no policy', () => {
    expect(() =>
      parseAccessPolicies(
        { AKIDWORKER: { Statement: [allowAll, { ...allowAll, Effect: 'Maybe' }] } },
        'policies.json',
      ),
    ).toThrow('policies.json: principal "AKIDWORKER": statement 2: Effect must be');
    expect(() => parseAccessPolicies([], 'p')).toThrow('must be a JSON object');
    expect(() => parseAccessPolicies({ K: 'allow' }, 'p')).toThrow(
      'principal "K": the policy must be',
    );
    expect(() =>
      parseAccessPolicies({ K: { Version: '2020-01-01', Statement: allowAll } }, 'p'),
    ).toThrow('Version must be');
    expect(() => parseAccessPolicies({ K: { Statement: [] } }, 'p')).toThrow('has no Statement');
  });
});

describe('whose policies apply', () => {
  const set = parseAccessPolicies(
    {
      'arn:aws:iam::111122223333:role/team/deciders': { Statement: allowAll },
      'arn:aws:iam::111122223333:user/alice': [{ Statement: allowAll }, { Statement: allowAll }],
    },
    'p',
  );
  it('gives an assumed role session its role, whatever the role path, and nobody else', () => {
    const session = 'arn:aws:sts::111122223333:assumed-role/deciders/i-0abc';
    expect(set.lookup(session)?.principal).toBe('arn:aws:iam::111122223333:role/team/deciders');
    expect(set.lookup('arn:aws:sts::999999999999:assumed-role/deciders/x')).toBeUndefined();
    expect(set.lookup('arn:aws:sts::111122223333:assumed-role/workers/x')).toBeUndefined();
    expect(set.lookup('arn:aws:iam::111122223333:user/alice')?.policies).toHaveLength(2);
    expect(set.lookup('arn:aws:iam::111122223333:user/bob')).toBeUndefined();
    expect(set.lookup(undefined)).toBeUndefined();
  });

  it('gives the global keys of the caller, aws:PrincipalArn being the role for a session', () => {
    const keys = principalKeys(
      {
        userArn: 'arn:aws:sts::111122223333:assumed-role/deciders/i-0abc',
        accountId: '111122223333',
        userId: 'AROAEXAMPLE:i-0abc',
      },
      'arn:aws:iam::111122223333:role/team/deciders',
    );
    expect(Object.fromEntries(keys)).toEqual({
      'aws:principalarn': ['arn:aws:iam::111122223333:role/team/deciders'],
      'aws:principalaccount': ['111122223333'],
      'aws:principaltype': ['AssumedRole'],
      'aws:userid': ['AROAEXAMPLE:i-0abc'],
    });
    const user = principalKeys({ userArn: 'arn:aws:iam::111122223333:user/ops/alice' }, undefined);
    expect(user.get('aws:username')).toEqual(['alice']);
    expect(user.get('aws:principaltype')).toEqual(['User']);
  });
});

describe("docs/access-control.md's worked example", () => {
  const markdown = readFileSync(
    new URL('../../../docs/access-control.md', import.meta.url),
    'utf8',
  );
  const json = /```json\n([\s\S]*?)```/.exec(markdown)?.[1] ?? '';
  const set = parseAccessPolicies(JSON.parse(json), 'docs/access-control.md');
  const orders = 'arn:aws:swf:eu-west-1:123456789012:/domain/orders';
  const as = (
    roleName: string,
    action: string,
    keys: Record<string, string> = {},
    resource = orders,
  ) => {
    const mine = set.lookup(`arn:aws:sts::123456789012:assumed-role/${roleName}/s`);
    if (mine === undefined) throw new Error(`no policies for ${roleName}`);
    return evaluate(mine.policies, { action, resource, context: conditionContext(keys) });
  };

  it('does what the document says of the worker, the decider and the starter', () => {
    const list = { 'swf:taskList.name': 'order-activities' };
    expect(as('order-workers', 'swf:PollForActivityTask', list)).toBe('allow');
    expect(as('order-workers', 'swf:PollForActivityTask', { 'swf:taskList.name': 'other' })).toBe(
      'implicit-deny',
    );
    expect(as('order-workers', 'swf:RespondActivityTaskCompleted')).toBe('allow');
    expect(as('order-workers', 'swf:StartWorkflowExecution')).toBe('implicit-deny');
    const ship = { 'swf:activityType.name': 'Ship', 'swf:activityType.version': '1' };
    expect(as('order-deciders', 'swf:ScheduleActivityTask', ship)).toBe('allow');
    expect(
      as('order-deciders', 'swf:ScheduleActivityTask', {
        ...ship,
        'swf:activityType.name': 'RefundPayment',
      }),
    ).toBe('explicit-deny');
    expect(as('order-deciders', 'swf:RecordMarker')).toBe('allow');
    expect(as('order-deciders', 'swf:StartChildWorkflowExecution')).toBe('implicit-deny');
    expect(
      as('order-starters', 'swf:StartWorkflowExecution', { 'swf:workflowType.name': 'Order' }),
    ).toBe('allow');
    expect(
      as('order-starters', 'swf:StartWorkflowExecution', { 'swf:workflowType.name': 'Refund' }),
    ).toBe('implicit-deny');
    const passed = { 'iam:PassedToService': 'swf.amazonaws.com' };
    expect(
      as(
        'order-starters',
        'iam:PassRole',
        passed,
        'arn:aws:iam::123456789012:role/order-lambda-tasks',
      ),
    ).toBe('allow');
    expect(
      as('order-starters', 'iam:PassRole', passed, 'arn:aws:iam::123456789012:role/admin'),
    ).toBe('implicit-deny');
  });
});
