import { describe, expect, it } from 'vitest';
import { servedForFile } from '../support/local.js';
import {
  type FilterPart,
  fromSdk,
  judge,
  report,
  viaSdk,
  viaWire,
} from '../support/visibility-answers.js';
import {
  CLOSE_STATUSES,
  expected,
  expectedInfo,
  infoDifferences,
  type TimeFilter,
  type VisibilityAction,
  type VisibilityRequest,
} from '../support/visibility-oracle.js';
import {
  DOMAIN,
  driverOf,
  GONE,
  LONG_TAG,
  ORDER_1,
  OTHER,
  serveWorkload,
  TAGS,
  TYPES,
} from '../support/visibility-workload.js';

const workload = servedForFile(serveWorkload, 60_000);

/** Runs requests a few at a time; returns every difference. */
async function check(
  cases: readonly { action: VisibilityAction; request: VisibilityRequest; wire?: boolean }[],
): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    for (;;) {
      const c = cases[next++];
      if (c === undefined) return;
      const outcome =
        c.wire === true
          ? await viaWire(workload.service.endpoint, c.action, c.request)
          : await viaSdk(workload.swf, c.action, c.request);
      problems.push(
        ...judge(c.action, c.request, outcome, expected(c.action, c.request, workload.world)),
      );
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// The combinations

/** Every filter value worth asking: the workload's ids, types, tags and statuses, and some unknown. */
function filters(closed: boolean): FilterPart[] {
  const ids = [...new Set(workload.made.map((m) => m.execution.workflowId)), 'nobody'];
  return [
    {},
    ...ids.map((workflowId) => ({ executionFilter: { workflowId } })),
    ...['order', 'orderly', 'ord', 'unknown'].map((name) => ({ typeFilter: { name } })),
    ...[...TYPES, { name: 'order', version: '9' }].map((t) => ({ typeFilter: t })),
    ...[...TAGS, 'RED', 'nothing'].map((tag) => ({ tagFilter: { tag } })),
    ...(closed ? CLOSE_STATUSES.map((status) => ({ closeStatusFilter: { status } })) : []),
  ];
}

/** Time ranges built from the times a list is ordered by (epoch ms): both ends exact, or just off. */
function ranges(times: readonly number[]): TimeFilter[] {
  const t = [...new Set(times)].sort((a, b) => a - b);
  const at = (f: number) => t[Math.min(t.length - 1, Math.floor(f * t.length))] ?? 0;
  const s = (msValue: number) => msValue / 1000;
  const low = at(0.25);
  const high = at(0.75);
  const mid = at(0.5);
  return [
    { oldestDate: 0 },
    { oldestDate: s(mid) },
    { oldestDate: s(low), latestDate: s(high) },
    { oldestDate: s(low + 1), latestDate: s(high - 1) },
    { oldestDate: s(mid), latestDate: s(mid) },
    { oldestDate: 0, latestDate: s(mid) },
    { oldestDate: s((t[t.length - 1] ?? 0) + 1) },
  ];
}

const openTimes = () =>
  workload.world.executions
    .filter((e) => e.domain === DOMAIN && e.closeStatus === undefined)
    .map((e) => e.startMs);
const closedStarts = () =>
  workload.world.executions
    .filter((e) => e.domain === DOMAIN && e.closeStatus !== undefined)
    .map((e) => e.startMs);
const closedCloses = () =>
  workload.world.executions
    .filter((e) => e.domain === DOMAIN && e.closeStatus !== undefined)
    .map((e) => e.closeMs ?? 0);

type Case = { action: VisibilityAction; request: VisibilityRequest; wire?: boolean };

/** Lists in both orders with the default page size for every range; pages of 1 and 2 for the widest. */
/** workflowIds asked with every range: those of several runs, a child, an open run, none. */
const RANGED_IDS = new Set(['same', 'chain-a', 'chain-b', 'kid-1', 'open-1', 'nobody']);

/** Whether a filter is asked with every range (the other workflowIds only with the widest). */
const everyRange = (filter: FilterPart) =>
  filter.executionFilter === undefined || RANGED_IDS.has(filter.executionFilter.workflowId);

/** Lists in both orders with the default page size for every range; pages of 1 and 2 for the widest. */
function listCases(
  action: VisibilityAction,
  timeMember: 'startTimeFilter' | 'closeTimeFilter',
  times: number[],
  closed: boolean,
): Case[] {
  const cases: Case[] = [];
  const all = ranges(times);
  for (const filter of filters(closed))
    for (const [index, range] of all.entries()) {
      if (index > 0 && !everyRange(filter)) continue;
      for (const reverseOrder of [false, true]) {
        const base = { domain: DOMAIN, [timeMember]: range, ...filter, reverseOrder };
        cases.push({ action, request: base });
        if (index === 0) {
          cases.push({ action, request: { ...base, maximumPageSize: 1 } });
          if (everyRange(filter)) cases.push({ action, request: { ...base, maximumPageSize: 2 } });
        }
        if (index === 2 && Object.keys(filter).length === 0)
          cases.push({ action, request: { ...base, maximumPageSize: 3 } });
      }
    }
  return cases;
}

function countCases(
  action: VisibilityAction,
  timeMember: 'startTimeFilter' | 'closeTimeFilter',
  times: number[],
  closed: boolean,
): Case[] {
  return filters(closed).flatMap((filter) =>
    ranges(times)
      .filter((_, index) => index === 0 || everyRange(filter))
      .map((range) => ({
        action,
        request: { domain: DOMAIN, [timeMember]: range, ...filter },
      })),
  );
}

describe('the workload', () => {
  it('has what it set out to have: every close status, children, chains, several runs of one id', () => {
    const statuses = new Set(workload.made.map((m) => m.closeStatus));
    for (const status of CLOSE_STATUSES) expect(statuses).toContain(status);
    expect(workload.made.filter((m) => m.parent !== undefined).length).toBeGreaterThanOrEqual(5);
    expect(workload.made.filter((m) => m.execution.workflowId === 'same')).toHaveLength(4);
    expect(workload.made.length).toBeGreaterThanOrEqual(40);
    for (const m of workload.made) expect(m.startMs, m.execution.workflowId).not.toBeNaN();
  });
});

describe('DescribeWorkflowExecution', () => {
  it('shows each execution as the oracle does, and a closed one of a domain keeping nothing is gone', async () => {
    const problems: string[] = [];
    for (const e of workload.world.executions) {
      const driver = driverOf(e.domain);
      const gone = e.domain === GONE && e.closeStatus !== undefined;
      try {
        const out = await driver.describe(e.execution);
        if (gone) problems.push(`${e.execution.workflowId} in ${e.domain}: still described`);
        else if (out.executionInfo === undefined)
          problems.push(`${e.execution.workflowId}: no info`);
        else {
          const diff = infoDifferences(fromSdk(out.executionInfo), expectedInfo(e));
          if (diff.length > 0)
            problems.push(`${e.execution.workflowId}/${e.execution.runId}: ${diff.join('; ')}`);
        }
      } catch (error) {
        if (!gone || (error as Error).name !== 'UnknownResourceFault')
          problems.push(
            `${e.execution.workflowId}: ${(error as Error).name} ${(error as Error).message}`,
          );
      }
    }
    report(problems);
  });
});

describe('ListOpenWorkflowExecutions and CountOpenWorkflowExecutions', () => {
  it('list every filter × range × order × page size as the oracle does', async () => {
    report(
      await check(listCases('ListOpenWorkflowExecutions', 'startTimeFilter', openTimes(), false)),
    );
  });
  it('count every filter × range as the oracle does', async () => {
    report(
      await check(countCases('CountOpenWorkflowExecutions', 'startTimeFilter', openTimes(), false)),
    );
  });
});

describe('ListClosedWorkflowExecutions and CountClosedWorkflowExecutions', () => {
  it('list by start time: every filter × range × order × page size', async () => {
    report(
      await check(
        listCases('ListClosedWorkflowExecutions', 'startTimeFilter', closedStarts(), true),
      ),
    );
  });
  it('list by close time: every filter × range × order × page size', async () => {
    report(
      await check(
        listCases('ListClosedWorkflowExecutions', 'closeTimeFilter', closedCloses(), true),
      ),
    );
  });
  it('count by start and by close time: every filter × range', async () => {
    report(
      await check([
        ...countCases('CountClosedWorkflowExecutions', 'startTimeFilter', closedStarts(), true),
        ...countCases('CountClosedWorkflowExecutions', 'closeTimeFilter', closedCloses(), true),
      ]),
    );
  });
});

describe('time bounds with fractions of a millisecond (raw JSON, as a client other than the SDK may send)', () => {
  it('keep both bounds inclusive and compare exactly', async () => {
    const cases: Case[] = [];
    for (const [action, member, times] of [
      ['ListOpenWorkflowExecutions', 'startTimeFilter', openTimes()],
      ['CountOpenWorkflowExecutions', 'startTimeFilter', openTimes()],
      ['ListClosedWorkflowExecutions', 'startTimeFilter', closedStarts()],
      ['ListClosedWorkflowExecutions', 'closeTimeFilter', closedCloses()],
      ['CountClosedWorkflowExecutions', 'closeTimeFilter', closedCloses()],
    ] as const) {
      const t = [...new Set(times)].sort((a, b) => a - b);
      const low = t[1] ?? 0;
      const high = t[t.length - 2] ?? 0;
      for (const range of [
        // Around the bounds by less than a millisecond: both ends in, then both out.
        { oldestDate: low / 1000 - 0.0004, latestDate: high / 1000 + 0.0004 },
        { oldestDate: low / 1000 + 0.0004, latestDate: high / 1000 - 0.0004 },
        // Exactly the bounds, written as decimals of seconds.
        {
          oldestDate: Number((low / 1000).toFixed(3)),
          latestDate: Number((high / 1000).toFixed(3)),
        },
        // One run alone, between fractions around it.
        { oldestDate: low / 1000 - 0.0001, latestDate: low / 1000 + 0.0001 },
      ])
        for (const reverseOrder of [false, true])
          cases.push({
            action,
            request: {
              domain: DOMAIN,
              [member]: range,
              ...(action.startsWith('List') ? { reverseOrder } : {}),
            },
            wire: true,
          });
    }
    report(await check(cases));
  });
});

describe('other domains', () => {
  it('see nothing of each other, and one keeping nothing after close lists only its open runs', async () => {
    const cases: Case[] = [];
    for (const domain of [OTHER, GONE, DOMAIN]) {
      const parts: FilterPart[] = [
        {},
        { executionFilter: { workflowId: 'open-1' } },
        { executionFilter: { workflowId: 'completed-1' } },
        { executionFilter: { workflowId: 'terminated-1' } },
        { typeFilter: { name: 'order' } },
        { typeFilter: ORDER_1 },
        { tagFilter: { tag: 'red' } },
        { tagFilter: { tag: 'blue' } },
      ];
      for (const part of parts) {
        const base = { domain, ...part };
        const all = { oldestDate: 0 };
        cases.push({
          action: 'ListOpenWorkflowExecutions',
          request: { ...base, startTimeFilter: all },
        });
        cases.push({
          action: 'CountOpenWorkflowExecutions',
          request: { ...base, startTimeFilter: all },
        });
        for (const member of ['startTimeFilter', 'closeTimeFilter'] as const) {
          cases.push({
            action: 'ListClosedWorkflowExecutions',
            request: { ...base, [member]: all },
          });
          cases.push({
            action: 'CountClosedWorkflowExecutions',
            request: { ...base, [member]: all },
          });
        }
      }
      for (const status of CLOSE_STATUSES)
        for (const member of ['startTimeFilter', 'closeTimeFilter'] as const) {
          const request = { domain, [member]: { oldestDate: 0 }, closeStatusFilter: { status } };
          cases.push({ action: 'ListClosedWorkflowExecutions', request });
          cases.push({ action: 'CountClosedWorkflowExecutions', request });
        }
    }
    report(await check(cases));
  });
});

describe('page sizes', () => {
  it('take 0 as the default, and page to the end in both orders with every size up to the whole', async () => {
    const cases: Case[] = [];
    const all = { oldestDate: 0 };
    for (const maximumPageSize of [0, 3, 5, 7, 1000])
      for (const reverseOrder of [false, true]) {
        cases.push({
          action: 'ListOpenWorkflowExecutions',
          request: { domain: DOMAIN, startTimeFilter: all, maximumPageSize, reverseOrder },
        });
        for (const member of ['startTimeFilter', 'closeTimeFilter'] as const)
          cases.push({
            action: 'ListClosedWorkflowExecutions',
            request: { domain: DOMAIN, [member]: all, maximumPageSize, reverseOrder },
          });
      }
    report(await check(cases));
  });
});

describe('invalid combinations', () => {
  const all = { oldestDate: 0 };
  const exclusive: Record<string, FilterPart> = {
    executionFilter: { executionFilter: { workflowId: 'open-1' } },
    typeFilter: { typeFilter: { name: 'order' } },
    tagFilter: { tagFilter: { tag: 'red' } },
    closeStatusFilter: { closeStatusFilter: { status: 'FAILED' } },
  };
  /** Every set of two or more of the given filters. */
  const combinations = (names: string[]): FilterPart[] => {
    const out: FilterPart[] = [];
    for (let mask = 0; mask < 1 << names.length; mask++) {
      const chosen = names.filter((_, i) => (mask & (1 << i)) !== 0);
      if (chosen.length >= 2)
        out.push(Object.assign({}, ...chosen.map((n) => exclusive[n])) as FilterPart);
    }
    return out;
  };

  it('refuse two or more exclusive filters, both time filters or neither, with ValidationException', async () => {
    const cases: Case[] = [];
    for (const action of ['ListOpenWorkflowExecutions', 'CountOpenWorkflowExecutions'] as const) {
      for (const part of combinations(['executionFilter', 'typeFilter', 'tagFilter']))
        cases.push({ action, request: { domain: DOMAIN, startTimeFilter: all, ...part } });
      cases.push({ action, request: { domain: DOMAIN } });
      cases.push({ action, request: { domain: DOMAIN, tagFilter: { tag: 'red' } } });
    }
    for (const action of [
      'ListClosedWorkflowExecutions',
      'CountClosedWorkflowExecutions',
    ] as const) {
      for (const part of combinations(Object.keys(exclusive)))
        for (const member of ['startTimeFilter', 'closeTimeFilter'] as const)
          cases.push({ action, request: { domain: DOMAIN, [member]: all, ...part } });
      cases.push({
        action,
        request: { domain: DOMAIN, startTimeFilter: all, closeTimeFilter: all },
      });
      cases.push({
        action,
        request: {
          domain: DOMAIN,
          startTimeFilter: all,
          closeTimeFilter: all,
          tagFilter: { tag: 'x' },
        },
      });
      cases.push({ action, request: { domain: DOMAIN } });
      cases.push({ action, request: { domain: DOMAIN, closeStatusFilter: { status: 'FAILED' } } });
    }
    report(await check([...cases, ...cases.map((c) => ({ ...c, wire: true }))]));
  });

  it('refuse members out of the model’s bounds with ValidationException, and an unknown domain with UnknownResourceFault', async () => {
    const cases: Case[] = [];
    const actions: VisibilityAction[] = [
      'ListOpenWorkflowExecutions',
      'CountOpenWorkflowExecutions',
      'ListClosedWorkflowExecutions',
      'CountClosedWorkflowExecutions',
    ];
    for (const action of actions) {
      const base = { domain: DOMAIN, startTimeFilter: all };
      const bad: VisibilityRequest[] = [
        { ...base, executionFilter: { workflowId: '' } },
        { ...base, executionFilter: { workflowId: 'w'.repeat(257) } },
        { ...base, typeFilter: { name: '' } },
        { ...base, typeFilter: { name: 'n'.repeat(257) } },
        { ...base, typeFilter: { name: 'order', version: 'v'.repeat(65) } },
        { ...base, tagFilter: { tag: 't'.repeat(257) } },
        { ...base, domain: '' },
        { ...base, domain: 'no-such-domain' },
      ];
      if (action.startsWith('List'))
        bad.push({ ...base, maximumPageSize: 1001 }, { ...base, maximumPageSize: -1 });
      if (action.includes('Closed'))
        bad.push(
          { ...base, closeStatusFilter: { status: 'OPEN' } },
          { ...base, closeStatusFilter: { status: 'completed' } },
          { domain: DOMAIN, closeTimeFilter: all, closeStatusFilter: { status: 'TIMEDOUT' } },
        );
      for (const request of bad) {
        cases.push({ action, request });
        cases.push({ action, request, wire: true });
      }
    }
    report(await check(cases));
  });

  it('accept the longest values the model allows', async () => {
    const cases: Case[] = [];
    const all = { oldestDate: 0 };
    for (const action of ['ListOpenWorkflowExecutions', 'CountClosedWorkflowExecutions'] as const)
      for (const part of [
        { executionFilter: { workflowId: 'w'.repeat(256) } },
        { typeFilter: { name: 'n'.repeat(256), version: 'v'.repeat(64) } },
        { tagFilter: { tag: LONG_TAG } },
      ])
        cases.push({ action, request: { domain: DOMAIN, startTimeFilter: all, ...part } });
    report(await check(cases));
  });
});
