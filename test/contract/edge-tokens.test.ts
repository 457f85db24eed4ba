/**
 * Task tokens tampered with, for the five actions that take one: truncated, one character or bit
 * changed, re-encoded, padded, with whitespace, odd Unicode or separators, too long; a decision token
 * where an activity token goes and the reverse; a token of an earlier attempt (timed out and
 * scheduled again). Each is refused with its fault (400) and changes nothing: histories and every
 * item of the table are the same before and after, and the genuine tokens still work. Concurrent
 * responses with one token: exactly one wins.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { expectCallFault, expectSwfFault, rawCall, wireType } from '../support/contract.js';
import {
  decide,
  eventIds,
  eventsOf,
  eventTypes,
  liveRun,
  SwfDriver,
  uid,
} from '../support/decider.js';
import { domainForFile, dynamoClient, registerDomain, tableItems } from '../support/local.js';
import { awaitDecision } from '../support/waiting.js';

let dynamo: DynamoDBClient;
let driverB: SwfDriver;
const domain = 'edge-tokens-a';
const domainB = 'edge-tokens-b';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };

const server = domainForFile(domain, { polling: { maxWaitMs: 300 } }, async ({ swf, driver }) => {
  dynamo = dynamoClient();
  await registerDomain(swf, domainB);
  driverB = new SwfDriver(swf, domainB);
  for (const k of [driver, driverB]) await k.registerTypes(wf, act);
});
afterAll(() => dynamo.destroy());

/** Every item of the table, once the stream has caught up with what was written. */
async function scanTable(): Promise<string[]> {
  await server.service.streamCaughtUp();
  return tableItems(dynamo, server.service.tableName);
}

const TOKEN_ACTIONS = [
  'RespondDecisionTaskCompleted',
  'RespondActivityTaskCompleted',
  'RespondActivityTaskFailed',
  'RespondActivityTaskCanceled',
  'RecordActivityTaskHeartbeat',
] as const;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Tokens like `token` but not it, none past the limit of 1,024 characters. */
function variants(token: string): string[] {
  const [payload = '', mac = ''] = token.split('.');
  const out = new Set<string>();
  // truncations
  for (const n of [1, 5, 10, Math.floor(token.length / 2), token.length - 1, token.length - 2])
    out.add(token.slice(0, n));
  out.add(token.slice(1));
  out.add(payload);
  out.add(`${payload}.`);
  out.add(`.${mac}`);
  // one character changed, at every position
  for (let i = 0; i < token.length; i++) {
    const ch = token[i] ?? '';
    if (ch === '.') continue;
    const other = B64[(B64.indexOf(ch) + 1) % 64] ?? 'A';
    out.add(`${token.slice(0, i)}${other}${token.slice(i + 1)}`);
  }
  // a bit flipped in the decoded payload / mac
  const flip = (s: string, at: number) => {
    const bytes = Buffer.from(s, 'base64url');
    if (bytes.length === 0) return s;
    bytes[at % bytes.length] = (bytes[at % bytes.length] ?? 0) ^ 1;
    return bytes.toString('base64url');
  };
  for (const at of [0, 3, 7, 20, 40]) {
    out.add(`${flip(payload, at)}.${mac}`);
    out.add(`${payload}.${flip(mac, at)}`);
  }
  // base64 variants: padding, standard alphabet, re-encoding
  const std = (s: string) => Buffer.from(s, 'base64url').toString('base64');
  const stdNoPad = (s: string) => std(s).replace(/=+$/, '');
  out.add(`${payload}=.${mac}`);
  out.add(`${payload}.${mac}=`);
  out.add(`${token}=`);
  out.add(`${token}==`);
  out.add(`${std(payload)}.${std(mac)}`);
  out.add(`${stdNoPad(payload)}.${stdNoPad(mac)}`);
  out.add(`${payload}.${std(mac)}`);
  out.add(`${std(payload)}.${mac}`);
  out.add(token.replaceAll('-', '+').replaceAll('_', '/'));
  out.add(token.toUpperCase());
  out.add(token.toLowerCase());
  // separators
  out.add(`${token}.`);
  out.add(`${token}.x`);
  out.add(`.${token}`);
  out.add(token.replace('.', '..'));
  out.add(`${mac}.${payload}`);
  out.add('.');
  out.add('..');
  // whitespace
  for (const w of [' ', '\t', '\n', '\r\n', '\u00a0', '\u2028'])
    for (const t of [w, `${w}${token}`, `${token}${w}`]) out.add(t);
  // unicode
  out.add('é');
  out.add(`${token}é`);
  out.add('😀'.repeat(10));
  out.add(`${token.slice(0, 5)}\uff21${token.slice(6)}`);
  out.add(`${token}\u0000`);
  out.add(`\u0000${token}`);
  out.add('\u0000');
  // long
  out.add('x'.repeat(1024));
  out.add(`${token}${'A'.repeat(1024 - token.length)}`);
  out.delete(token);
  return [...out];
}

/** Tokens past the limit of 1,024 characters. */
const overLimit = (token: string) => [
  'x'.repeat(1025),
  `${token}${'A'.repeat(1025 - token.length)}`,
  '😀'.repeat(513),
];

const expectRefused = (action: string, taskToken: string, type: string) =>
  expectCallFault(server.service.endpoint, action, { taskToken }, type);

const UNKNOWN = wireType.fault('UnknownResourceFault');
const VALIDATION = wireType.validation;

describe('tampered task tokens', () => {
  it('every variant of a live decision or activity token is UnknownResourceFault and changes nothing', async () => {
    const live = await liveRun(server.driver, wf, act);
    const liveB = await liveRun(driverB, wf, act);
    const history = await server.driver.history(live.execution);
    const historyB = await driverB.history(liveB.execution);
    const before = await scanTable();
    for (const token of [live.decision.taskToken, live.activity.taskToken]) {
      for (const bad of variants(token))
        for (const action of TOKEN_ACTIONS) await expectRefused(action, bad, UNKNOWN);
      for (const bad of overLimit(token))
        for (const action of TOKEN_ACTIONS) await expectRefused(action, bad, VALIDATION);
    }
    for (const action of TOKEN_ACTIONS) await expectRefused(action, '', VALIDATION);
    // a decision token for activity actions and vice versa
    for (const action of TOKEN_ACTIONS.slice(1))
      await expectRefused(action, live.decision.taskToken, UNKNOWN);
    await expectRefused('RespondDecisionTaskCompleted', live.activity.taskToken, UNKNOWN);
    expect(await server.driver.history(live.execution)).toStrictEqual(history);
    expect(await driverB.history(liveB.execution)).toStrictEqual(historyB);
    expect(await scanTable()).toStrictEqual(before);
    // genuine tokens still work
    const hb = await rawCall(server.service.endpoint, 'RecordActivityTaskHeartbeat', {
      taskToken: live.activity.taskToken,
    });
    expect(hb.status, hb.text).toBe(200);
    await server.driver.respond(live.decision.taskToken, []);
    const done = await rawCall(server.service.endpoint, 'RespondActivityTaskCompleted', {
      taskToken: live.activity.taskToken,
      result: 'ok',
    });
    expect(done.status, done.text).toBe(200);
  }, 300_000);

  it("an earlier attempt's activity token (timed out, rescheduled under the same activityId) is refused", async () => {
    const { execution, taskList } = await server.driver.start(wf);
    const workers = uid('workers');
    await server.driver.decide(taskList, () => [
      decide.scheduleActivity({
        activityType: act,
        activityId: 'same',
        taskList: { name: workers },
        startToCloseTimeout: '1',
      }),
    ]);
    const first = await server.driver.pollActivity(workers);
    // the START_TO_CLOSE timeout, and the decision task it schedules
    const task = await awaitDecision(server.driver, taskList, 10_000);
    expect(eventTypes(task.events)).toContain('ActivityTaskTimedOut');
    await server.driver.respond(task.taskToken, [
      decide.scheduleActivity({
        activityType: act,
        activityId: 'same',
        taskList: { name: workers },
      }),
    ]);
    const second = await server.driver.pollActivity(workers);
    expect(second.activityId).toBe('same');
    const history = await server.driver.history(execution);
    const before = await scanTable();
    for (const action of TOKEN_ACTIONS.slice(1))
      await expectRefused(action, first.taskToken, UNKNOWN);
    expect(await server.driver.history(execution)).toStrictEqual(history);
    expect(await scanTable()).toStrictEqual(before);
    const ok = await rawCall(server.service.endpoint, 'RecordActivityTaskHeartbeat', {
      taskToken: second.taskToken,
    });
    expect(ok.status, ok.text).toBe(200);
  }, 60_000);

  it("an earlier attempt's decision token (task timed out, rescheduled) is refused", async () => {
    const { execution, taskList } = await server.driver.start(wf, { taskStartToCloseTimeout: '1' });
    const first = await server.driver.pollDecision(taskList);
    // the first task times out, and the decision task scheduled again is handed out
    const second = await awaitDecision(server.driver, taskList, 10_000);
    const history = await server.driver.history(execution);
    const before = await scanTable();
    for (const action of TOKEN_ACTIONS) await expectRefused(action, first.taskToken, UNKNOWN);
    expect(await server.driver.history(execution)).toStrictEqual(history);
    expect(await scanTable()).toStrictEqual(before);
    await server.driver.respond(second.taskToken, [decide.complete('done')]);
    // closed: every token of it is refused
    for (const action of TOKEN_ACTIONS) await expectRefused(action, second.taskToken, UNKNOWN);
  }, 60_000);
});

describe('one token, many concurrent uses', () => {
  it('exactly one of concurrent responses with one token wins; the rest are UnknownResourceFault', async () => {
    for (let round = 0; round < 3; round++) {
      const live = await liveRun(server.driver, wf, act);
      const actions = [
        ['RespondActivityTaskCompleted', { result: 'r' }],
        ['RespondActivityTaskFailed', { reason: 'f' }],
        ['RespondActivityTaskCanceled', { details: 'c' }],
      ] as const;
      const calls = Array.from({ length: 12 }, (_, i) => {
        const [action, extra] = actions[i % 3] ?? actions[0];
        return rawCall(server.service.endpoint, action, {
          taskToken: live.activity.taskToken,
          ...extra,
        });
      });
      const decisions = Array.from({ length: 6 }, () =>
        rawCall(server.service.endpoint, 'RespondDecisionTaskCompleted', {
          taskToken: live.decision.taskToken,
          decisions: [decide.marker('m')],
        }),
      );
      const results = await Promise.all(calls);
      const dresults = await Promise.all(decisions);
      for (const r of [...results, ...dresults]) {
        expect([200, 400], r.text).toContain(r.status);
        if (r.status === 400) expectSwfFault(r, UNKNOWN);
      }
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(dresults.filter((r) => r.status === 200)).toHaveLength(1);
      const h = await server.driver.history(live.execution);
      const closed = h.filter((e) =>
        ['ActivityTaskCompleted', 'ActivityTaskFailed', 'ActivityTaskCanceled'].includes(
          e.eventType ?? '',
        ),
      );
      expect(closed).toHaveLength(1);
      expect(eventsOf(h, 'MarkerRecorded')).toHaveLength(1);
      expect(eventsOf(h, 'DecisionTaskCompleted')).toHaveLength(2);
      // ids are consecutive
      expect(eventIds(h)).toStrictEqual(h.map((_, i) => i + 1));
    }
  }, 120_000);
});
