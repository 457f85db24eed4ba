/**
 * The stores against DynamoDB Local, with one answer of the real DynamoDB service put in where Local
 * answers otherwise:
 *
 * - A PutItem, UpdateItem or DeleteItem on an item that a TransactWriteItems in flight holds is
 *   refused at once with TransactionConflictException (400, which the AWS SDK does not retry).
 *   DynamoDB Local makes the write wait for the transaction's lock instead (and answers a 500 only
 *   when the wait runs out, which the client retries), so the suites never meet that answer.
 * - A write can land while its answer is lost (a 500 or a timeout): the client's retry of a
 *   conditional write then fails its condition on what the first try wrote. Local never loses answers.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TableRef } from '../../lib/adapters/dynamodb/client.js';
import { type DocClient, DynamoDbError } from '../../lib/adapters/dynamodb/doc-client.js';
import { DynamoExecutionStore } from '../../lib/adapters/dynamodb/execution-store.js';
import { keys } from '../../lib/adapters/dynamodb/keys.js';
import { DynamoRegistryStore } from '../../lib/adapters/dynamodb/registry-store.js';
import type { DomainRecord, TypeRecord } from '../../lib/core/registry.js';
import { queueChanges } from '../../lib/core/task-queue.js';
import type { RunWrite } from '../../lib/ports/run-store.js';
import { RunDriver } from '../support/core-builders.js';
import { freshTable, tableForFile } from '../support/local.js';

const fresh = tableForFile('real-answers');
let table: TableRef;
beforeAll(() => {
  table = fresh();
});

type Operation = 'get' | 'put' | 'update' | 'delete' | 'query' | 'transactWrite' | 'batchWrite';

/**
 * The table's client, except that `answer` may take a request over (its operation and input) and
 * answer it as the real service would; it gets the real client to land the write first if it likes.
 */
function answering(
  answer: (
    operation: Operation,
    input: Record<string, unknown>,
    doc: DocClient,
  ) => Promise<unknown> | undefined,
): TableRef {
  const inner = table.doc;
  const wrap =
    (operation: Operation) =>
    (input: Record<string, unknown>): Promise<never> => {
      const taken = answer(operation, input, inner);
      return (taken ?? (inner[operation] as (i: unknown) => Promise<unknown>)(input)) as never;
    };
  const doc = {
    get: wrap('get'),
    put: wrap('put'),
    update: wrap('update'),
    delete: wrap('delete'),
    query: wrap('query'),
    scan: (input: never) => inner.scan(input),
    transactWrite: wrap('transactWrite'),
    batchWrite: wrap('batchWrite'),
  } as unknown as DocClient;
  return { doc, tableName: table.tableName };
}

/** DynamoDB's answer to an item-level write on an item a transaction holds. */
const transactionConflict = () =>
  Promise.reject(
    new DynamoDbError('TransactionConflictException', 'Transaction is ongoing for the item', 400, {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionConflictException',
      message: 'Transaction is ongoing for the item',
    }),
  );

/** Answers the first request `matches` picks with a transaction conflict; the rest go through. */
function conflictOnce(matches: (operation: Operation, input: Record<string, unknown>) => boolean) {
  let done = false;
  return answering((operation, input) => {
    if (done || !matches(operation, input)) return undefined;
    done = true;
    return transactionConflict();
  });
}

const isPointer = (input: Record<string, unknown>) =>
  String((input.Item as { pk?: unknown } | undefined)?.pk ?? '').startsWith('OPEN|');

/** A new run of its own workflowId (or of `workflowId`). */
function newRun(workflowId = `wf-${randomBytes(6).toString('hex')}`) {
  const driver = new RunDriver();
  const execution = { workflowId, runId: `run-${randomBytes(6).toString('hex')}` };
  driver.state = { ...driver.state, execution };
  return driver;
}
const startWrite = (run: RunDriver): RunWrite => ({
  state: run.state,
  events: run.history,
  queue: queueChanges(undefined, run.state),
});
const acquire = (run: RunDriver) => ({
  kind: 'acquire' as const,
  domain: run.state.domain,
  workflowId: run.state.execution.workflowId,
  runId: run.state.execution.runId,
  startedAt: run.state.startTimestamp,
});

describe("a start whose workflowId's pointer a transaction holds (TransactionConflictException)", () => {
  it('is refused as a start of a workflowId already open, not failed', async () => {
    // The workflowId's open run is continuing as new: the transaction that moves its pointer to the
    // new run is in flight as another start of the same workflowId puts the pointer.
    const open = newRun();
    const plain = new DynamoExecutionStore(table);
    expect(await plain.commit([startWrite(open)], [acquire(open)])).toBe('committed');
    const second = newRun(open.state.execution.workflowId);
    const store = new DynamoExecutionStore(
      conflictOnce((operation, input) => operation === 'put' && isPointer(input)),
    );
    await expect(store.commit([startWrite(second)], [acquire(second)])).resolves.toBe(
      'already-open',
    );
    expect(await plain.loadRun(second.state.execution.runId)).toBeUndefined();
  });

  it('tries the pointer again once the transaction is gone, and starts', async () => {
    // A start of the same workflowId was taking the pointer in a transaction, and failed.
    const run = newRun();
    const store = new DynamoExecutionStore(
      conflictOnce((operation, input) => operation === 'put' && isPointer(input)),
    );
    await expect(store.commit([startWrite(run)], [acquire(run)])).resolves.toBe('committed');
    const { Item } = await table.doc.get({
      TableName: table.tableName,
      Key: keys.openRun(run.state.domain, run.state.execution.workflowId),
      ConsistentRead: true,
    });
    expect(Item?.runId).toBe(run.state.execution.runId);
  });

  it('is answered busy, not already open, when the transaction holds the pointer through every try', async () => {
    // Nobody is known to hold the workflowId: WorkflowExecutionAlreadyStartedFault would be false.
    // The conflict goes up as it is, which the API answers ThrottlingException (lib/adapters/transient-failures.ts).
    const run = newRun();
    let conflicts = 0;
    const store = new DynamoExecutionStore(
      answering((operation, input) => {
        if (operation !== 'put' || !isPointer(input)) return undefined;
        conflicts++;
        return transactionConflict();
      }),
    );
    await expect(store.commit([startWrite(run)], [acquire(run)])).rejects.toMatchObject({
      name: 'TransactionConflictException',
    });
    expect(conflicts).toBeGreaterThan(1);
    const plain = new DynamoExecutionStore(table);
    expect(await plain.loadRun(run.state.execution.runId)).toBeUndefined();
  });
});

const domain = (name: string): DomainRecord => ({
  name,
  status: 'REGISTERED',
  retentionPeriodInDays: '1',
  tags: [],
  creationDate: 1,
});
const activityType = (domainName: string, name: string): TypeRecord => ({
  kind: 'activity',
  domain: domainName,
  name,
  version: '1',
  status: 'REGISTERED',
  creationDate: 1,
  configuration: {},
});
const isDomainItem = (input: Record<string, unknown>) =>
  (input.Key as { sk?: unknown } | undefined)?.sk === 'DOMAIN';

describe('a registry change of an item a transaction holds (TransactionConflictException)', () => {
  // Each RegisterActivityType/RegisterWorkflowType (and DeleteActivityType/...) is a transaction that
  // counts the type in its domain's item.
  it('deprecates a domain while a type of it is being registered', async () => {
    const name = `d-${randomBytes(6).toString('hex')}`;
    const plain = new DynamoRegistryStore(table);
    expect(await plain.createDomain(domain(name), 1_000)).toBe('created');
    const store = new DynamoRegistryStore(
      conflictOnce((operation, input) => operation === 'update' && isDomainItem(input)),
    );
    await expect(store.setDomainStatus(name, 'DEPRECATED', 2)).resolves.toBe('changed');
    expect((await plain.getDomain(name))?.status).toBe('DEPRECATED');
  });

  it('tags a domain while a type of it is being registered', async () => {
    const name = `d-${randomBytes(6).toString('hex')}`;
    const plain = new DynamoRegistryStore(table);
    expect(await plain.createDomain(domain(name), 1_000)).toBe('created');
    const store = new DynamoRegistryStore(
      conflictOnce((operation, input) => operation === 'update' && isDomainItem(input)),
    );
    await expect(
      store.updateDomainTags(name, { upsert: [{ key: 'k', value: 'v' }], removeKeys: [] }, 50),
    ).resolves.toBe('tagged');
    expect((await plain.getDomain(name))?.tags).toEqual([{ key: 'k', value: 'v' }]);
  });
});

describe('a registry status change whose answer was lost, retried by the client', () => {
  /** Lands the first update of the domain's item, then answers as the client's retry of it would. */
  const lostAnswer = () => {
    let done = false;
    return answering((operation, input, doc) => {
      if (done || operation !== 'update' || !isDomainItem(input)) return undefined;
      done = true;
      return (async () => {
        await doc.update(input as never); // the first try lands; its answer (a 500) is lost
        const retry = await doc.update(input as never).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (!(retry instanceof DynamoDbError)) throw new Error('the retry was expected to fail');
        throw new DynamoDbError(retry.name, retry.message, retry.statusCode, {}, 2);
      })();
    });
  };

  it('is the change it made, and deprecates the domain’s types with it', async () => {
    const name = `d-${randomBytes(6).toString('hex')}`;
    const plain = new DynamoRegistryStore(table);
    expect(await plain.createDomain(domain(name), 1_000)).toBe('created');
    expect(await plain.createType(activityType(name, 'a'), 1_000)).toBe('created');
    const store = new DynamoRegistryStore(lostAnswer());
    // 'already' would answer DeprecateDomain with DomainDeprecatedFault for the caller's own change.
    await expect(store.setDomainStatus(name, 'DEPRECATED', 2)).resolves.toBe('changed');
    const typeStatus = (
      await plain.getType({ kind: 'activity', domain: name, name: 'a', version: '1' })
    )?.status;
    expect(typeStatus).toBe('DEPRECATED');
  });
});

describe('a registry status change whose first try did not land, retried by the client', () => {
  /**
   * The first update of the domain's item is refused without landing (throttled, or a 500 before it
   * was applied); the client's retry then meets the item as it was, and fails its condition there.
   */
  const notLanded = () => {
    let done = false;
    return answering((operation, input, doc) => {
      if (done || operation !== 'update' || !isDomainItem(input)) return undefined;
      done = true;
      return (async () => {
        const retry = await doc.update(input as never).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (!(retry instanceof DynamoDbError)) throw new Error('the retry was expected to fail');
        throw new DynamoDbError(retry.name, retry.message, retry.statusCode, {}, 2);
      })();
    });
  };

  it('on a domain deprecated already is refused, and leaves the types undeprecated since as they are', async () => {
    const name = `d-${randomBytes(6).toString('hex')}`;
    const plain = new DynamoRegistryStore(table);
    expect(await plain.createDomain(domain(name), 1_000)).toBe('created');
    expect(await plain.createType(activityType(name, 'a'), 1_000)).toBe('created');
    expect(await plain.setDomainStatus(name, 'DEPRECATED', 2)).toBe('changed');
    const id = { kind: 'activity' as const, domain: name, name: 'a', version: '1' };
    expect(await plain.setTypeStatus(id, 'REGISTERED', 3)).toBe('changed');
    // DeprecateDomain again: DomainDeprecatedFault, and nothing changes.
    await expect(
      new DynamoRegistryStore(notLanded()).setDomainStatus(name, 'DEPRECATED', 4),
    ).resolves.toBe('already');
    expect((await plain.getType(id))?.status).toBe('REGISTERED');
  });
});

describe('a registry listing read right after a registration (global secondary indexes lag)', () => {
  // DynamoDB updates a global secondary index asynchronously, and a query of one cannot be
  // consistent: for a moment after a write it answers as before it. DynamoDB Local updates its
  // indexes with the write. Here the index has not caught up with the registration yet.
  const lagging = () =>
    answering((operation, input) =>
      operation === 'query' && input.IndexName === 'gsi1'
        ? Promise.resolve({ Items: [], Count: 0, ScannedCount: 0 })
        : undefined,
    );

  // ListDomains, ListActivityTypes and ListWorkflowTypes read the registry as it is, as docs/swf-differences.md
  // says of the domain and type actions (they read gsi1 before, and missed what it had not caught up
  // with).
  it('lists a type just registered (ListActivityTypes)', async () => {
    const name = `d-${randomBytes(6).toString('hex')}`;
    const plain = new DynamoRegistryStore(table);
    expect(await plain.createDomain(domain(name), 1_000)).toBe('created');
    expect(await plain.createType(activityType(name, 'a'), 1_000)).toBe('created');
    const listed = await new DynamoRegistryStore(lagging()).listTypes(
      'activity',
      name,
      'REGISTERED',
      undefined,
      { limit: 100, reverse: false },
    );
    expect(listed.items.map((t) => t.name)).toEqual(['a']);
  });

  it('lists a domain just registered (ListDomains)', async () => {
    const name = `d-${randomBytes(6).toString('hex')}`;
    expect(await new DynamoRegistryStore(table).createDomain(domain(name), 1_000)).toBe('created');
    const listed = await new DynamoRegistryStore(lagging()).listDomains('REGISTERED', {
      limit: 1_000,
      reverse: false,
    });
    expect(listed.items.map((d) => d.name)).toContain(name);
  });
});

describe('ListDomains on a table whose domains an earlier release registered', () => {
  it('lists them from the index until the account item names every domain it counts', async () => {
    const fresh = await freshTable('legacy-domains');
    fresh.client.destroy();
    const store = new DynamoRegistryStore({ doc: fresh.doc, tableName: fresh.tableName });
    try {
      for (const name of ['b', 'a'])
        expect(await store.createDomain(domain(name), 100)).toBe('created');
      // The earlier release counted its domains but did not name them.
      await fresh.doc.update({
        TableName: fresh.tableName,
        Key: keys.account(),
        UpdateExpression: 'REMOVE domainNames',
      });
      expect(await store.createDomain(domain('c'), 100)).toBe('created');
      const names = async (reverse: boolean, after?: string) =>
        store.listDomains('REGISTERED', {
          limit: 2,
          reverse,
          ...(after === undefined ? {} : { after }),
        });
      const first = await names(false);
      expect(first.items.map((d) => d.name)).toEqual(['a', 'b']);
      expect((await names(false, first.next)).items.map((d) => d.name)).toEqual(['c']);
      expect((await names(true)).items.map((d) => d.name)).toEqual(['c', 'b']);
    } finally {
      fresh.doc.destroy();
    }
  });

  it('pages the named domains by name, either way, passing over the other status', async () => {
    const fresh = await freshTable('named-domains');
    fresh.client.destroy();
    const store = new DynamoRegistryStore({ doc: fresh.doc, tableName: fresh.tableName });
    try {
      for (const name of ['é', 'b', 'a', 'c', 'd'])
        expect(await store.createDomain(domain(name), 100)).toBe('created');
      expect(await store.setDomainStatus('c', 'DEPRECATED', 2)).toBe('changed');
      const all = async (reverse: boolean) => {
        const seen: string[] = [];
        let after: string | undefined;
        do {
          const page = await store.listDomains('REGISTERED', {
            limit: 2,
            reverse,
            ...(after === undefined ? {} : { after }),
          });
          seen.push(...page.items.map((d) => d.name));
          after = page.next;
        } while (after !== undefined);
        return seen;
      };
      expect(await all(false)).toEqual(['a', 'b', 'd', 'é']);
      expect(await all(true)).toEqual(['é', 'd', 'b', 'a']);
      const deprecated = await store.listDomains('DEPRECATED', { limit: 10, reverse: false });
      expect(deprecated).toEqual({ items: [expect.objectContaining({ name: 'c' })] });
    } finally {
      fresh.doc.destroy();
    }
  });
});

describe('a registration of a type that exists while other registrations hold its domain', () => {
  it('is refused as existing without a transaction (a fleet of workers registers its types at start)', async () => {
    // Every registration counts its type in the domain's item, in a transaction: while others are
    // in flight DynamoDB cancels it (TransactionConflict), and enough of them end in throttling.
    const name = `d-${randomBytes(6).toString('hex')}`;
    const plain = new DynamoRegistryStore(table);
    expect(await plain.createDomain(domain(name), 1_000)).toBe('created');
    expect(await plain.createType(activityType(name, 'a'), 1_000)).toBe('created');
    let transactions = 0;
    const contended = new DynamoRegistryStore(
      answering((operation) => {
        if (operation !== 'transactWrite') return undefined;
        transactions++;
        return Promise.reject(
          new DynamoDbError('TransactionCanceledException', 'Transaction cancelled', 400, {
            CancellationReasons: [
              { Code: 'None' },
              { Code: 'TransactionConflict' },
              { Code: 'None' },
            ],
          }),
        );
      }),
    );
    await expect(contended.createType(activityType(name, 'a'), 1_000)).resolves.toBe('exists');
    expect(transactions).toBe(0);
  });
});
