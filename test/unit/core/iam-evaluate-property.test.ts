import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../lib/core/iam-evaluate.js';
import { conditionContext } from '../../../lib/core/iam-keys.js';
import { parsePolicyDocument } from '../../../lib/core/iam-policy.js';
import { type Context, referenceEvaluate } from './iam-reference.js';

// Small alphabets, so that generated patterns and requests often meet.
const ACTIONS = [
  'swf:PollForActivityTask',
  'swf:StartWorkflowExecution',
  'swf:RecordMarker',
  'iam:PassRole',
];
const ACTION_PATTERNS = [
  '*',
  'swf:*',
  'swf:Poll*',
  'swf:?ecordMarker',
  'swf:pollforactivitytask',
  'iam:PassRole',
  'swf:Start*Execution',
  'SWF:*Marker',
];
const RESOURCES = [
  'arn:aws:swf:us-east-1:111122223333:/domain/a',
  'arn:aws:swf:us-east-1:111122223333:/domain/ab',
  'arn:aws:swf:eu-west-1:111122223333:/domain/b',
  'arn:aws:iam::111122223333:role/r',
];
const RESOURCE_PATTERNS = [
  '*',
  'arn:aws:swf:*:*:/domain/a',
  'arn:aws:swf:us-east-1:111122223333:/domain/a*',
  'arn:aws:swf:*:111122223333:/domain/?',
  'arn:aws:iam::*:role/r',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, not a template
  'arn:aws:swf:us-east-1:111122223333:/domain/${swf:taskList.name}',
  'arn:aws:*:*:*:*',
];

/** Condition keys and the values the context and the policies draw from, by operator family. */
const FAMILIES = {
  String: {
    keys: ['swf:taskList.name', 'swf:tagList.member.0'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, not a template
    values: ['a', 'b', 'A', 'a*', '?', '${swf:taskList.name}', 'b${swf:tagList.member.0}'],
    context: ['a', 'b', 'A', 'ba', 'a*'],
  },
  Numeric: {
    keys: ['aws:EpochTime'],
    values: ['1', '2', '10', '2.0'],
    context: ['1', '2', '10', 'x'],
  },
  Date: {
    keys: ['aws:CurrentTime'],
    values: ['2020-01-01T00:00:00Z', '1577836800', '2021-06-01T00:00:00Z'],
    context: ['2020-01-01T00:00:00Z', '2021-01-01T00:00:00Z', '1600000000'],
  },
  Bool: {
    keys: ['aws:SecureTransport'],
    values: ['true', 'false', 'TRUE'],
    context: ['true', 'false'],
  },
  Binary: { keys: ['swf:name'], values: ['QUJD', 'eA=='], context: ['QUJD', 'eA=='] },
  Ip: {
    keys: ['aws:SourceIp'],
    values: ['10.0.0.0/8', '10.1.2.3', '192.168.0.0/16', '::1', '2001:db8::/32', '0.0.0.0/0'],
    context: ['10.1.2.3', '192.168.1.1', '::1', '2001:db8::5', '2001:db9::1'],
  },
  Arn: {
    keys: ['aws:PrincipalArn'],
    values: [
      'arn:aws:iam::111122223333:role/r',
      'arn:aws:iam::*:role/*',
      'arn:aws:iam::111122223333:user/?',
    ],
    context: ['arn:aws:iam::111122223333:role/r', 'arn:aws:iam::111122223333:user/u'],
  },
} as const;
const OPERATORS: Record<keyof typeof FAMILIES, string[]> = {
  String: [
    'StringEquals',
    'StringNotEquals',
    'StringEqualsIgnoreCase',
    'StringNotEqualsIgnoreCase',
    'StringLike',
    'StringNotLike',
  ],
  Numeric: [
    'NumericEquals',
    'NumericNotEquals',
    'NumericLessThan',
    'NumericLessThanEquals',
    'NumericGreaterThan',
    'NumericGreaterThanEquals',
  ],
  Date: [
    'DateEquals',
    'DateNotEquals',
    'DateLessThan',
    'DateLessThanEquals',
    'DateGreaterThan',
    'DateGreaterThanEquals',
  ],
  Bool: ['Bool'],
  Binary: ['BinaryEquals'],
  Ip: ['IpAddress', 'NotIpAddress'],
  Arn: ['ArnEquals', 'ArnLike', 'ArnNotEquals', 'ArnNotLike'],
};
const family = fc.constantFrom(...(Object.keys(FAMILIES) as (keyof typeof FAMILIES)[]));

const condition = fc.oneof(
  family.chain((f) =>
    fc.record({
      operator: fc.constantFrom(...OPERATORS[f]),
      set: fc.constantFrom('', 'ForAnyValue:', 'ForAllValues:'),
      ifExists: fc.boolean(),
      key: fc.constantFrom(...FAMILIES[f].keys),
      values: fc.array(fc.constantFrom(...FAMILIES[f].values), { minLength: 1, maxLength: 3 }),
    }),
  ),
  fc.record({
    operator: fc.constant('Null'),
    set: fc.constant(''),
    ifExists: fc.constant(false),
    key: fc.constantFrom(...Object.values(FAMILIES).flatMap((f) => f.keys)),
    values: fc.array(fc.constantFrom('true', 'false'), { minLength: 1, maxLength: 2 }),
  }),
);

const patterns = (from: readonly string[]) =>
  fc.oneof(
    fc.constantFrom(...from),
    fc.array(fc.constantFrom(...from), { minLength: 1, maxLength: 3 }),
  );

const statement = fc.record({
  effect: fc.constantFrom('Allow', 'Deny'),
  notAction: fc.boolean(),
  actions: patterns(ACTION_PATTERNS),
  notResource: fc.boolean(),
  resources: patterns(RESOURCE_PATTERNS),
  conditions: fc.array(condition, { maxLength: 3 }),
});

const policy = fc.record({
  version: fc.constantFrom('2012-10-17', '2008-10-17'),
  statements: fc.array(statement, { minLength: 1, maxLength: 4 }),
});

/** The JSON a user would write; conditions under one operator merge their keys, as in IAM. */
function policyJson(p: {
  version: string;
  statements: {
    effect: string;
    notAction: boolean;
    actions: string | string[];
    notResource: boolean;
    resources: string | string[];
    conditions: {
      operator: string;
      set: string;
      ifExists: boolean;
      key: string;
      values: string[];
    }[];
  }[];
}) {
  return {
    Version: p.version,
    Statement: p.statements.map((s) => {
      const condition: Record<string, Record<string, string[]>> = {};
      for (const c of s.conditions) {
        const name = `${c.set}${c.operator}${c.ifExists ? 'IfExists' : ''}`;
        condition[name] = { ...condition[name], [c.key]: c.values };
      }
      return {
        Effect: s.effect,
        [s.notAction ? 'NotAction' : 'Action']: s.actions,
        [s.notResource ? 'NotResource' : 'Resource']: s.resources,
        ...(s.conditions.length === 0 ? {} : { Condition: condition }),
      };
    }),
  };
}

const contextArb = fc.record(
  Object.fromEntries(
    Object.values(FAMILIES).flatMap((f) =>
      f.keys.map((k) => [k, fc.array(fc.constantFrom(...f.context), { maxLength: 2 })]),
    ),
  ) as Record<string, fc.Arbitrary<string[]>>,
);

describe('the policy evaluator against a naive reference evaluator', () => {
  it('gives the same verdict for generated policies and requests', () => {
    fc.assert(
      fc.property(
        fc.array(policy, { minLength: 1, maxLength: 2 }),
        fc.constantFrom(...ACTIONS),
        fc.constantFrom(...RESOURCES),
        contextArb,
        (policies, action, resource, context: Context) => {
          const json = policies.map(policyJson);
          const parsed = json.map((j) => parsePolicyDocument(j, 'generated'));
          const verdict = evaluate(parsed, {
            action,
            resource,
            context: conditionContext(context),
          });
          expect(verdict).toBe(referenceEvaluate(json, { action, resource, context }));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('reaches every verdict over the generated cases', () => {
    const verdicts = new Set<string>();
    fc.assert(
      fc.property(
        policy,
        fc.constantFrom(...ACTIONS),
        fc.constantFrom(...RESOURCES),
        contextArb,
        (p, action, resource, context) => {
          verdicts.add(
            evaluate([parsePolicyDocument(policyJson(p), 'g')], {
              action,
              resource,
              context: conditionContext(context),
            }),
          );
        },
      ),
      { numRuns: 1000 },
    );
    expect([...verdicts].sort()).toEqual(['allow', 'explicit-deny', 'implicit-deny']);
  });
});
