/**
 * What each SWF action and decision asks of IAM: its action name, its resource (a domain's ARN) and
 * the condition keys the SWF Developer Guide documents for it ("Using IAM to manage access to Amazon
 * SWF resources", API summary). Pure: the operations and the core ask a caller's policies with these.
 */
import type { Decision } from './decision.js';
import type { AccessRequest } from './iam-evaluate.js';
import { type ConditionContext, conditionContext } from './iam-keys.js';
import type { TaskList } from './registry.js';

/** Where the service runs: a domain's ARN is made of it. */
export interface ArnScope {
  readonly region: string;
  readonly accountId: string;
}

/** `arn:aws-cn` in China's regions, `arn:aws-us-gov` in GovCloud, `arn:aws` elsewhere. */
export const partitionOf = (region: string) =>
  region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';

export const domainArn = (scope: ArnScope, domain: string) =>
  `arn:${partitionOf(scope.region)}:swf:${scope.region}:${scope.accountId}:/domain/${domain}`;

/** What an action is authorized against, read from its validated input. */
export type ActionScope =
  /** The domain's ARN, with the action's condition keys. */
  | { readonly kind: 'domain'; readonly domain: string; readonly keys: KeyValues }
  /** ListDomains: every domain of the account (`…:/domain/*`). */
  | { readonly kind: 'all-domains' }
  /** The tag actions: the resource the request names. */
  | { readonly kind: 'resource'; readonly arn: string }
  /**
   * Authorized by the operation once it knows what it needs: the run a task token names (its domain),
   * or the workflow type whose default task list a start without one is judged with.
   */
  | { readonly kind: 'in-operation' };

type KeyValues = Readonly<Record<string, string | readonly string[] | undefined>>;
type Input = Readonly<Record<string, unknown>>;

const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const field = (value: unknown, name: string) =>
  typeof value === 'object' && value !== null ? str(Reflect.get(value, name)) : undefined;

const typeKeys = (kind: 'activityType' | 'workflowType', ref: unknown): KeyValues => ({
  [`swf:${kind}.name`]: field(ref, 'name'),
  [`swf:${kind}.version`]: field(ref, 'version'),
});

/** Visibility filters: `swf:tagFilter.tag`, `swf:typeFilter.name` and `.version`. */
const filterKeys = (input: Input): KeyValues => ({
  'swf:tagFilter.tag': field(input.tagFilter, 'tag'),
  'swf:typeFilter.name': field(input.typeFilter, 'name'),
  'swf:typeFilter.version': field(input.typeFilter, 'version'),
});

const registrationKeys = (input: Input): KeyValues => ({
  'swf:defaultTaskList.name': field(input.defaultTaskList, 'name'),
  'swf:name': str(input.name),
  'swf:version': str(input.version),
});

/** `swf:tagList.member.0` to `.4`: a tag list's members by position. */
export const tagListKeys = (tags: readonly string[] | undefined): KeyValues =>
  Object.fromEntries((tags ?? []).slice(0, 5).map((tag, i) => [`swf:tagList.member.${i}`, tag]));

const inDomain =
  (domainField: string, keys: (input: Input) => KeyValues = () => ({})) =>
  (input: Input): ActionScope => ({
    kind: 'domain',
    domain: str(input[domainField]) ?? '',
    keys: keys(input),
  });
const byDomain = inDomain('domain');
const taskListKeys = (input: Input) => ({ 'swf:taskList.name': field(input.taskList, 'name') });
const activityTypeKeys = (input: Input) => typeKeys('activityType', input.activityType);
const workflowTypeKeys = (input: Input) => typeKeys('workflowType', input.workflowType);
const inOperation = (): ActionScope => ({ kind: 'in-operation' });
const taggedResource = (input: Input): ActionScope => ({
  kind: 'resource',
  arn: str(input.resourceArn) ?? '',
});

/** Every action this service answers: how it is authorized (a test holds it to the service model). */
export const ACTION_SCOPES: Readonly<Record<string, (input: Input) => ActionScope>> = {
  RegisterDomain: inDomain('name'),
  DescribeDomain: inDomain('name'),
  DeprecateDomain: inDomain('name'),
  UndeprecateDomain: inDomain('name'),
  ListDomains: () => ({ kind: 'all-domains' }),
  RegisterActivityType: inDomain('domain', registrationKeys),
  RegisterWorkflowType: inDomain('domain', registrationKeys),
  DescribeActivityType: inDomain('domain', activityTypeKeys),
  DeprecateActivityType: inDomain('domain', activityTypeKeys),
  UndeprecateActivityType: inDomain('domain', activityTypeKeys),
  DeleteActivityType: inDomain('domain', activityTypeKeys),
  DescribeWorkflowType: inDomain('domain', workflowTypeKeys),
  DeprecateWorkflowType: inDomain('domain', workflowTypeKeys),
  UndeprecateWorkflowType: inDomain('domain', workflowTypeKeys),
  DeleteWorkflowType: inDomain('domain', workflowTypeKeys),
  ListActivityTypes: byDomain,
  ListWorkflowTypes: byDomain,
  TagResource: taggedResource,
  UntagResource: taggedResource,
  ListTagsForResource: taggedResource,
  StartWorkflowExecution: inOperation,
  SignalWorkflowExecution: byDomain,
  RequestCancelWorkflowExecution: byDomain,
  TerminateWorkflowExecution: byDomain,
  DescribeWorkflowExecution: byDomain,
  GetWorkflowExecutionHistory: byDomain,
  PollForDecisionTask: inDomain('domain', taskListKeys),
  PollForActivityTask: inDomain('domain', taskListKeys),
  CountPendingActivityTasks: inDomain('domain', taskListKeys),
  CountPendingDecisionTasks: inDomain('domain', taskListKeys),
  RespondDecisionTaskCompleted: inOperation,
  RecordActivityTaskHeartbeat: inOperation,
  RespondActivityTaskCompleted: inOperation,
  RespondActivityTaskFailed: inOperation,
  RespondActivityTaskCanceled: inOperation,
  ListOpenWorkflowExecutions: inDomain('domain', filterKeys),
  ListClosedWorkflowExecutions: inDomain('domain', filterKeys),
  CountOpenWorkflowExecutions: inDomain('domain', filterKeys),
  CountClosedWorkflowExecutions: inDomain('domain', filterKeys),
};

/** The request an action in a domain makes of IAM, with the caller's own keys added. */
export function domainRequest(
  scope: ArnScope,
  action: string,
  domain: string,
  keys: KeyValues,
  caller: ConditionContext,
): AccessRequest {
  return {
    action: `swf:${action}`,
    resource: domainArn(scope, domain),
    context: withCaller(conditionContext(keys), caller),
  };
}

/**
 * The requests an action's scope makes of IAM (not for `in-operation` scopes): one, but for
 * ListDomains, whose resource is every domain of the account, named both as this service names domains
 * (`arn:aws:swf:REGION:ACCOUNT:/domain/*`) and as SWF's API reference tells policies to name it
 * (`arn:aws:swf::ACCOUNT:domain/*`), so that a policy written either way applies.
 */
export function scopeRequests(
  scope: ArnScope,
  action: string,
  actionScope: Exclude<ActionScope, { kind: 'in-operation' }>,
  caller: ConditionContext,
): AccessRequest[] {
  const on = (resource: string) => ({ action: `swf:${action}`, resource, context: caller });
  switch (actionScope.kind) {
    case 'domain':
      return [domainRequest(scope, action, actionScope.domain, actionScope.keys, caller)];
    case 'all-domains':
      return [
        on(domainArn(scope, '*')),
        on(`arn:${partitionOf(scope.region)}:swf::${scope.accountId}:domain/*`),
      ];
    case 'resource':
      return [on(actionScope.arn)];
  }
}

/** Passing a lambdaRole to an execution: `iam:PassRole` on the role, passed to SWF. */
export const passRoleRequest = (role: string, caller: ConditionContext): AccessRequest => ({
  action: 'iam:PassRole',
  resource: role,
  context: withCaller(conditionContext({ 'iam:PassedToService': 'swf.amazonaws.com' }), caller),
});

function withCaller(keys: ConditionContext, caller: ConditionContext): ConditionContext {
  const merged = new Map(caller);
  for (const [key, values] of keys) merged.set(key, values);
  return merged;
}

/**
 * The keys a decision is judged with (the task lists and versions it would use once defaults apply,
 * as SWF judges them: a decision without a task list is judged on its type's default one).
 */
export function decisionKeys(
  decision: Decision,
  defaults: {
    readonly activityTaskList?: TaskList | undefined;
    readonly workflowTaskList?: TaskList | undefined;
    readonly workflowVersion?: string | undefined;
  },
): KeyValues {
  switch (decision.decisionType) {
    case 'ScheduleActivityTask': {
      const a = decision.attributes;
      return {
        ...typeKeys('activityType', a.activityType),
        'swf:taskList.name': (a.taskList ?? defaults.activityTaskList)?.name,
      };
    }
    case 'StartChildWorkflowExecution': {
      const a = decision.attributes;
      return {
        ...typeKeys('workflowType', a.workflowType),
        ...tagListKeys(a.tagList),
        'swf:taskList.name': (a.taskList ?? defaults.workflowTaskList)?.name,
      };
    }
    case 'ContinueAsNewWorkflowExecution': {
      const a = decision.attributes;
      return {
        ...tagListKeys(a.tagList),
        'swf:taskList.name': (a.taskList ?? defaults.workflowTaskList)?.name,
        'swf:workflowType.version': a.workflowTypeVersion ?? defaults.workflowVersion,
      };
    }
    default:
      return {};
  }
}
