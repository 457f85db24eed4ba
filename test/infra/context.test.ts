/**
 * The deploy options of docs/deploying.md, `npx cdk deploy -c name=value`: what each sets
 * on the stack (infra/context.ts, used by infra/app.ts), the defaults, and the values refused before
 * anything is built.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { contextProps } from '../../infra/context.js';
import { SwfStack } from '../../infra/swf-stack.js';

/** The props `-c` options given as `values` set (the CLI passes them as strings). */
const propsOf = (values: Record<string, string>) => contextProps((name) => values[name]);

describe('deploy context options', () => {
  it('default to the HTTP API, and leave the poll settings to the stack (20 s, 1 s)', () => {
    expect(propsOf({})).toEqual({ frontDoor: 'http-api' });
  });

  it('-c frontDoor=function-url, -c pollMaxWaitSeconds=60, -c pollRecheckMs=250', () => {
    const props = propsOf({
      frontDoor: 'function-url',
      pollMaxWaitSeconds: '60',
      pollRecheckMs: '250',
    });
    expect(props.frontDoor).toBe('function-url');
    expect(props.pollMaxWait?.toSeconds()).toBe(60);
    expect(props.pollRecheck?.toMilliseconds()).toBe(250);
  });

  it('-c lambdaTaskRoleArns=a,b, -c accessPolicies=FILE, -c auditLog=off', () => {
    const dir = mkdtempSync(join(tmpdir(), 'context-'));
    const file = join(dir, 'policies.json');
    const policies = { 'arn:aws:iam::123456789012:role/r': { Statement: [] } };
    writeFileSync(file, JSON.stringify(policies));
    const props = propsOf({
      lambdaTaskRoleArns: 'arn:aws:iam::123456789012:role/a, arn:aws:iam::123456789012:role/b',
      accessPolicies: file,
      auditLog: 'off',
    });
    expect(props.lambdaTaskRoleArns).toEqual([
      'arn:aws:iam::123456789012:role/a',
      'arn:aws:iam::123456789012:role/b',
    ]);
    expect(props.accessPolicies).toEqual(policies);
    expect(props.auditLog).toBe(false);
    // The stack checks the policies: this one has no statement.
    expect(
      () => new SwfStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'S', props),
    ).toThrow(
      'accessPolicies: principal "arn:aws:iam::123456789012:role/r": the policy has no Statement',
    );
    expect(() => propsOf({ accessPolicies: join(dir, 'none.json') })).toThrow(
      /accessPolicies .*none\.json: ENOENT/,
    );
  });

  it.each([
    [{ auditLog: 'maybe' }, 'auditLog must be on or off (got maybe)'],
    [{ frontDoor: 'cloudfront' }, 'frontDoor must be http-api or function-url (got cloudfront)'],
    [{ pollMaxWaitSeconds: '2.5' }, 'pollMaxWaitSeconds must be a whole number of seconds'],
    [{ pollRecheckMs: 'soon' }, 'pollRecheckMs must be a whole number of milliseconds'],
    [
      { apiReservedConcurrency: 'lots' },
      'apiReservedConcurrency must be a whole number of containers (got lots)',
    ],
    [
      { apiReservedConcurrency: '10' },
      'apiReservedConcurrency must be at least 11: 10 for calls other than waiting polls, and one poll (got 10)',
    ],
    [{ maxWaitingPolls: '2.5' }, 'maxWaitingPolls must be a whole number of polls (got 2.5)'],
    [{ maxWaitingPolls: '0' }, 'maxWaitingPolls must be a positive whole number of polls (got 0)'],
  ])('refuses %j', (values, message) => {
    expect(() => propsOf(values)).toThrow(message);
  });

  it.each([
    // at most 25 s behind the HTTP API, whose integrations end at 30 s; SWF's 60 behind a URL
    [{ pollMaxWaitSeconds: '60' }, 'pollMaxWait must be from 1 to 25 s behind a http-api'],
    [
      { frontDoor: 'function-url', pollMaxWaitSeconds: '61' },
      'pollMaxWait must be from 1 to 60 s behind a function-url',
    ],
    // a recheck from 50 ms to the poll's wait
    [{ pollRecheckMs: '49' }, 'pollRecheck must be from 50 ms to pollMaxWait'],
    // a cap on waiting polls that leaves other calls at least 10 of the API's reservation
    [
      { apiReservedConcurrency: '100', maxWaitingPolls: '95' },
      'maxWaitingPolls must be from 1 to 90 (reservedConcurrency 100 less 10 for other calls) (got 95)',
    ],
    [{ maxWaitingPolls: '391' }, 'maxWaitingPolls must be from 1 to 390'],
  ])('the stack refuses %j before building anything', (values, message) => {
    expect(() => new SwfStack(new App(), 'Refused', propsOf(values))).toThrow(message);
  });
});
