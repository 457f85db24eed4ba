/**
 * Queue entries are hints written just before the commit that schedules their task; the run's state
 * decides. Through the official SDK: a poller leaves an entry whose commit has not landed (it may any
 * moment), drops one whose commit never landed or whose task is gone, and still finds the real task
 * queued behind them. A list's entries are spread over partition keys, and polls take them in order.
 */
import {
  CountPendingDecisionTasksCommand,
  PollForDecisionTaskCommand,
  RegisterWorkflowTypeCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { keys, shardOf } from '../../lib/adapters/dynamodb/keys.js';
import { QUEUE_SHARDS } from '../../lib/adapters/dynamodb/task-queue-items.js';
import {
  type QueuedTaskRef,
  REMOVAL_GRACE_SECONDS,
  UNCOMMITTED_ENTRY_GRACE_SECONDS,
} from '../../lib/core/task-queue.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION } from '../../lib/local/local-service.js';
import { type SwfDriver, uid } from '../support/decider.js';
import { domainForFile } from '../support/local.js';

const domain = 'queue-entries';
const wf = { name: 'wf', version: '1' };
const doc = () =>
  createDocumentClient({
    endpoint: server.service.dynamoEndpoint,
    region: LOCAL_REGION,
    credentials: localCredentials,
  });

const server = domainForFile(domain, { polling: { maxWaitMs: 300 } }, async ({ swf }) => {
  await swf.send(
    new RegisterWorkflowTypeCommand({
      domain,
      ...wf,
      defaultExecutionStartToCloseTimeout: '3600',
      defaultTaskStartToCloseTimeout: '600',
      defaultChildPolicy: 'TERMINATE',
    }),
  );
});

/** Writes a decision-task entry the way a commit does just before it lands. */
async function putEntry(entry: QueuedTaskRef): Promise<void> {
  const client = doc();
  try {
    await client.put({
      TableName: server.service.tableName,
      Item: { ...keys.queueEntry(entry, QUEUE_SHARDS), entity: 'QueuedTask', ...entry },
    });
  } finally {
    client.destroy();
  }
}

const pending = async (taskList: string) =>
  (
    await server.swf.send(
      new CountPendingDecisionTasksCommand({ domain, taskList: { name: taskList } }),
    )
  ).count;

const entryFor = (taskList: string, runId: string, scheduledAt: number): QueuedTaskRef => ({
  kind: 'decision',
  domain,
  runId,
  taskList,
  // Ahead of the real task in the queue: the highest priority.
  taskPriority: '2147483647',
  scheduledAt,
  scheduledEventId: 2,
});

describe('queue entries whose commit has not landed', () => {
  it('are left for their commit while it may still land, and the poller takes the task behind them', async () => {
    const taskList = uid('deciders');
    const now = Date.now() / 1000;
    await putEntry(entryFor(taskList, uid('not-yet-created'), now));
    const { execution } = await server.driver.start(wf, { taskList: { name: taskList } });
    expect(await pending(taskList)).toBe(2);
    const task = await server.driver.pollDecision(taskList);
    expect(task.workflowExecution?.runId).toBe(execution.runId);
    // The young entry is still there: its run may be created any moment.
    expect(await pending(taskList)).toBe(1);
    const empty = await server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList } }),
    );
    expect(empty.taskToken ?? '').toBe('');
    expect(await pending(taskList)).toBe(1);
  });

  it('are dropped once their commit can no longer land, as are entries of tasks that are gone', async () => {
    const taskList = uid('deciders');
    const old = Date.now() / 1000 - UNCOMMITTED_ENTRY_GRACE_SECONDS - 5;
    await putEntry(entryFor(taskList, uid('never-created'), old));
    const { execution } = await server.driver.start(wf, { taskList: { name: taskList } });
    // An entry for the run's own event 1 (WorkflowExecutionStarted): no task was ever scheduled there.
    await putEntry({
      ...entryFor(taskList, execution.runId, Date.now() / 1000),
      scheduledEventId: 1,
    });
    expect(await pending(taskList)).toBe(3);
    const task = await server.driver.pollDecision(taskList);
    expect(task.workflowExecution?.runId).toBe(execution.runId);
    // The never-created run's entry is gone; the run changed just now (its task was started), so an
    // entry for a task it no longer has is left to the writer of that change for a few seconds …
    expect(await pending(taskList)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, (REMOVAL_GRACE_SECONDS + 0.5) * 1000));
    // … and dropped by the next poller after that.
    const empty = await server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList } }),
    );
    expect(empty.taskToken ?? '').toBe('');
    expect(await pending(taskList)).toBe(0);
  }, 20_000);
});

describe("a hot list's queue", () => {
  it('is spread over partition keys (no busy list held to the throughput of one key), and polls still take its tasks oldest first', async () => {
    const taskList = uid('deciders');
    const started: string[] = [];
    for (let i = 0; i < 24; i++)
      started.push(
        (await server.driver.start(wf, { taskList: { name: taskList } })).execution.runId,
      );
    const client = doc();
    const perShard: number[] = [];
    try {
      for (let shard = 0; shard < QUEUE_SHARDS; shard++) {
        const { Items = [] } = await client.query({
          TableName: server.service.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: {
            ':pk': keys.queuePartition('decision', domain, taskList, shard),
          },
        });
        perShard.push(Items.length);
      }
    } finally {
      client.destroy();
    }
    // Before, every entry of a list was under one key (shard 0).
    expect(perShard.reduce((a, b) => a + b)).toBe(started.length);
    expect(perShard.filter((n) => n > 0).length).toBeGreaterThan(1);
    const taken: (string | undefined)[] = [];
    for (const _ of started)
      taken.push((await server.driver.pollDecision(taskList)).workflowExecution?.runId);
    expect(taken).toEqual(started);
  });
});

describe('an entry written under another shard count (one partition per list, before QUEUE_SHARDS)', () => {
  it('is handed out, and removed from where it was found: later polls on the list answer on time', async () => {
    // A run whose entry this store would look for in another partition than shard 0.
    let started: Awaited<ReturnType<SwfDriver['start']>>;
    do started = await server.driver.start(wf);
    while (shardOf(started.execution.runId, QUEUE_SHARDS) === 0);
    const { taskList, execution } = started;
    const client = doc();
    try {
      const written = keys.queuePartition(
        'decision',
        domain,
        taskList,
        shardOf(execution.runId, QUEUE_SHARDS),
      );
      const { Items = [] } = await client.query({
        TableName: server.service.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': written },
      });
      const item = Items[0] as Record<string, unknown>;
      await client.delete({
        TableName: server.service.tableName,
        Key: { pk: item.pk, sk: item.sk },
      });
      const legacy = keys.queuePartition('decision', domain, taskList, 0);
      await client.put({ TableName: server.service.tableName, Item: { ...item, pk: legacy } });
    } finally {
      client.destroy();
    }
    const task = await server.driver.pollDecision(taskList);
    expect(task.workflowExecution?.runId).toBe(execution.runId);
    expect(await pending(taskList)).toBe(0);
    // Before, its removal went to the other partition: the entry stayed, and once stale every poll
    // on the list dropped it, read it again and dropped it, never answering.
    await new Promise((resolve) => setTimeout(resolve, (REMOVAL_GRACE_SECONDS + 0.5) * 1000));
    const began = Date.now();
    const empty = await server.swf.send(
      new PollForDecisionTaskCommand({ domain, taskList: { name: taskList } }),
    );
    expect(empty.taskToken ?? '').toBe('');
    expect(Date.now() - began).toBeLessThan(3_000);
  }, 20_000);
});
