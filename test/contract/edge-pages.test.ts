/**
 * Page tokens (nextPageToken) of 8 listings that cover every paginated List action: domains,
 * activity and workflow types, open executions (with and without a tag filter), closed executions (by
 * start and by close time), and a history. Paging at any page size, one changing from page to page,
 * or in reverse gives the whole listing; a token is refused (ValidationException) by every other
 * listing, by its own with changed arguments or filters, and when tampered with or too long. History
 * tokens open only their own execution's history, and a decision task's pages only that task.
 */
import {
  RegisterActivityTypeCommand,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { expectCallFault, rawCall, wireType } from '../support/contract.js';
import { SwfDriver, uid } from '../support/decider.js';
import { domainForFile, registerDomain, registerWorkflowType } from '../support/local.js';

const A = 'edge-pages-a';
const B = 'edge-pages-b';
const wf = { name: 'wf', version: '1' };
const SINCE = { oldestDate: 0 };
const executions: Record<string, { workflowId: string; runId: string }[]> = {};
const deciders: Record<string, string> = {};

const server = domainForFile(A, { polling: { maxWaitMs: 300 } }, async ({ swf, service }) => {
  for (const d of [B, `${A}-x`, `${A}-y`]) await registerDomain(swf, d);
  for (const d of [A, B]) {
    for (const [name, version] of [
      ['wf', '1'],
      ['wf', '2'],
      ['zz', '1'],
    ] as const) {
      await registerWorkflowType(swf, d, { name, version }, 'wf-defaults');
      await swf.send(new RegisterActivityTypeCommand({ domain: d, name, version }));
    }
    const driver = new SwfDriver(swf, d);
    executions[d] = [];
    const taskList = uid('dl');
    deciders[d] = taskList;
    for (let i = 0; i < 4; i++) {
      const { execution } = await driver.start(wf, {
        tagList: ['t'],
        taskList: { name: taskList },
      });
      executions[d]?.push(execution);
      for (let s = 0; s < 3; s++) await driver.signal(execution, `s${s}`);
    }
    for (let i = 0; i < 3; i++) {
      const { execution } = await driver.start(wf, { tagList: ['t'] });
      await swf.send(
        new TerminateWorkflowExecutionCommand({ domain: d, workflowId: execution.workflowId }),
      );
    }
  }
  // visibility is eventually consistent
  await service.streamCaughtUp();
});

type Body = Record<string, unknown>;
interface Listing {
  readonly action: string;
  readonly body: Body;
  readonly key: string;
}

const listings = (): Listing[] => {
  const exec = executions[A]?.[0];
  return [
    { action: 'ListDomains', body: { registrationStatus: 'REGISTERED' }, key: 'domainInfos' },
    {
      action: 'ListActivityTypes',
      body: { domain: A, registrationStatus: 'REGISTERED' },
      key: 'typeInfos',
    },
    {
      action: 'ListWorkflowTypes',
      body: { domain: A, registrationStatus: 'REGISTERED' },
      key: 'typeInfos',
    },
    {
      action: 'ListOpenWorkflowExecutions',
      body: { domain: A, startTimeFilter: SINCE },
      key: 'executionInfos',
    },
    {
      action: 'ListOpenWorkflowExecutions',
      body: { domain: A, startTimeFilter: SINCE, tagFilter: { tag: 't' } },
      key: 'executionInfos',
    },
    {
      action: 'ListClosedWorkflowExecutions',
      body: { domain: A, startTimeFilter: SINCE },
      key: 'executionInfos',
    },
    {
      action: 'ListClosedWorkflowExecutions',
      body: { domain: A, closeTimeFilter: SINCE },
      key: 'executionInfos',
    },
    { action: 'GetWorkflowExecutionHistory', body: { domain: A, execution: exec }, key: 'events' },
  ];
};

async function call(action: string, body: Body) {
  const response = await rawCall(server.service.endpoint, action, body);
  return {
    status: response.status,
    text: response.text,
    json: JSON.parse(response.text || '{}') as Body,
  };
}

const expectValidation = (action: string, body: Body) =>
  expectCallFault(server.service.endpoint, action, body, wireType.validation);

/** Every item of a listing, page by page; `pageSize` is one size, or the size of each page by its index. */
async function all(
  action: string,
  body: Body,
  key: string,
  pageSize: number | ((page: number) => number),
) {
  const items: unknown[] = [];
  let token: string | undefined;
  let page = 0;
  do {
    const r = await call(action, {
      ...body,
      maximumPageSize: typeof pageSize === 'number' ? pageSize : pageSize(page++),
      ...(token ? { nextPageToken: token } : {}),
    });
    expect(r.status, r.text).toBe(200);
    items.push(...((r.json[key] as unknown[]) ?? []));
    token = r.json.nextPageToken as string | undefined;
  } while (token);
  return items;
}

/** The token of a listing's second page, from its first page of one item. */
async function nextToken(action: string, body: Body): Promise<string> {
  const r = await call(action, { ...body, maximumPageSize: 1 });
  expect(r.status, r.text).toBe(200);
  const token = r.json.nextPageToken;
  if (typeof token !== 'string') throw new Error(`${action}: no nextPageToken in ${r.text}`);
  return token;
}

describe('page tokens', () => {
  it('each listing: paging gives the full listing whatever the page sizes, and tokens only open their own listing', async () => {
    const ls = listings();
    const tokens: { listing: Listing; token: string }[] = [];
    for (const l of ls) {
      const whole = await all(l.action, l.body, l.key, 0);
      expect(whole.length, l.action).toBeGreaterThan(2);
      expect(await all(l.action, l.body, l.key, 1)).toStrictEqual(whole);
      // page sizes changing from page to page: 1, 2, 1, 2, …
      const mixed = await all(l.action, l.body, l.key, (page) => (page % 2 === 0 ? 1 : 2));
      expect(mixed).toStrictEqual(whole);
      tokens.push({ listing: l, token: await nextToken(l.action, l.body) });
      // reversed listing equals reversed whole
      const reversed = await all(l.action, { ...l.body, reverseOrder: true }, l.key, 1);
      expect(reversed).toStrictEqual([...whole].reverse());
    }
    // every token against every other listing: ValidationException
    for (const { listing, token } of tokens) {
      for (const other of ls) {
        if (other === listing) continue;
        await expectValidation(other.action, { ...other.body, nextPageToken: token });
      }
      // changed arguments
      await expectValidation(listing.action, {
        ...listing.body,
        nextPageToken: token,
        reverseOrder: true,
      });
      if ('domain' in listing.body && listing.action !== 'GetWorkflowExecutionHistory')
        await expectValidation(listing.action, {
          ...listing.body,
          domain: B,
          nextPageToken: token,
        });
      // tampered
      const [payload = '', mac = ''] = token.split('.');
      const json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Body;
      const resign = (body: Body) =>
        `${Buffer.from(JSON.stringify(body)).toString('base64url')}.${mac}`;
      const bad = [
        `${token}x`,
        token.slice(0, -1),
        token.slice(1),
        payload,
        `${payload}.`,
        `${payload}=.${mac}`,
        token.replaceAll('-', '+').replaceAll('_', '/'),
        resign({ ...json, e: 9e15 }),
        resign({ ...json, c: 'x' }),
        ' ',
        'é',
        '\u0000',
        'x'.repeat(2048),
        `${token}.${mac}`,
      ];
      for (let i = 0; i < token.length; i += 3) {
        const ch = token[i];
        if (ch === '.') continue;
        bad.push(`${token.slice(0, i)}${ch === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`);
      }
      for (const b of bad.filter((x) => x !== token))
        await expectValidation(listing.action, { ...listing.body, nextPageToken: b });
      await expectValidation(listing.action, { ...listing.body, nextPageToken: 'x'.repeat(2049) });
    }
  }, 300_000);

  it('filters changed under a token', async () => {
    const l = { action: 'ListOpenWorkflowExecutions', body: { domain: A, startTimeFilter: SINCE } };
    const token = await nextToken(l.action, l.body);
    for (const changed of [
      { startTimeFilter: { oldestDate: 1 } },
      { startTimeFilter: { oldestDate: 0, latestDate: 9e9 } },
      { typeFilter: { name: 'wf' } },
      { tagFilter: { tag: 't' } },
      { executionFilter: { workflowId: executions[A]?.[1]?.workflowId } },
    ])
      await expectValidation(l.action, { ...l.body, ...changed, nextPageToken: token });
    for (const action of ['ListActivityTypes', 'ListWorkflowTypes']) {
      const t = await nextToken(action, { domain: A, registrationStatus: 'REGISTERED' });
      await expectValidation(action, {
        domain: A,
        registrationStatus: 'REGISTERED',
        name: 'wf',
        nextPageToken: t,
      });
      await expectValidation(action, {
        domain: A,
        registrationStatus: 'DEPRECATED',
        nextPageToken: t,
      });
    }
    const d = await nextToken('ListDomains', { registrationStatus: 'REGISTERED' });
    await expectValidation('ListDomains', { registrationStatus: 'DEPRECATED', nextPageToken: d });
  }, 60_000);

  it('history tokens: another execution, another domain, the decision poll', async () => {
    const [e1, e2] = executions[A] ?? [];
    const token = await nextToken('GetWorkflowExecutionHistory', { domain: A, execution: e1 });
    await expectValidation('GetWorkflowExecutionHistory', {
      domain: A,
      execution: e2,
      nextPageToken: token,
    });
    const eb = executions[B]?.[0];
    await expectValidation('GetWorkflowExecutionHistory', {
      domain: B,
      execution: eb,
      nextPageToken: token,
    });
    // same run, wrong domain in the request (the run is not in B: UnknownResourceFault is also fine)
    await expectCallFault(server.service.endpoint, 'GetWorkflowExecutionHistory', {
      domain: B,
      execution: e1,
      nextPageToken: token,
    });
    // decision poll pages
    const poll = await call('PollForDecisionTask', {
      domain: A,
      taskList: { name: deciders[A] },
      maximumPageSize: 1,
    });
    expect(poll.status, poll.text).toBe(200);
    const ptoken = poll.json.nextPageToken as string;
    expect(typeof ptoken).toBe('string');
    const exec = poll.json.workflowExecution as Body;
    await expectValidation('GetWorkflowExecutionHistory', {
      domain: A,
      execution: exec,
      nextPageToken: ptoken,
    });
    const htoken = await nextToken('GetWorkflowExecutionHistory', { domain: A, execution: exec });
    // a history token, another task list, another domain, changed order, a tampered token
    for (const body of [
      { domain: A, taskList: { name: deciders[A] }, nextPageToken: htoken },
      { domain: A, taskList: { name: 'other' }, nextPageToken: ptoken },
      { domain: B, taskList: { name: deciders[A] }, nextPageToken: ptoken },
      { domain: A, taskList: { name: deciders[A] }, reverseOrder: true, nextPageToken: ptoken },
      { domain: A, taskList: { name: deciders[A] }, nextPageToken: `${ptoken}x` },
    ])
      await expectValidation('PollForDecisionTask', body);
    // all pages of the poll equal the history up to its started event
    const events: unknown[] = [...((poll.json.events as unknown[]) ?? [])];
    let t: string | undefined = ptoken;
    let pages = 0;
    while (t) {
      const r = await call('PollForDecisionTask', {
        domain: A,
        taskList: { name: deciders[A] },
        maximumPageSize: pages % 2 === 0 ? 2 : 1,
        nextPageToken: t,
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.taskToken).toBe(poll.json.taskToken);
      events.push(...((r.json.events as unknown[]) ?? []));
      t = r.json.nextPageToken as string | undefined;
      pages++;
    }
    const hist = await all(
      'GetWorkflowExecutionHistory',
      { domain: A, execution: exec },
      'events',
      0,
    );
    expect(events).toStrictEqual(hist.slice(0, events.length));
    expect((events.at(-1) as Body).eventType).toBe('DecisionTaskStarted');
  }, 60_000);
});
