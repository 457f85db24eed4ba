/**
 * A storm of pollers whose callers leave (docs/architecture.md, "Long polls"; docs/swf-differences.md,
 * "A poll whose caller leaves as its task is being started"): 70 executions of four activities (two at once, then two
 * more) on 16 activity and 4 decision pollers, by the SDK and raw HTTP, a quarter of whose callers
 * leave, in the three ways a caller can: the SDK call's abortSignal, the socket destroyed mid-request,
 * the socket half-closed. Most leave at random moments; every second the writes are held 200 ms and
 * three polls leave inside the hold, as their tasks' start commits land (task-handout.test.ts's
 * window, hit in a crowd). Nothing is lost or handed out twice: every execution completes, each
 * activity is scheduled, started and completed once, each decision task started at most once, every
 * task started is written to exactly one connection (the server's writes are watched), CountPending*
 * count 0, and no call gets a 5xx.
 */
import { ServerResponse } from 'node:http';
import net from 'node:net';
import {
  type HistoryEvent,
  PollForActivityTaskCommand,
  PollForDecisionTaskCommand,
  RespondActivityTaskCompletedCommand,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { decide, eventsOf, sleep, uid } from '../support/decider.js';
import { domainForFile, swfClient } from '../support/local.js';
import { pendingActivities, pendingDecisions } from '../support/waiting.js';

const domain = 'handout-storm';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };
const EXECUTIONS = 70;
const POLLERS = { activity: 16, decision: 4 } as const;
/** How often a poll's caller leaves at a random moment of it (the write holds make a few more). */
const LEAVE_AT_RANDOM = 0.2;
/** Nothing started, handed out or done for this long: the storm stops, some task was lost. */
const STALL_MS = 10_000;
const WRITES = new Set(['TransactWriteItems', 'PutItem', 'UpdateItem']);

type Kind = keyof typeof POLLERS;
/** A poll's answer, as the SDK read it or as raw JSON: the same members. */
interface Answer {
  taskToken?: string | undefined;
  startedEventId?: number | undefined;
  workflowExecution?: { runId?: string | undefined } | undefined;
  activityId?: string | undefined;
  events?: HistoryEvent[] | undefined;
}
/** A task: its run and started event. */
const keyOf = (a: Answer) => `${a.workflowExecution?.runId}|${a.startedEventId}`;
/** Failed calls, 5xx answers the server wrote, tasks refused. */
const errors: string[] = [];
const lists = { activity: uid('workers'), decision: uid('deciders') };

/** While set, each write (a commit) waits this long before it is sent. */
let holdWritesMs = 0;

const server = domainForFile(
  domain,
  {
    polling: { maxWaitMs: 1_000 },
    dynamoIntercept: async (operation, _input, send) => {
      if (WRITES.has(operation) && holdWritesMs > 0) await sleep(holdWritesMs);
      return send();
    },
  },
  async ({ driver }) => {
    await driver.registerTypes(wf, act);
    // Every answer the server writes to a connection, seen as it is written.
    const end = ServerResponse.prototype.end;
    vi.spyOn(ServerResponse.prototype, 'end').mockImplementation(function (
      this: ServerResponse,
      ...args: unknown[]
    ) {
      written(this, args[0]);
      return Reflect.apply(end, this, args) as ServerResponse;
    } as never);
  },
);
afterAll(() => {
  vi.restoreAllMocks();
});

// ---- The server's writes; tasks written to a connection as its caller left ---------------------
/** Each task answer written, and the poll it went to (its identity, sent as x-storm-poll). */
const writes: { key: string; poll: string }[] = [];
/** Polls whose callers left, and task answers written to polls not settled yet. */
const leftPolls = new Set<string>();
const unread = new Map<string, Answer>();
/**
 * Tasks written as their callers left, the answer on its way as the socket closed: the server had not
 * seen the close yet, and such a task waits for its timeout, as on SWF. The test runs them for their
 * callers, so the executions still complete. `afterFin` counts answers written once the server had
 * read the caller's FIN, but before the socket's close, from which it learns the caller is gone.
 */
const rescues: Promise<void>[] = [];
let afterFin = 0;

function written(res: ServerResponse, body: unknown) {
  if (res.statusCode >= 500) errors.push(`server wrote ${res.statusCode} ${String(body)}`);
  if (typeof body !== 'string' || !body.includes('"taskToken"')) return;
  const answer = JSON.parse(body) as Answer;
  const poll = String(res.req.headers['x-storm-poll']);
  writes.push({ key: keyOf(answer), poll });
  if (res.socket?.readableEnded === true) afterFin++;
  if (leftPolls.has(poll)) rescue(answer);
  else unread.set(poll, answer);
}

/** A poll settled: answered (its caller has the task, if any), or its caller left. */
function settled(poll: string, left: boolean) {
  const answer = unread.get(poll);
  unread.delete(poll);
  if (left) leftPolls.add(poll);
  if (left && answer !== undefined) rescue(answer);
}

const rescue = (answer: Answer) =>
  rescues.push(work(answer.activityId === undefined ? 'decision' : 'activity', answer));

// ---- The workflow: a1 and a2 at once, then a3 and a4, then complete ----------------------------
const schedule = (activityId: string) =>
  decide.scheduleActivity({ activityType: act, activityId, taskList: { name: lists.activity } });

function decisionsFor(events: readonly HistoryEvent[]) {
  const scheduled = new Map<number, string>();
  const done = new Set<string>();
  for (const e of events) {
    const id = e.activityTaskScheduledEventAttributes?.activityId;
    if (id !== undefined) scheduled.set(e.eventId ?? 0, id);
    const of = e.activityTaskCompletedEventAttributes?.scheduledEventId;
    if (of !== undefined) done.add(scheduled.get(of) ?? '');
  }
  if (scheduled.size === 0) return [schedule('a1'), schedule('a2')];
  if (scheduled.size === 2 && done.size === 2) return [schedule('a3'), schedule('a4')];
  return done.size === 4 ? [decide.complete()] : [];
}

let completed = 0;
let lastProgress = 0;
const running = () => completed < EXECUTIONS && Date.now() - lastProgress < STALL_MS;

/** What a worker or decider does with a task it got. */
async function work(kind: Kind, task: Answer): Promise<void> {
  const taskToken = task.taskToken ?? '';
  try {
    if (kind === 'activity') {
      await server.driver.swf.send(
        new RespondActivityTaskCompletedCommand({ taskToken, result: 'ok' }),
      );
    } else {
      const decisions = decisionsFor(task.events ?? []);
      await server.driver.respond(taskToken, decisions);
      if (decisions[0]?.decisionType === 'CompleteWorkflowExecution') completed++;
    }
    lastProgress = Date.now();
  } catch (error) {
    errors.push(`${kind} ${keyOf(task)}: ${String(error)}`);
  }
}

// ---- Polls, and their callers leaving ----------------------------------------------------------
const WAYS = ['abortSignal', 'destroy', 'halfClose'] as const;
/** Polls in flight, and how each one's caller leaves. */
const inFlight = new Map<string, () => void>();

/** One poll through the SDK; its caller leaves by the call's abortSignal. */
async function sdkPoll(client: SWFClient, kind: Kind, identity: string, leave: AbortSignal) {
  const input = { domain, taskList: { name: lists[kind] }, identity };
  const command =
    kind === 'activity'
      ? new PollForActivityTaskCommand(input)
      : new PollForDecisionTaskCommand(input);
  const send = client.send.bind(client) as (c: typeof command, o: object) => Promise<Answer>;
  return send(command, { abortSignal: leave }).catch((error: unknown) =>
    leave.aborted ? ('left' as const) : Promise.reject(error),
  );
}

/** One poll as raw HTTP on a connection of its own; its caller leaves by destroying or half-closing it. */
function rawPoll(kind: Kind, identity: string, way: 'destroy' | 'halfClose', leave: AbortSignal) {
  const body = JSON.stringify({ domain, taskList: { name: lists[kind] }, identity });
  const action = kind === 'activity' ? 'PollForActivityTask' : 'PollForDecisionTask';
  const head = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: SimpleWorkflowService.${action}\r\nX-Storm-Poll: ${identity}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  return new Promise<Answer | 'left'>((resolve, reject) => {
    const socket = net.connect(Number(new URL(server.service.endpoint).port), '127.0.0.1');
    socket.write(head + body); // sent once connected, and before a half-close's FIN
    const chunks: Buffer[] = [];
    const onLeave = () => {
      if (way === 'destroy') socket.destroy();
      else socket.end();
      resolve('left');
    };
    leave.addEventListener('abort', onLeave, { once: true });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      leave.removeEventListener('abort', onLeave);
      if (leave.aborted) return; // settled as left
      const text = Buffer.concat(chunks).toString();
      const json = text.slice(text.indexOf('\r\n\r\n') + 4);
      if (text.startsWith('HTTP/1.1 200')) resolve(JSON.parse(json) as Answer);
      else reject(new Error(`${text.slice(0, 12)} ${json}`));
    });
  });
}

/** One poll, by one of the three ways; some of its callers leave at a random moment of it. */
async function poll(client: SWFClient, kind: Kind, identity: string) {
  const leave = new AbortController();
  inFlight.set(identity, () => leave.abort());
  if (Math.random() < LEAVE_AT_RANDOM) setTimeout(() => leave.abort(), Math.random() * 100);
  const way = WAYS[Math.floor(Math.random() * WAYS.length)] ?? 'abortSignal';
  try {
    const answer =
      way === 'abortSignal'
        ? await sdkPoll(client, kind, identity, leave.signal)
        : await rawPoll(kind, identity, way, leave.signal);
    settled(identity, answer === 'left');
    return answer;
  } finally {
    inFlight.delete(identity);
  }
}

/** The polls (identities) live callers got each task in. */
const received = new Map<string, string[]>();
let polls = 0;

async function poller(kind: Kind, index: number) {
  const client = swfClient(server.service.endpoint);
  // The SDK's polls name themselves to the server's watch, as the raw ones do.
  client.middlewareStack.add(
    (next) => (args) => {
      const { request, input } = args as {
        request: { headers: Record<string, string> };
        input: { identity?: string };
      };
      request.headers['x-storm-poll'] = input.identity ?? '';
      return next(args);
    },
    { step: 'build' },
  );
  try {
    for (let n = 0; running(); n++) {
      const identity = `${kind}-${index}-${n}`;
      polls++;
      const answer = await poll(client, kind, identity).catch((error: unknown) => {
        errors.push(`poll ${identity}: ${String(error)}`);
        return 'left' as const;
      });
      if (answer === 'left' || answer.taskToken === undefined) continue;
      received.set(keyOf(answer), [...(received.get(keyOf(answer)) ?? []), identity]);
      lastProgress = Date.now();
      await work(kind, answer);
    }
  } finally {
    client.destroy();
  }
}

/** Every second, holds the writes 200 ms; 80 ms in, three polls in flight leave. */
async function writeHolds() {
  while (running()) {
    await sleep(800);
    holdWritesMs = 200;
    await sleep(80);
    const some = [...inFlight.values()].sort(() => Math.random() - 0.5).slice(0, 3);
    for (const leave of some) leave();
    await sleep(120);
    holdWritesMs = 0;
  }
}

describe('16 activity and 4 decision pollers, a quarter of whose callers leave', () => {
  it('lose no task and hand none out twice', { timeout: 60_000 }, async () => {
    const began = Date.now();
    lastProgress = began;
    const executions: { workflowId: string; runId: string }[] = [];
    // Executions start one every 20 ms as the pollers run: decision tasks go to waiting polls too.
    const starting = Array.from({ length: EXECUTIONS }, async (_, i) => {
      await sleep(i * 20);
      executions.push(
        (await server.driver.start(wf, { taskList: { name: lists.decision } })).execution,
      );
      lastProgress = Date.now();
    });
    await Promise.all([
      ...starting,
      writeHolds(),
      ...Array.from({ length: POLLERS.activity }, (_, i) => poller('activity', i)),
      ...Array.from({ length: POLLERS.decision }, (_, i) => poller('decision', i)),
    ]);
    await Promise.all(rescues);

    // From the histories: a1 … a4 scheduled once each, each started and completed once, each
    // decision task started once at most, the execution completed; who each task was started for.
    const startedFor = new Map<string, string>();
    const wrong: string[] = [];
    for (const { runId, workflowId } of executions) {
      const events = await server.driver.history({ runId, workflowId });
      const n = (type: string) => eventsOf(events, type).length;
      const ids = eventsOf(events, 'ActivityTaskScheduled')
        .map((e) => e.activityTaskScheduledEventAttributes?.activityId)
        .sort();
      const shape = `${ids} started ${n('ActivityTaskStarted')} completed ${n('ActivityTaskCompleted')} closed ${n('WorkflowExecutionCompleted')}`;
      // Each Started and Completed event, by the event that scheduled its task: none twice.
      const perTask = new Set<string>();
      const twice: string[] = [];
      for (const e of events) {
        const started =
          e.activityTaskStartedEventAttributes ?? e.decisionTaskStartedEventAttributes;
        const of = started ?? e.activityTaskCompletedEventAttributes;
        const task = `${e.eventType} for ${of?.scheduledEventId}`;
        if (of !== undefined && perTask.has(task)) twice.push(task);
        perTask.add(task);
        if (started !== undefined) startedFor.set(`${runId}|${e.eventId}`, started.identity ?? '');
      }
      if (shape !== 'a1,a2,a3,a4 started 4 completed 4 closed 1' || twice.length > 0)
        wrong.push(`${runId}: ${shape} ${twice.join(', ')}`.trim());
    }

    // Every task started was written to exactly one connection; one a live caller got, to its own.
    const times = new Map<string, number>();
    for (const { key } of writes) times.set(key, (times.get(key) ?? 0) + 1);
    // Tasks started for a poll whose caller left, written to another poll.
    const handedOn = writes.filter(({ key, poll }) => startedFor.get(key) !== poll).length;
    console.log(
      `${EXECUTIONS} executions in ${Date.now() - began} ms: ${polls} polls, ${leftPolls.size} ` +
        `left (${Math.round((100 * leftPolls.size) / polls)} %), ${startedFor.size} tasks, ` +
        `${handedOn} handed on from a caller that left, ${rescues.length} written as their ` +
        `callers left (${afterFin} after their FIN)`,
    );
    expect({
      executions: executions.length,
      completed,
      wrong,
      startedNotWrittenOnce: [...startedFor.keys()].filter((key) => times.get(key) !== 1),
      writtenNotStarted: writes.filter(({ key }) => !startedFor.has(key)),
      liveNotWrittenOnce: [...received].filter(
        ([key, by]) => by.length !== 1 || times.get(key) !== 1,
      ),
      errors,
      pending: [
        await pendingActivities(server.driver, lists.activity),
        await pendingDecisions(server.driver, lists.decision),
      ],
    }).toStrictEqual({
      executions: EXECUTIONS,
      completed: EXECUTIONS,
      wrong: [],
      startedNotWrittenOnce: [],
      writtenNotStarted: [],
      liveNotWrittenOnce: [],
      errors: [],
      pending: [0, 0],
    });
    // The storm hit the window: tasks started for callers that had left went to the next polls.
    expect(handedOn).toBeGreaterThan(0);
  });
});
