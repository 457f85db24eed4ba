/**
 * SWF's quota of 100,000 open executions per domain, children included, over DynamoDB
 * Local: the operations with the real stores, whose visibility count of the domain's open executions
 * is set by the test (100,000 rows would take minutes to write).
 */
import { describe, expect, it } from 'vitest';
import { LimitExceededFault } from '../../lib/core/faults.js';
import { MAX_OPEN_EXECUTIONS } from '../../lib/operations/open-executions.js';
import type { VisibilityQuery, VisibilityStore } from '../../lib/ports/visibility-store.js';
import { domainWithType, operationsOver, startW } from '../support/operations.js';
import { storesForFile } from '../support/stores.js';

const stores = storesForFile('open-executions');

/** Operations over the table, with the domain's open executions counted as `open.count`. */
function service() {
  const clock = { ms: Date.now(), now: () => clock.ms };
  const open = { count: 0, counts: 0 };
  const { call } = operationsOver(stores(), {
    clock,
    visibility: (rows): VisibilityStore => ({
      apply: (changes, expiresAt) => rows.apply(changes, expiresAt),
      list: (query, page) => rows.list(query, page),
      expireRun: (runId, expiresAt) => rows.expireRun(runId, expiresAt),
      count: async (query: VisibilityQuery) => {
        if (query.list !== 'open' || query.filter.kind !== 'all') return rows.count(query);
        open.counts++;
        return { count: open.count, truncated: false };
      },
    }),
  });
  return { clock, open, call };
}

const start = startW;

describe('the open executions of a domain', () => {
  it('refuse a start past 100,000 with LimitExceededFault, counting this process’s starts since the count', async () => {
    const { clock, open, call } = service();
    const domain = `open-${Date.now()}`;
    await domainWithType(call, domain);
    open.count = MAX_OPEN_EXECUTIONS - 1;

    await start(call, domain, 'last-one');
    const refused = start(call, domain, 'one-too-many');
    await expect(refused).rejects.toBeInstanceOf(LimitExceededFault);
    await expect(refused).rejects.toThrow(
      `Domain ${domain} has 100000 open executions, the most it may have`,
    );
    expect(open.counts).toBe(1); // counted once, then kept up by the process itself

    // Executions closed meanwhile: the next count, 10 s on, lets starts through again.
    open.count = MAX_OPEN_EXECUTIONS - 2;
    await expect(start(call, domain, 'still-too-early')).rejects.toBeInstanceOf(LimitExceededFault);
    clock.ms += 10_000;
    await expect(start(call, domain, 'room-again')).resolves.toHaveProperty('runId');
    expect(open.counts).toBe(2);
  });

  it('fail a child start past 100,000 with OPEN_WORKFLOWS_LIMIT_EXCEEDED, without an Initiated event', async () => {
    const { open, call } = service();
    const domain = `children-${Date.now()}`;
    await domainWithType(call, domain);
    open.count = MAX_OPEN_EXECUTIONS - 2; // the parent takes one place: one child fits
    const parent = await start(call, domain, 'parent');
    const task = await call('PollForDecisionTask', { domain, taskList: { name: 'tl' } });
    const child = (workflowId: string) => ({
      decisionType: 'StartChildWorkflowExecution',
      startChildWorkflowExecutionDecisionAttributes: {
        workflowType: { name: 'w', version: '1' },
        workflowId,
      },
    });
    await call('RespondDecisionTaskCompleted', {
      taskToken: task?.taskToken,
      decisions: [child('fits'), child('does-not-fit')],
    });

    const history = await call('GetWorkflowExecutionHistory', {
      domain,
      execution: { workflowId: 'parent', runId: parent?.runId },
    });
    const events = (history?.events ?? []) as { eventType: string; [k: string]: unknown }[];
    expect(events.map((e) => e.eventType).slice(4)).toEqual([
      'StartChildWorkflowExecutionInitiated',
      'StartChildWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(events[5]).toMatchObject({
      startChildWorkflowExecutionFailedEventAttributes: {
        workflowId: 'does-not-fit',
        cause: 'OPEN_WORKFLOWS_LIMIT_EXCEEDED',
        initiatedEventId: 0,
        decisionTaskCompletedEventId: 4,
      },
    });
    // The child counts against the quota from the response on.
    await expect(start(call, domain, 'after-the-child')).rejects.toBeInstanceOf(LimitExceededFault);
  });
});
