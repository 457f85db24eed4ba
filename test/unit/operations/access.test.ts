/**
 * How each action is authorized: every action the service answers has a scope, and the scopes read
 * the condition keys SWF documents from the input.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_SCOPES, domainArn } from '../../../lib/core/swf-access.js';
import { operationsByAction } from '../../../lib/http/operations-by-action.js';
import { operationInputs } from '../../../lib/http/swf-model.js';

describe('action scopes', () => {
  it('cover every action of the service model and every action the service answers', () => {
    expect(Object.keys(ACTION_SCOPES).sort()).toEqual(Object.keys(operationInputs).sort());
    expect(Object.keys(operationsByAction).every((action) => action in ACTION_SCOPES)).toBe(true);
  });

  it('read the documented keys from the input', () => {
    expect(ACTION_SCOPES.PollForActivityTask?.({ domain: 'd', taskList: { name: 'tl' } })).toEqual({
      kind: 'domain',
      domain: 'd',
      keys: { 'swf:taskList.name': 'tl' },
    });
    expect(
      ACTION_SCOPES.RegisterActivityType?.({
        domain: 'd',
        name: 'n',
        version: 'v',
        defaultTaskList: { name: 'tl' },
      }),
    ).toEqual({
      kind: 'domain',
      domain: 'd',
      keys: { 'swf:name': 'n', 'swf:version': 'v', 'swf:defaultTaskList.name': 'tl' },
    });
    expect(
      ACTION_SCOPES.ListOpenWorkflowExecutions?.({ domain: 'd', typeFilter: { name: 't' } }),
    ).toMatchObject({ keys: { 'swf:typeFilter.name': 't', 'swf:tagFilter.tag': undefined } });
    expect(ACTION_SCOPES.RegisterDomain?.({ name: 'new' })).toMatchObject({ domain: 'new' });
    expect(ACTION_SCOPES.ListDomains?.({})).toEqual({ kind: 'all-domains' });
    expect(ACTION_SCOPES.TagResource?.({ resourceArn: 'arn:x' })).toEqual({
      kind: 'resource',
      arn: 'arn:x',
    });
    for (const action of [
      'StartWorkflowExecution',
      'RespondDecisionTaskCompleted',
      'RecordActivityTaskHeartbeat',
    ])
      expect(ACTION_SCOPES[action]?.({})).toEqual({ kind: 'in-operation' });
  });

  it('name domains by ARN in the partition of their region', () => {
    expect(domainArn({ region: 'us-east-1', accountId: '1' }, 'd')).toBe(
      'arn:aws:swf:us-east-1:1:/domain/d',
    );
    expect(domainArn({ region: 'cn-north-1', accountId: '1' }, 'd')).toBe(
      'arn:aws-cn:swf:cn-north-1:1:/domain/d',
    );
    expect(domainArn({ region: 'us-gov-west-1', accountId: '1' }, 'd')).toBe(
      'arn:aws-us-gov:swf:us-gov-west-1:1:/domain/d',
    );
  });
});
