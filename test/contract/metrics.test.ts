/**
 * SWF's metrics through `npm start`: the order workflow run four ways (completed, failed, cancelled
 * by its customer's signal, timed out while shipping) and a run nobody decides for, then `GET
 * /metrics`. Every count is checked against the outcome each run was driven to and against its
 * history as the SDK reads it; the times must be plausible; the console's parser reads the output.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type HistoryEvent,
  SignalWorkflowExecutionCommand,
  StartWorkflowExecutionCommand,
  type SWFClient,
  TerminateWorkflowExecutionCommand,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  latencyRows,
  outcomeRows,
  parseExposition,
  type Sample,
} from '../../console/src/metrics-model.js';
import { ORDER_ACTIVITIES, ORDER_WORKFLOW, type Order } from '../../examples/order-workflow.js';
import { freshTaskList, history, waitForClose } from '../../examples/support.js';
import { swfClient } from '../support/local.js';
import { startOrderWorkers, waitFor } from '../support/order-runs.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOMAIN = `metrics-${randomUUID().slice(0, 8)}`;
const LABELS = { domain: DOMAIN, workflow_type_name: 'OrderWorkflow', workflow_type_version: '1' };

let server: ChildProcess;
let endpoint: string;
let client: SWFClient;
const histories: HistoryEvent[][] = [];
let idleList: string;

/** `npm start -- --port 0`, resolved with its endpoint once it prints it. */
async function npmStart(): Promise<{ child: ChildProcess; endpoint: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/start.ts', '--port', '0'], {
    cwd: root,
    env: { ...process.env, PORT: '', SWF_DATA_DIR: '', SWF_PUSH_TASK_LISTS: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /SWF endpoint: (http:\/\/\S+)/.exec(out)?.[1];
      if (found !== undefined) done(found);
    });
    child.once('exit', (code) => fail(new Error(`npm start exited ${code}:\n${out}`)));
  });
  return { child, endpoint: url };
}

const scrape = async () => (await fetch(`${endpoint}/metrics`)).text();

/** The four orders, each driven to its outcome, and their histories. */
async function runOrders(): Promise<void> {
  const { deciderList, stop } = await startOrderWorkers(client, DOMAIN);
  const start = async (order: Order, timeout = '120') => {
    const { runId = '' } = await client.send(
      new StartWorkflowExecutionCommand({
        domain: DOMAIN,
        workflowId: order.orderId,
        workflowType: ORDER_WORKFLOW,
        taskList: { name: deciderList },
        executionStartToCloseTimeout: timeout,
        input: JSON.stringify(order),
      }),
    );
    return { workflowId: order.orderId, runId };
  };
  try {
    const runs = [
      await start({ orderId: 'order-completed', card: 'valid' }),
      await start({ orderId: 'invalid-failed', card: 'valid' }),
      await start({ orderId: 'order-canceled', card: 'valid', shippingMs: 60_000 }),
      await start({ orderId: 'order-timed-out', card: 'valid', shippingMs: 60_000 }, '4'),
    ];
    const canceled = runs[2] as (typeof runs)[number];
    await waitFor(async () => startedShipping(await history(client, DOMAIN, canceled)), {
      timeoutMs: 30_000,
      what: 'the cancelled order to ship',
    });
    await client.send(
      new SignalWorkflowExecutionCommand({
        domain: DOMAIN,
        ...canceled,
        signalName: 'CancelOrder',
      }),
    );
    for (const run of runs) histories.push((await waitForClose(client, DOMAIN, run)).events);
  } finally {
    await stop();
  }
}

const startedShipping = (events: readonly HistoryEvent[]) =>
  events.some((e) => e.activityTaskScheduledEventAttributes?.activityId === 'ship') &&
  events.filter((e) => e.eventType === 'ActivityTaskStarted').length >= 3;

/** How many events of a type the four histories hold. */
const eventCount = (type: string) => histories.flat().filter((e) => e.eventType === type).length;

function value(samples: readonly Sample[], name: string, labels: Record<string, string> = {}) {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

beforeAll(async () => {
  ({ child: server, endpoint } = await npmStart());
  client = swfClient(endpoint);
  await runOrders();
  // A run nobody decides for: its decision task waits on its list.
  idleList = freshTaskList('nobody');
  await client.send(
    new StartWorkflowExecutionCommand({
      domain: DOMAIN,
      workflowId: 'order-waiting',
      workflowType: ORDER_WORKFLOW,
      taskList: { name: idleList },
    }),
  );
}, 120_000);

afterAll(async () => {
  client?.destroy();
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((done) => server.once('exit', done));
    server.kill('SIGTERM');
    await exited;
  }
}, 30_000);

describe('GET /metrics after the order workflow', () => {
  it('counts each workflow outcome once', async () => {
    const samples = parseExposition(await scrape());
    expect(value(samples, 'swf_workflows_completed_total', LABELS)).toBe(1);
    expect(value(samples, 'swf_workflows_failed_total', LABELS)).toBe(1);
    expect(value(samples, 'swf_workflows_canceled_total', LABELS)).toBe(1);
    expect(value(samples, 'swf_workflows_timed_out_total', LABELS)).toBe(1);
    expect(value(samples, 'swf_workflows_terminated_total', LABELS)).toBe(0);
    expect(value(samples, 'swf_workflow_start_to_close_time_ms_count', LABELS)).toBe(4);
  });

  it('counts each activity outcome by type, as the histories record them', async () => {
    const samples = parseExposition(await scrape());
    const activity = (name: string) => ({
      domain: DOMAIN,
      activity_type_name: name,
      activity_type_version: '1',
    });
    const counts = (metric: string) =>
      Object.fromEntries(
        ORDER_ACTIVITIES.map((name) => [name, value(samples, metric, activity(name))]),
      );
    expect(counts('swf_activity_tasks_completed_total')).toEqual({
      VerifyOrder: 3,
      ChargeCreditCard: 3,
      ShipOrder: 1,
      RecordOrderCompletion: 1,
      CancelOrder: 1,
      EmailCustomer: 1,
    });
    expect(value(samples, 'swf_activity_tasks_failed_total', activity('VerifyOrder'))).toBe(1);
    expect(value(samples, 'swf_activity_tasks_canceled_total', activity('ShipOrder'))).toBe(1);
    // Every count equals the events the histories hold of its kind.
    const pairs: [string, string][] = [
      ['swf_activity_tasks_completed_total', 'ActivityTaskCompleted'],
      ['swf_activity_tasks_failed_total', 'ActivityTaskFailed'],
      ['swf_activity_tasks_canceled_total', 'ActivityTaskCanceled'],
      ['swf_activity_task_schedule_to_start_time_ms_count', 'ActivityTaskStarted'],
      ['swf_decision_tasks_completed_total', 'DecisionTaskCompleted'],
      ['swf_decision_task_schedule_to_start_time_ms_count', 'DecisionTaskStarted'],
    ];
    for (const [metric, event] of pairs)
      expect(value(samples, metric, { domain: DOMAIN }), metric).toBe(eventCount(event));
  });

  it('measures plausible times', async () => {
    const samples = parseExposition(await scrape());
    const mean = (metric: string, labels: Record<string, string> = { domain: DOMAIN }) =>
      value(samples, `${metric}_sum`, labels) / value(samples, `${metric}_count`, labels);
    // Pollers wait on every list: tasks are handed out within a second.
    for (const metric of [
      'swf_decision_task_schedule_to_start_time_ms',
      'swf_activity_task_schedule_to_start_time_ms',
    ]) {
      expect(mean(metric)).toBeGreaterThanOrEqual(0);
      expect(mean(metric)).toBeLessThan(1_000);
    }
    // The timed-out run lasted its 4 s; none lasted the 60 s a cancelled shipment would have.
    const slowest = samples.filter(
      (s) =>
        s.name === 'swf_workflow_start_to_close_time_ms_bucket' &&
        s.labels.domain === DOMAIN &&
        s.labels.le === '2500',
    );
    expect(slowest.reduce((sum, s) => sum + s.value, 0)).toBeLessThanOrEqual(3);
    expect(value(samples, 'swf_workflow_start_to_close_time_ms_sum', LABELS)).toBeGreaterThan(
      4_000,
    );
    expect(value(samples, 'swf_workflow_start_to_close_time_ms_sum', LABELS)).toBeLessThan(60_000);
  });

  it("counts the tasks waiting on a list, and names a termination's cause", async () => {
    const pending = async () =>
      value(parseExposition(await scrape()), 'swf_pending_tasks', {
        domain: DOMAIN,
        task_list_name: idleList,
        task_list_classification: 'D',
      });
    expect(await pending()).toBe(1);
    await client.send(
      new TerminateWorkflowExecutionCommand({ domain: DOMAIN, workflowId: 'order-waiting' }),
    );
    expect(await pending()).toBe(0);
    const samples = parseExposition(await scrape());
    const terminated = { ...LABELS, cause: 'OPERATOR_INITIATED' };
    expect(value(samples, 'swf_workflows_terminated_total', terminated)).toBe(1);
  });

  it("is read by the console's charts", async () => {
    const samples = parseExposition(await scrape());
    const [workflows] = outcomeRows(samples, 'workflow', DOMAIN);
    expect(workflows).toMatchObject({ type: 'OrderWorkflow v1' });
    expect(workflows?.counts).toMatchObject({
      completed: 1,
      failed: 1,
      canceled: 1,
      timed_out: 1,
      terminated: 1,
    });
    const ship = outcomeRows(samples, 'activity', DOMAIN).find((r) => r.type === 'ShipOrder v1');
    expect(ship?.counts).toMatchObject({ completed: 1, canceled: 1 });
    const latencies = latencyRows(
      samples,
      'swf_activity_task_schedule_to_start_time_ms',
      'activity',
      DOMAIN,
    );
    expect(latencies.map((r) => r.type).sort()).toEqual(
      ORDER_ACTIVITIES.map((name) => `${name} v1`).sort(),
    );
    for (const row of latencies) expect(row.p90Ms).toBeLessThan(1_000);
  });

  it('answers SWF calls while it is read', async () => {
    const [page, calls] = await Promise.all([
      scrape(),
      Promise.all(
        Array.from({ length: 5 }, () =>
          client.send(
            new StartWorkflowExecutionCommand({
              domain: DOMAIN,
              workflowId: `during-scrape-${randomUUID()}`,
              workflowType: ORDER_WORKFLOW,
              taskList: { name: idleList },
            }),
          ),
        ),
      ),
    ]);
    expect(page).toContain('swf_workflows_completed_total');
    expect(calls.every((c) => typeof c.runId === 'string')).toBe(true);
    const wrongMethod = await fetch(`${endpoint}/metrics`, { method: 'PUT', body: 'x' });
    expect(wrongMethod.status).toBe(405);
  });
});
