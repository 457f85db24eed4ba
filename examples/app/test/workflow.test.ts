/**
 * The onboarding workflow end to end against the local service (`swf-on-dynamo`, DynamoDB Local
 * included), with the decider and the worker run as the Lambda functions they are deployed as: the
 * service pushes each task to them, here by POSTing it to a small HTTP server in this test.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createSwfClient, type SWFClient } from 'swf-on-dynamo/sdk';
import { handler as decider } from '../src/decider.js';
import { startOnboarding, waitForClose } from '../src/executions.js';
import { handler as worker } from '../src/worker.js';
import { ACTIVITIES, DECISIONS, DOMAIN, register } from '../src/workflow.js';

let service: ChildProcess;
let functions: Server;
let client: SWFClient;
const running = new Set<Promise<unknown>>();

before(async () => {
  functions = await serveFunctions({ '/decider': decider, '/worker': worker });
  const { port } = functions.address() as AddressInfo;
  const target = (path: string) => `http://127.0.0.1:${port}${path}`;
  const lists = [
    { kind: 'decision', domain: DOMAIN, taskList: DECISIONS, target: target('/decider') },
    { kind: 'activity', domain: DOMAIN, taskList: ACTIVITIES, target: target('/worker') },
  ];
  const started = await startService({ SWF_PUSH_TASK_LISTS: JSON.stringify(lists) });
  service = started.process;
  client = createSwfClient({ endpoint: started.endpoint });
  await register(client);
});

after(async () => {
  client?.destroy();
  // It stops DynamoDB Local, then itself.
  const exited = new Promise((resolve) => service?.once('exit', resolve));
  service?.kill('SIGTERM');
  await exited;
  await Promise.allSettled(running);
  functions?.close();
});

test('onboards a customer: an account, then a welcome', async () => {
  const execution = await startOnboarding(client, 'ada@example.com');
  const outcome = await waitForClose(client, execution);
  assert.equal(outcome.closeStatus, 'COMPLETED');
  assert.deepEqual(JSON.parse(outcome.result ?? ''), {
    account: 'account-ada',
    welcome: 'Welcome aboard, account-ada!',
  });
});

test('fails the onboarding of an address that is not one', async () => {
  const outcome = await waitForClose(client, await startOnboarding(client, 'not-an-address'));
  assert.equal(outcome.closeStatus, 'FAILED');
  assert.equal(outcome.result, 'CreateAccount did not succeed');
});

/**
 * Serves each handler at its path as Lambda invokes a function asynchronously: the event is
 * answered at once and handled meanwhile.
 */
function serveFunctions(handlers: Record<string, (event: never) => Promise<unknown>>) {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const handler = handlers[request.url ?? ''];
      response.writeHead(handler === undefined ? 404 : 202).end();
      if (handler === undefined) return;
      const event = JSON.parse(Buffer.concat(chunks).toString()) as never;
      const run = handler(event).catch((error: unknown) => console.error(error));
      running.add(run);
      void run.finally(() => running.delete(run));
    });
  });
  return new Promise<Server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Starts `swf-on-dynamo --port 0` and waits for the endpoint it prints. */
function startService(env: Record<string, string>) {
  const bin = fileURLToPath(new URL('../node_modules/.bin/swf-on-dynamo', import.meta.url));
  const child = spawn(process.execPath, [bin, '--port', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<{ process: ChildProcess; endpoint: string }>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const endpoint = /SWF endpoint: (\S+)/.exec(out)?.[1];
      if (endpoint !== undefined) resolve({ process: child, endpoint });
    });
    child.once('exit', (code) => reject(new Error(`swf-on-dynamo exited ${code}:\n${out}`)));
  });
}
