/**
 * Visibility against the oracle (test/support/visibility-oracle.ts) on servers whose clock the test
 * sets: executions that share a start and a close time (a clock that stands still) are each listed
 * once on every page, and closed runs leave every list, count and Describe once their domain's
 * retention has passed.
 */
import {
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, it } from 'vitest';
import { rawCall } from '../support/contract.js';
import { SwfDriver } from '../support/decider.js';
import { startTestServer } from '../support/local.js';
import {
  type FilterPart,
  fromSdk,
  judge,
  listPage,
  report,
  toDate,
  viaWireAt,
  viaWirePage,
} from '../support/visibility-answers.js';
import {
  type ExpectedInfo,
  expected,
  type KnownExecution,
  type OracleWorld,
} from '../support/visibility-oracle.js';
import { ORDER_1, ORDER_2 } from '../support/visibility-workload.js';

describe('executions that share a start and a close time (a server clock that stands still)', () => {
  it('are each listed once, on whichever page, by every filter, page size and order', async () => {
    const at = Date.now();
    const frozen = await startTestServer({ clock: { now: () => at } });
    try {
      const domain = 'frozen';
      await frozen.swf.send(
        new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }),
      );
      for (const type of [ORDER_1, ORDER_2])
        await frozen.swf.send(
          new RegisterWorkflowTypeCommand({
            domain,
            ...type,
            defaultTaskList: { name: 'unused' },
            defaultExecutionStartToCloseTimeout: '3600',
            defaultTaskStartToCloseTimeout: '600',
            defaultChildPolicy: 'TERMINATE',
          }),
        );
      const driver = new SwfDriver(frozen.swf, domain);
      const runs: KnownExecution[] = [];
      for (let i = 0; i < 24; i++) {
        const workflowType = i % 3 === 0 ? ORDER_2 : ORDER_1;
        const tagList = i % 2 === 0 ? ['even'] : ['odd'];
        const { execution } = await driver.start(workflowType, { workflowId: `tie-${i}`, tagList });
        const terminated = i % 4 === 1;
        if (terminated)
          await frozen.swf.send(
            new TerminateWorkflowExecutionCommand({ domain, ...execution, reason: 'tie' }),
          );
        runs.push({
          domain,
          execution,
          workflowType,
          startMs: at,
          ...(terminated ? { closeMs: at, closeStatus: 'TERMINATED' as const } : {}),
          tagList,
          cancelRequested: false,
        });
      }
      await frozen.service.streamCaughtUp();
      const tieWorld: OracleWorld = {
        executions: runs,
        domains: new Map([[domain, 1]]),
        nowMs: Date.now(),
      };
      const problems: string[] = [];
      const all = { oldestDate: 0 };
      const exact = { oldestDate: at / 1000, latestDate: at / 1000 };
      const parts: FilterPart[] = [
        {},
        { typeFilter: { name: 'order' } },
        { typeFilter: ORDER_2 },
        { tagFilter: { tag: 'even' } },
        { executionFilter: { workflowId: 'tie-5' } },
      ];
      for (const part of parts)
        for (const range of [all, exact])
          for (const maximumPageSize of Object.keys(part).length === 0 ? [1, 2, 5, 0] : [2, 0])
            for (const reverseOrder of [false, true])
              for (const [action, member] of [
                ['ListOpenWorkflowExecutions', 'startTimeFilter'],
                ['ListClosedWorkflowExecutions', 'startTimeFilter'],
                ['ListClosedWorkflowExecutions', 'closeTimeFilter'],
              ] as const) {
                const request = { domain, [member]: range, ...part, maximumPageSize, reverseOrder };
                const infos: ExpectedInfo[] = [];
                const pageSizes: number[] = [];
                let nextPageToken: string | undefined;
                do {
                  const input = {
                    ...request,
                    [member]: toDate(range),
                    ...(nextPageToken === undefined ? {} : { nextPageToken }),
                  } as never;
                  const out = await listPage(frozen.swf, action, input);
                  infos.push(...(out.executionInfos ?? []).map(fromSdk));
                  pageSizes.push(out.executionInfos?.length ?? 0);
                  nextPageToken = out.nextPageToken;
                } while (nextPageToken !== undefined && pageSizes.length < 100);
                problems.push(
                  ...judge(
                    action,
                    request,
                    { kind: 'list', infos, pageSizes },
                    expected(action, request, tieWorld),
                  ),
                );
              }
      report(problems);
    } finally {
      await frozen.close();
    }
  });
});

describe('retention, on a server clock the test sets', () => {
  /**
   * A server whose clock reads `clock.t` (epoch ms), a domain with the given retention and an open,
   * a terminated and a completed... run; returns what the oracle needs and a way to ask it.
   */
  async function agingDomain(retentionDays: string, startMs: number) {
    const clock = { t: startMs };
    const server = await startTestServer({ clock: { now: () => clock.t } });
    const domain = `aging-${retentionDays}`;
    await server.swf.send(
      new RegisterDomainCommand({
        name: domain,
        workflowExecutionRetentionPeriodInDays: retentionDays,
      }),
    );
    await server.swf.send(
      new RegisterWorkflowTypeCommand({
        domain,
        ...ORDER_1,
        defaultTaskList: { name: 'unused' },
        // Ten days: the open run must outlive the retention the test lets pass.
        defaultExecutionStartToCloseTimeout: '864000',
        defaultTaskStartToCloseTimeout: '600',
        defaultChildPolicy: 'TERMINATE',
      }),
    );
    const driver = new SwfDriver(server.swf, domain);
    const runs: KnownExecution[] = [];
    for (const [workflowId, closes] of [
      ['stays-open', false],
      ['terminated', true],
      ['also-terminated', true],
    ] as const) {
      const { execution } = await driver.start(ORDER_1, { workflowId, tagList: ['aging'] });
      if (closes)
        await server.swf.send(new TerminateWorkflowExecutionCommand({ domain, ...execution }));
      runs.push({
        domain,
        execution,
        workflowType: ORDER_1,
        startMs: clock.t,
        ...(closes ? { closeMs: clock.t, closeStatus: 'TERMINATED' as const } : {}),
        tagList: ['aging'],
        cancelRequested: false,
      });
    }
    // Every row is written at the clock of the changes, before the test moves it.
    await server.service.streamCaughtUp();
    /** Every list and count, and DescribeWorkflowExecution of every run, against the oracle at `clock.t`. */
    const compare = async (): Promise<string[]> => {
      await server.service.streamCaughtUp();
      const agedWorld: OracleWorld = {
        executions: runs,
        domains: new Map([[domain, Number(retentionDays)]]),
        nowMs: clock.t,
      };
      const problems: string[] = [];
      const all = { oldestDate: 0 };
      for (const part of [
        {},
        { tagFilter: { tag: 'aging' } },
        { executionFilter: { workflowId: 'terminated' } },
      ])
        for (const [action, member] of [
          ['ListOpenWorkflowExecutions', 'startTimeFilter'],
          ['CountOpenWorkflowExecutions', 'startTimeFilter'],
          ['ListClosedWorkflowExecutions', 'startTimeFilter'],
          ['ListClosedWorkflowExecutions', 'closeTimeFilter'],
          ['CountClosedWorkflowExecutions', 'startTimeFilter'],
          ['CountClosedWorkflowExecutions', 'closeTimeFilter'],
        ] as const) {
          const request = { domain, [member]: all, ...part };
          const outcome = await viaWireAt(server.service.endpoint, action, request);
          problems.push(...judge(action, request, outcome, expected(action, request, agedWorld)));
        }
      for (const run of runs) {
        const shown = await driver.describe(run.execution).then(
          () => 'described',
          (error: Error) => error.name,
        );
        const gone =
          run.closeMs !== undefined && run.closeMs + Number(retentionDays) * 86_400_000 <= clock.t;
        if ((shown === 'UnknownResourceFault') !== gone)
          problems.push(`DescribeWorkflowExecution ${run.execution.workflowId}: ${shown}`);
      }
      return problems;
    };
    return { server, clock, driver, runs, compare };
  }

  it('keeps nothing of a run closed in a domain of retention 0 once the stream has handled its close', async () => {
    // RegisterDomain: "If you pass the value NONE or 0 (zero), then the workflow execution history
    // isn't retained. As soon as the workflow execution completes, the execution record and its
    // history are deleted." docs/swf-differences.md, "Retention": "(`0`/`NONE`: as soon as the stream
    // consumer has handled the close, a moment after it)". The runs close a millisecond into a second; the lists are read a
    // millisecond later, in the same second.
    const second = Math.floor(Date.now() / 1000) * 1000;
    const aging = await agingDomain('0', second + 1);
    try {
      aging.clock.t = second + 2;
      report(await aging.compare());
    } finally {
      await aging.server.close();
    }
  });

  it('drops closed runs from every list, count and Describe once a retention of 1 day has passed', async () => {
    const start = Date.now();
    const aging = await agingDomain('1', start);
    try {
      // A page token issued now, used after its 24 hours (ListClosedWorkflowExecutions:
      // "Each pagination token expires after 24 hours. Using an expired pagination token will
      // return a 400 error: "Specified token has exceeded its maximum lifetime".").
      const first = await viaWirePage(aging.server.service.endpoint, {
        domain: 'aging-1',
        startTimeFilter: { oldestDate: 0 },
        maximumPageSize: 1,
      });
      // Within the retention (a second short of it), and past it (a second beyond).
      aging.clock.t = start + 86_400_000 - 1_000;
      const within = await aging.compare();
      aging.clock.t = start + 86_400_000 + 1_000;
      const past = await aging.compare();
      const expired = await rawCall(aging.server.service.endpoint, 'ListClosedWorkflowExecutions', {
        domain: 'aging-1',
        startTimeFilter: { oldestDate: 0 },
        maximumPageSize: 1,
        nextPageToken: first,
      });
      const problems = [...within, ...past];
      if (
        expired.status !== 400 ||
        !expired.text.includes('Specified token has exceeded its maximum lifetime')
      )
        problems.push(`a token 24 hours old: ${expired.status} ${expired.text}`);
      report(problems);
    } finally {
      await aging.server.close();
    }
  });
});
