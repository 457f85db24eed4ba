/**
 * Pollers across containers, on the deployed path: each container a process of its own running the
 * API function's handler (test/support/deployed/http-container.ts), polls meeting only in the table. SWF's
 * 1,000 pollers a task list holds across them (the 1,001st gets LimitExceededFault), a killed
 * container's lease frees itself after its poll's deadline, and a task scheduled while 20 pollers
 * wait in 20 containers is handed out exactly once.
 */
import { spawn } from 'node:child_process';
import {
  PollForActivityTaskCommand,
  type PollForActivityTaskCommandOutput,
  type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoPollerLeases } from '../../lib/adapters/dynamodb/poller-leases.js';
import { createSwfClient } from '../../lib/sdk/client.js';
import { decide, SwfDriver, sleep } from '../support/decider.js';
import { dynamoEndpoint, type FreshTable, freshTable, registerDomain } from '../support/local.js';
import { root, type StartedServer, waitForLine } from '../support/start-process.js';

/** A lease outlives its poll's deadline by this (lib/operations/poller-admission.ts). */
const LEASE_MARGIN_MS = 5_000;
const SHORT_POLL_MS = 3_000;
const LONG_POLL_MS = 25_000;

interface Container {
  readonly process: StartedServer;
  readonly swf: SWFClient;
}

let table: FreshTable;
const containers: Container[] = [];

function startContainer(pollMaxWaitMs: number): Promise<Container> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/deployed/http-container.ts'],
    {
      cwd: root,
      env: {
        ...process.env,
        DYNAMO_ENDPOINT: dynamoEndpoint(),
        TABLE_NAME: table.tableName,
        POLL_MAX_WAIT_MS: String(pollMaxWaitMs),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const started = Object.assign(child, { output: () => out, errors: () => err });
  return waitForLine(started, 'container listening on', 90_000).then((output) => {
    const endpoint = /container listening on (\S+)/.exec(output)?.[1] as string;
    const swf = createSwfClient({ endpoint, maxSockets: 1_100, maxAttempts: 1 });
    const container = { process: started, swf };
    containers.push(container);
    return container;
  });
}

async function kill(container: Container): Promise<void> {
  const ended = new Promise((resolve) => container.process.once('exit', resolve));
  container.process.kill('SIGKILL');
  await ended;
}

beforeAll(async () => {
  table = await freshTable('pollers-across');
}, 60_000);
afterAll(async () => {
  for (const container of containers) {
    container.swf.destroy();
    if (container.process.exitCode === null && container.process.signalCode === null)
      await kill(container);
  }
  table?.doc.destroy();
  table?.client.destroy();
}, 60_000);

/** Waits until `count` polls of the list hold their leases (read from the table, as an operator would). */
async function leasesHeld(domain: string, taskList: string, count: number): Promise<void> {
  const leases = new DynamoPollerLeases(table);
  const space = { scope: 'list', kind: 'activity', domain, taskList } as const;
  const deadline = Date.now() + 60_000;
  while ((await leases.liveSlots(space, Date.now())).length < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} leases held after 60 s`);
    await sleep(200);
  }
}

const pollOn =
  (domain: string, taskList: string) =>
  (container: Container, identity: string): Promise<PollForActivityTaskCommandOutput> =>
    container.swf.send(
      new PollForActivityTaskCommand({ domain, taskList: { name: taskList }, identity }),
    );

/** What a poll came to: its task's activity id, '' for an empty task, or its fault's name. */
const outcome = (poll: Promise<PollForActivityTaskCommandOutput>): Promise<string> =>
  poll.then(
    (answer) => answer.activityId ?? '',
    (error: unknown) => (error instanceof Error ? error.name : String(error)),
  );

describe('pollers of one task list in separate containers', () => {
  it('turn the 1,001st away, and get a killed container its lease back after its deadline', async () => {
    const domain = 'across-limit';
    const admin = await startContainer(SHORT_POLL_MS);
    await registerDomain(admin.swf, domain);
    const [a, b, c, doomed] = await Promise.all([
      startContainer(LONG_POLL_MS),
      startContainer(LONG_POLL_MS),
      startContainer(LONG_POLL_MS),
      startContainer(SHORT_POLL_MS),
    ]);
    const poll = pollOn(domain, 'crowded');
    // 999 polls in three containers for 25 s, and one in the container about to be killed.
    const waiting = [a, b, c].flatMap((container, n) =>
      Array.from({ length: 333 }, (_, i) => outcome(poll(container, `w${n}-${i}`))),
    );
    await leasesHeld(domain, 'crowded', 999);
    const doomedPoll = outcome(poll(doomed, 'doomed'));
    const doomedAt = Date.now();
    await leasesHeld(domain, 'crowded', 1_000);
    expect(await outcome(poll(admin, 'the 1,001st'))).toBe('LimitExceededFault');
    await kill(doomed);
    expect(await doomedPoll).not.toBe('');
    // Its slot is leased until its deadline and a margin: a poll is turned away until then ...
    expect(await outcome(poll(admin, 'too soon'))).toBe('LimitExceededFault');
    await sleep(doomedAt + SHORT_POLL_MS + LEASE_MARGIN_MS + 500 - Date.now());
    // ... and let in after, while the 999 still wait: it answers its empty task, no fault.
    expect(Date.now() + SHORT_POLL_MS).toBeLessThan(doomedAt - 2_500 + LONG_POLL_MS);
    expect(await outcome(poll(admin, 'after the lease'))).toBe('');
    const answers = await Promise.all(waiting);
    expect(answers.filter((x) => x !== '')).toEqual([]);
  }, 120_000);

  it('hand a task scheduled while 20 of them wait to exactly one', async () => {
    const domain = 'across-once';
    const pollers = await Promise.all(Array.from({ length: 20 }, () => startContainer(20_000)));
    const admin = pollers[0] as Container;
    await registerDomain(admin.swf, domain);
    const driver = new SwfDriver(admin.swf, domain);
    await driver.registerTypes({ name: 'wf', version: '1' }, { name: 'act', version: '1' });
    const { taskList } = await driver.start({ name: 'wf', version: '1' });
    const decision = await driver.pollDecision(taskList);
    const poll = pollOn(domain, 'workers');
    const polls = pollers.map((container, i) => outcome(poll(container, `p${i}`)));
    await leasesHeld(domain, 'workers', 20); // all 20 waiting
    await driver.respond(decision.taskToken, [
      decide.scheduleActivity({
        activityType: { name: 'act', version: '1' },
        activityId: 'once',
        taskList: { name: 'workers' },
      }),
    ]);
    const answers = await Promise.all(polls);
    expect(answers.filter((x) => x === 'once')).toHaveLength(1);
    expect(answers.filter((x) => x !== 'once' && x !== '')).toEqual([]);
  }, 150_000);
});
