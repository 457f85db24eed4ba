import { afterEach, describe, expect, it, vi } from 'vitest';

const starts = vi.hoisted(() => ({
  outcomes: [] as ('fail' | string)[],
  calls: 0,
  options: [] as unknown[],
}));

vi.mock('../../../lib/local/dynamodb-local.js', () => ({
  startDynamoDbLocal: async (options: unknown) => {
    starts.calls += 1;
    starts.options.push(options);
    const outcome = starts.outcomes.shift() ?? 'http://127.0.0.1:1';
    if (outcome === 'fail') throw new Error('port taken');
    return {
      endpoint: outcome,
      port: 1,
      pid: 1,
      exited: new Promise(() => {}),
      stop: async () => {},
    };
  },
}));

const { DynamoDbLocalPool } = await import('../../support/dynamodb-pool.js');

afterEach(() => {
  starts.outcomes = [];
  starts.calls = 0;
  starts.options = [];
  vi.restoreAllMocks();
});

describe('the test files’ pool of DynamoDB Locals', () => {
  it('starts its DynamoDB Locals with the JVM options it was given', async () => {
    const jvmOptions = ['-XX:+UseSerialGC'];
    const pool = new DynamoDbLocalPool({ filesPerDynamo: 1, spare: true, jvmOptions });
    await pool.lease();
    await pool.lease();
    expect(starts.options).toEqual(Array(3).fill({ jvmOptions, sharedDb: true }));
    await pool.stop();
  });

  it('starts another DynamoDB Local when a start fails', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    starts.outcomes = ['fail', 'http://127.0.0.1:2'];
    const pool = new DynamoDbLocalPool({ filesPerDynamo: 4, spare: false });
    await expect(pool.lease()).resolves.toMatchObject({ endpoint: 'http://127.0.0.1:2' });
    expect(starts.calls).toBe(2);
    await pool.stop();
  });

  it('fails the lease after three failed starts', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    starts.outcomes = ['fail', 'fail', 'fail', 'http://127.0.0.1:3'];
    const pool = new DynamoDbLocalPool({ filesPerDynamo: 4, spare: false });
    await expect(pool.lease()).rejects.toThrow('port taken');
    expect(starts.calls).toBe(3);
    await pool.stop();
  });

  it('hands a fresh DynamoDB Local to the file after every few', async () => {
    starts.outcomes = ['http://127.0.0.1:4', 'http://127.0.0.1:5'];
    const pool = new DynamoDbLocalPool({ filesPerDynamo: 2, spare: false });
    const endpoints = [];
    for (let file = 0; file < 3; file++) endpoints.push((await pool.lease()).endpoint);
    expect(endpoints).toEqual(['http://127.0.0.1:4', 'http://127.0.0.1:4', 'http://127.0.0.1:5']);
    await pool.stop();
  });

  it('gives each file a database of its own in one JVM started without sharedDb', async () => {
    starts.outcomes = ['http://127.0.0.1:1'];
    const pool = new DynamoDbLocalPool({ filesPerDynamo: 16, spare: true, databasePerFile: true });
    const leases = [await pool.lease(), await pool.lease()];
    expect(starts.options).toEqual([{ jvmOptions: [], sharedDb: false }]);
    expect(new Set(leases.map((lease) => lease.id)).size).toBe(2);
    expect(new Set(leases.map((lease) => lease.endpoint)).size).toBe(2);
    expect(leases.map((lease) => lease.endpoint)).not.toContain('http://127.0.0.1:1');
    for (const lease of leases) pool.release(lease.id);
    await pool.stop();
  });
});
