import { operationsByAction } from '../../lib/http/operations-by-action.js';
import { LOCAL_IDENTITY } from '../../lib/local/local-service.js';
import type { OperationDeps } from '../../lib/operations/context.js';
import type { Clock } from '../../lib/ports/clock.js';
import type { VisibilityStore } from '../../lib/ports/visibility-store.js';
import { operationDepsOver, type TestStores } from './stores.js';

const request = { requestId: 'test', signal: new AbortController().signal };

export type CallOperation = (
  action: keyof typeof operationsByAction,
  input: Record<string, unknown>,
) => Promise<Record<string, unknown> | undefined>;

/**
 * The service's operations over a test file's stores, called directly (no HTTP), with polls that do not wait: for
 * tests that set the clock or replace a store.
 */
export function operationsOver(
  stores: TestStores,
  options: { clock?: Clock; visibility?: (real: VisibilityStore) => VisibilityStore } = {},
): { deps: OperationDeps; call: CallOperation } {
  const base = operationDepsOver(stores, {
    identity: LOCAL_IDENTITY,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const deps: OperationDeps = {
    ...base,
    visibility: options.visibility?.(base.visibility) ?? base.visibility,
    polling: { maxWaitMs: 0, recheckMs: 0 },
  };
  const call: CallOperation = async (action, input) => {
    const run = operationsByAction[action];
    if (run === undefined) throw new Error(`no operation ${action}`);
    return (await run(input, deps, request)) as Record<string, unknown> | undefined;
  };
  return { deps, call };
}

/**
 * Registers a domain (retention 1 day) and workflow type w/1 with every default, task list `tl`
 * (executions time out after 600 s unless `executionTimeout` says otherwise).
 */
export async function domainWithType(
  call: CallOperation,
  domain: string,
  executionTimeout = '600',
): Promise<void> {
  await call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
  await call('RegisterWorkflowType', {
    domain,
    name: 'w',
    version: '1',
    defaultTaskList: { name: 'tl' },
    defaultExecutionStartToCloseTimeout: executionTimeout,
    defaultTaskStartToCloseTimeout: '60',
    defaultChildPolicy: 'ABANDON',
  });
}

export const startW = (call: CallOperation, domain: string, workflowId: string) =>
  call('StartWorkflowExecution', { domain, workflowId, workflowType: { name: 'w', version: '1' } });
