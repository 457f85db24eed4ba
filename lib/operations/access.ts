/**
 * SWF's access control, per call and per decision: who is calling (the edge says, in the request's
 * Caller), which of the configured policies are theirs, and what IAM's evaluation makes of the action.
 * No policies configured: everything is allowed. A call with no caller (a direct Invoke of the API
 * function, made by push-task-list workers) may only do what a task token authorizes.
 */
import type { DecisionType } from '../core/decision.js';
import type { DecisionAccess } from '../core/decision-permissions.js';
import { OperationNotPermittedFault } from '../core/faults.js';
import { type AccessRequest, evaluate, evaluateAny } from '../core/iam-evaluate.js';
import { type ConditionContext, conditionContext } from '../core/iam-keys.js';
import { type IamIdentity, type PrincipalPolicies, principalKeys } from '../core/principals.js';
import {
  ACTION_SCOPES,
  domainRequest,
  passRoleRequest,
  scopeRequests,
} from '../core/swf-access.js';
import type { OperationDeps, RequestContext } from './context.js';

/** Who made a call, as the edge that received it tells. */
export type Caller =
  /**
   * A signed request: the principal is the IAM ARN API Gateway or the function URL authenticated,
   * or locally the signature's access key id (not verified). `request` holds what the call itself
   * says (aws:SourceIp, aws:SecureTransport).
   */
  | {
      readonly kind: 'signed';
      readonly principal: string | undefined;
      readonly identity?: IamIdentity;
      readonly request: ConditionContext;
    }
  /** A direct Invoke of the API function: no caller, only a task token's authority. */
  | { readonly kind: 'task-token' };

/** What the caller of a direct Invoke may do: answer a task its token names, read its history. */
const TOKEN_ACTIONS = new Set([
  'RespondActivityTaskCompleted',
  'RespondActivityTaskFailed',
  'RespondActivityTaskCanceled',
  'RecordActivityTaskHeartbeat',
  'RespondDecisionTaskCompleted',
]);

const hasPageToken = (input: Readonly<Record<string, unknown>>) =>
  typeof input.nextPageToken === 'string' && input.nextPageToken !== '';

/**
 * Checks a call before its operation runs: the direct-Invoke gate, then the caller's policies for
 * actions judged on their input alone. Actions judged on what they load are checked by their
 * operations (authorizeInDomain). Throws OperationNotPermittedFault.
 */
export function authorizeCall(
  action: string,
  input: Readonly<Record<string, unknown>>,
  deps: OperationDeps,
  request: RequestContext,
): void {
  const caller = request.caller;
  if (caller?.kind === 'task-token') {
    const pageOfPushedHistory = action === 'PollForDecisionTask' && hasPageToken(input);
    if (TOKEN_ACTIONS.has(action) || pageOfPushedHistory) return;
    throw new OperationNotPermittedFault(
      `A call without a caller (a direct Invoke of the API function) may only answer the task its token names: ${action} goes through the service's endpoint, signed`,
    );
  }
  const scope = ACTION_SCOPES[action]?.(input);
  if (scope === undefined || scope.kind === 'in-operation') return;
  if (scope.kind === 'domain') noteDomain(request, scope.domain);
  if (caller === undefined || deps.access === undefined) return;
  const mine = callerPolicies(deps, caller);
  check(
    mine,
    caller,
    scopeRequests(deps.identity, action, scope, callerContext(deps, caller, mine)),
  );
}

/**
 * Checks an action whose domain or keys the operation had to load first: a task token's run, a
 * start's workflow type. A call with a task token (the direct Invoke) is authorized by the token.
 */
export function authorizeInDomain(
  deps: OperationDeps,
  request: RequestContext,
  action: string,
  domain: string,
  keys: Readonly<Record<string, string | readonly string[] | undefined>> = {},
): void {
  noteDomain(request, domain);
  const caller = request.caller;
  if (caller === undefined || caller.kind === 'task-token' || deps.access === undefined) return;
  const mine = callerPolicies(deps, caller);
  const context = callerContext(deps, caller, mine);
  check(mine, caller, domainRequest(deps.identity, action, domain, keys, context));
}

/** Naming a lambdaRole needs iam:PassRole on it. */
export function authorizePassRole(
  deps: OperationDeps,
  request: RequestContext,
  role: string | undefined,
): void {
  const caller = request.caller;
  if (role === undefined || caller === undefined || deps.access === undefined) return;
  if (caller.kind === 'task-token') throw passRoleWithoutCaller(role);
  const mine = callerPolicies(deps, caller);
  check(mine, caller, passRoleRequest(role, callerContext(deps, caller, mine)));
}

/**
 * How the decisions of a response are judged: by the responding caller's policies; with a task
 * token alone (a pushed decider), every decision but one naming a lambdaRole, which no caller can
 * pass. Undefined when no policies apply.
 */
export function decisionAccess(
  deps: OperationDeps,
  request: RequestContext,
  domain: string,
): DecisionAccess | undefined {
  const caller = request.caller;
  if (caller === undefined || deps.access === undefined) return undefined;
  if (caller.kind === 'task-token')
    return { allowsDecision: () => true, allowsPassRole: () => false };
  const mine = callerPolicies(deps, caller);
  const context = callerContext(deps, caller, mine);
  const allows = (r: AccessRequest) => mine !== undefined && evaluate(mine.policies, r) === 'allow';
  return {
    allowsDecision: (decisionType: DecisionType, keys) =>
      allows(domainRequest(deps.identity, decisionType, domain, keys, context)),
    allowsPassRole: (role) => allows(passRoleRequest(role, context)),
  };
}

/** A short name of the caller for logs: the principal, `task-token` or `anonymous`. */
export function callerName(caller: Caller | undefined): string {
  if (caller === undefined) return 'service';
  if (caller.kind === 'task-token') return 'task-token';
  return caller.principal ?? 'anonymous';
}

const noteDomain = (request: RequestContext, domain: string) => {
  if (request.audit !== undefined) request.audit.domain = domain;
};

function callerPolicies(
  deps: OperationDeps,
  caller: Extract<Caller, { kind: 'signed' }>,
): PrincipalPolicies | undefined {
  return deps.access?.lookup(caller.principal);
}

/** The caller's global keys and the request's: who, from where, when, in which region. */
function callerContext(
  deps: OperationDeps,
  caller: Extract<Caller, { kind: 'signed' }>,
  mine: PrincipalPolicies | undefined,
): ConditionContext {
  const now = deps.clock.now();
  const context = new Map(caller.request);
  const who =
    caller.identity === undefined ? new Map() : principalKeys(caller.identity, mine?.principal);
  for (const [key, values] of who) context.set(key, values);
  for (const [key, values] of conditionContext({
    'aws:CurrentTime': new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    'aws:EpochTime': String(Math.floor(now / 1000)),
    'aws:RequestedRegion': deps.identity.region,
  }))
    context.set(key, values);
  return context;
}

function check(
  mine: PrincipalPolicies | undefined,
  caller: Extract<Caller, { kind: 'signed' }>,
  requests: AccessRequest | readonly AccessRequest[],
): void {
  const all: readonly AccessRequest[] = Array.isArray(requests) ? requests : [requests];
  const verdict = mine === undefined ? 'implicit-deny' : evaluateAny(mine.policies, all);
  if (verdict === 'allow') return;
  const [request] = all;
  if (request === undefined) throw new Error('no access request to check');
  const who = caller.principal === undefined ? 'An unsigned caller' : `User: ${caller.principal}`;
  const why =
    verdict === 'explicit-deny'
      ? ' with an explicit deny in an identity-based policy'
      : mine === undefined
        ? ': no access policy names this caller'
        : ' because no identity-based policy allows the action';
  throw new OperationNotPermittedFault(
    `${who} is not authorized to perform: ${request.action} on resource: ${request.resource}${why}`,
  );
}

const passRoleWithoutCaller = (role: string) =>
  new OperationNotPermittedFault(
    `A call without a caller (a direct Invoke of the API function) cannot pass ${role}: iam:PassRole needs a signed caller`,
  );
