/**
 * A poll whose caller's FIN the server has read, but whose socket has not closed yet, when the commit
 * that starts its task lands: the server has already ended the connection (Node's http server does
 * on a FIN), so an answer written then never arrives. The task must go to the next poll on the list.
 */
import net from 'node:net';
import { PollForActivityTaskCommand } from '@aws-sdk/client-swf';
import { expect, it } from 'vitest';
import { decide, sleep, uid } from '../support/decider.js';
import { domainForFile } from '../support/local.js';

const domain = 'handout-fin';
const wf = { name: 'wf', version: '1' };
const act = { name: 'act', version: '1' };
/**
 * While set, the store's answer to a DeleteItem (the claimed task's queue entry removed, the last
 * call before the poll's answer is built) is held until it resolves.
 */
let held: Promise<void> | undefined;

const server = domainForFile(
  domain,
  {
    polling: { maxWaitMs: 2_000 },
    dynamoIntercept: async (operation, _input, send) => {
      const out = await send();
      if (operation === 'DeleteItem' && held !== undefined) await held;
      return out;
    },
  },
  async ({ driver }) => {
    await driver.registerTypes(wf, act);
  },
);

it('hands a task whose start landed between the caller FIN and the socket close to the next poll', async () => {
  const { taskList } = await server.driver.start(wf);
  const workers = uid('workers');
  await server.driver.decide(taskList, () => [
    decide.scheduleActivity({ activityType: act, activityId: 'a1', taskList: { name: workers } }),
  ]);

  // The claim's commit lands; the poll's answer is let through the moment the server reads the
  // caller's FIN (its socket's 'end', on which Node ends the connection), before the socket's 'close'
  // (from which the server learns the caller is gone). Released on 'close' instead, the test passes.
  let release = () => {};
  held = new Promise<void>((r) => {
    release = r;
  });
  const emit = net.Socket.prototype.emit;
  net.Socket.prototype.emit = function (this: net.Socket & { server?: unknown }, ...args) {
    const result = Reflect.apply(emit, this, args) as boolean;
    if (args[0] === 'end' && this.server !== undefined) release();
    return result;
  } as typeof emit;
  try {
    const body = JSON.stringify({ domain, taskList: { name: workers }, identity: 'gone' });
    const socket = net.connect(Number(new URL(server.service.endpoint).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: SimpleWorkflowService.PollForActivityTask\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await sleep(300); // its claim's commit has landed; its answer is held
    socket.end(); // the caller leaves: a FIN
    await sleep(300);
  } finally {
    net.Socket.prototype.emit = emit;
    held = undefined;
    release();
  }

  const next = await server.driver.swf.send(
    new PollForActivityTaskCommand({ domain, taskList: { name: workers }, identity: 'next' }),
  );
  expect(next.activityId).toBe('a1');
});
