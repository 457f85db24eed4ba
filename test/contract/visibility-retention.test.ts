/**
 * What visibility keeps, through the official SDK: stream records delivered again change no listing,
 * and closed executions vanish after the domain's retention (at once with a retention of 0 days).
 */
import { randomBytes } from 'node:crypto';
import {
  GetWorkflowExecutionHistoryCommand,
  RecordActivityTaskHeartbeatCommand,
  RegisterActivityTypeCommand,
  type SWFClient,
  UnknownResourceFault,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { replay } from '../../lib/core/replay.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { LOCAL_REGION, type LocalService } from '../../lib/local/local-service.js';
import { carryOutRunChange } from '../../lib/operations/outbox.js';
import { expectFault, unique } from '../support/contract.js';
import { decide } from '../support/decider.js';
import { serverForFile, startTestServer } from '../support/local.js';
import {
  countClosed,
  countOpen,
  eventually,
  freshDomain,
  ids,
  listClosed,
  listOpen,
  ORDER_1,
  SINCE,
  terminate,
} from '../support/visibility-listing.js';

const server = serverForFile({ polling: { maxWaitMs: 2_000 } });

describe('stream records delivered again', () => {
  it('change no listing: a replayed start does not reopen a closed execution, nor a replayed close double it', async () => {
    const driver = await freshDomain(server.swf);
    const { execution } = await driver.start(ORDER_1, { tagList: ['replayed'] });
    await terminate(driver, execution);
    await eventually(
      () => countClosed(driver, { startTimeFilter: SINCE }),
      (o) => o.count === 1,
    );
    const closed = (await server.service.outbox.runs.loadRun(execution.runId))?.state;
    const history = await server.service.outbox.runs.readHistory(execution.runId, {
      limit: 2,
      reverse: false,
    });
    if (closed === undefined) throw new Error('run not found');
    const opened = replay({ domain: driver.domain, execution }, history.events);
    expect(opened.status).toBe('OPEN');
    // The whole stream of the run again, in order, then its first record once more, late.
    await carryOutRunChange(server.service.outbox, undefined, opened);
    await carryOutRunChange(server.service.outbox, opened, closed);
    await carryOutRunChange(server.service.outbox, undefined, opened);
    const tagged = { tagFilter: { tag: 'replayed' } };
    expect(ids(await listOpen(driver, { startTimeFilter: SINCE, ...tagged }))).toEqual([]);
    expect(ids(await listClosed(driver, { startTimeFilter: SINCE, ...tagged }))).toEqual([
      execution.workflowId,
    ]);
    expect(ids(await listClosed(driver, { closeTimeFilter: SINCE }))).toEqual([
      execution.workflowId,
    ]);
    expect((await countOpen(driver, { startTimeFilter: SINCE })).count).toBe(0);
    expect((await countClosed(driver, { closeTimeFilter: SINCE, ...tagged })).count).toBe(1);
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('CLOSED');
  });
});

describe('retention', () => {
  let service: LocalService;
  let client: SWFClient;
  let stop: () => Promise<void>;
  /** The service's clock runs this far ahead of the real one (ms). */
  let offset = 0;

  beforeAll(async () => {
    ({
      service,
      swf: client,
      close: stop,
    } = await startTestServer({
      polling: { maxWaitMs: 1_000 },
      clock: { now: () => Date.now() + offset },
    }));
  });
  afterAll(() => stop());

  /** Every item of the table that belongs to a run: its own partition and its visibility rows. */
  async function itemsOf(runId: string): Promise<Record<string, unknown>[]> {
    const doc = createDocumentClient({
      endpoint: service.dynamoEndpoint,
      region: LOCAL_REGION,
      credentials: localCredentials,
    });
    try {
      const items: Record<string, unknown>[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const out = await doc.scan({ TableName: service.tableName, ExclusiveStartKey });
        items.push(...(out.Items ?? []));
        ExclusiveStartKey = out.LastEvaluatedKey;
      } while (ExclusiveStartKey !== undefined);
      return items.filter((i) => i.pk === `RUN|${runId}` || String(i.sk).endsWith(`|${runId}`));
    } finally {
      doc.destroy();
    }
  }

  const rowsOf = (items: readonly Record<string, unknown>[], list: 'CS' | 'CC') =>
    items.filter((i) => String(i.pk).startsWith(`V|${list}|`)).length;

  it('keeps a closed execution for the retention period, then answers UnknownResourceFault', async () => {
    const driver = await freshDomain(client, '1');
    const { execution } = await driver.start(ORDER_1, { tagList: ['kept'] });
    // Signals whose inputs do not deflate: history enough that its earlier events move to chunks.
    for (let i = 0; i < 3; i++)
      await driver.signal(execution, `s${i}`, randomBytes(600).toString('base64'));
    await terminate(driver, execution);
    const closedAt = (await driver.describe(execution)).executionInfo?.closeTimestamp;
    if (closedAt === undefined) throw new Error('no closeTimestamp');
    const expiresAt = Math.ceil(closedAt.getTime() / 1000 + 86_400);
    // Every item of the run, and its closed visibility rows, carry the TTL: the state exactly the run's
    // expiry, history written before the close its bound given up front (no earlier); open rows are gone.
    const items = await eventually(
      () => itemsOf(execution.runId),
      (all) =>
        all.length > 0 &&
        all.every((i) => typeof i.expiresAt === 'number' && i.expiresAt >= expiresAt) &&
        all.some((i) => i.sk === 'STATE' && i.expiresAt === expiresAt) &&
        // Every closed row is written (by start and by close time: all, workflowId, type, close
        // status and the tag), as the outbox's batches land one after the other.
        rowsOf(all, 'CS') === 5 &&
        rowsOf(all, 'CC') === 5,
    );
    for (const item of items)
      if (!String(item.sk).startsWith('H|')) expect(item.expiresAt).toBe(expiresAt);
    const runItems = items.filter((i) => i.pk === `RUN|${execution.runId}`).map((i) => i.sk);
    expect(runItems).toEqual(expect.arrayContaining(['STATE', expect.stringMatching(/^H\|/)]));
    expect(items.filter((i) => String(i.pk).startsWith('V|O|'))).toEqual([]);
    expect(items.filter((i) => String(i.pk).startsWith('V|CS|')).length).toBeGreaterThan(0);

    // Within the retention period it is still there.
    offset = 86_400_000 - 60_000;
    expect((await driver.describe(execution)).executionInfo?.executionStatus).toBe('CLOSED');
    expect(ids(await listClosed(driver, { closeTimeFilter: SINCE }))).toEqual([
      execution.workflowId,
    ]);
    expect(ids(await listClosed(driver, { startTimeFilter: SINCE }))).toEqual([
      execution.workflowId,
    ]);
    expect((await countClosed(driver, { startTimeFilter: SINCE })).count).toBe(1);

    // After it, gone everywhere, although DynamoDB's TTL has not deleted anything yet.
    offset = 86_400_000 + 2_000;
    await expectFault(driver.describe(execution), UnknownResourceFault);
    await expectFault(
      client.send(new GetWorkflowExecutionHistoryCommand({ domain: driver.domain, execution })),
      UnknownResourceFault,
    );
    expect(ids(await listClosed(driver, { closeTimeFilter: SINCE }))).toEqual([]);
    expect(ids(await listClosed(driver, { startTimeFilter: SINCE }))).toEqual([]);
    expect((await countClosed(driver, { startTimeFilter: SINCE })).count).toBe(0);
    expect((await countClosed(driver, { closeTimeFilter: SINCE })).count).toBe(0);
    expect((await itemsOf(execution.runId)).length).toBe(items.length);
    offset = 0;
  });

  it("marks an activity's heartbeat to expire when it is written: by the run's latest expiry at most", async () => {
    const driver = await freshDomain(client, '1');
    const activityType = { name: 'work', version: '1' };
    await client.send(
      new RegisterActivityTypeCommand({
        domain: driver.domain,
        ...activityType,
        defaultTaskList: { name: 'unused' },
        defaultTaskHeartbeatTimeout: '60',
        defaultTaskScheduleToStartTimeout: '60',
        defaultTaskStartToCloseTimeout: '60',
        defaultTaskScheduleToCloseTimeout: '120',
      }),
    );
    const { execution, taskList } = await driver.start(ORDER_1);
    const workers = unique('workers');
    await driver.decide(taskList, () => [
      decide.scheduleActivity({ activityId: 'a', activityType, taskList: { name: workers } }),
    ]);
    const task = await driver.pollActivity(workers);
    await client.send(
      new RecordActivityTaskHeartbeatCommand({ taskToken: task.taskToken, details: 'half way' }),
    );
    const startedAt = (await driver.describe(execution)).executionInfo?.startTimestamp;
    if (startedAt === undefined) throw new Error('no startTimestamp');
    const latest = Math.ceil(startedAt.getTime() / 1000 + 3600 + 86_400);
    const heartbeat = (await itemsOf(execution.runId)).find((i) => String(i.sk).startsWith('HB|'));
    expect(heartbeat).toMatchObject({ details: 'half way', expiresAt: latest });
  });

  it('keeps nothing after close with a retention of 0 days', async () => {
    offset = 0;
    const driver = await freshDomain(client, '0');
    const { execution } = await driver.start(ORDER_1);
    const open = await eventually(
      () => listOpen(driver, { startTimeFilter: SINCE }),
      (o) => ids(o).length === 1,
    );
    expect(ids(open)).toEqual([execution.workflowId]);
    await terminate(driver, execution);
    await eventually(
      () =>
        driver.describe(execution).then(
          () => 'visible',
          (error: unknown) => (error instanceof UnknownResourceFault ? 'gone' : String(error)),
        ),
      (outcome) => outcome === 'gone',
    );
    await expectFault(
      client.send(new GetWorkflowExecutionHistoryCommand({ domain: driver.domain, execution })),
      UnknownResourceFault,
    );
    await eventually(
      () => listOpen(driver, { startTimeFilter: SINCE }),
      (o) => ids(o).length === 0,
    );
    expect(ids(await listClosed(driver, { startTimeFilter: SINCE }))).toEqual([]);
    expect((await countClosed(driver, { closeTimeFilter: SINCE })).count).toBe(0);
    const runItems = (await itemsOf(execution.runId)).filter(
      (i) => i.pk === `RUN|${execution.runId}`,
    );
    // Whatever DynamoDB's TTL has not deleted yet carries its expiry.
    for (const item of runItems) expect(typeof item.expiresAt).toBe('number');
  });
});
