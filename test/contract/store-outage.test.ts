/**
 * The local server owns its DynamoDB Local's life. When the JVM dies under it (killed, out of
 * memory), a server with `--data` starts it again on the same data and serves again, answering 503
 * (retryable) meanwhile and never 500; one whose data was in memory exits non-zero, saying why,
 * instead of serving an empty store under the old endpoint.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rawCall } from '../support/contract.js';
import {
  dynamoChildrenOf,
  endpointIn,
  exited,
  killGroup,
  npmStart,
  type StartedServer,
  waitForLine,
} from '../support/start-process.js';

const started: StartedServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) await killGroup(child);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(args: string[]) {
  const child = npmStart(['--port', '0', ...args], { group: true });
  started.push(child);
  const endpoint = endpointIn(await waitForLine(child, 'Press Ctrl-C to stop.', 90_000));
  return { child, endpoint };
}

/** One SWF call over raw HTTP: its status and body, or the connection's error as the `__type`. */
async function call(endpoint: string, action: string, input: unknown) {
  try {
    const { status, text } = await rawCall(endpoint, action, input);
    const body = (text === '' ? {} : JSON.parse(text)) as {
      __type?: string;
      domainInfos?: { name: string }[];
    };
    return { status, body };
  } catch (error) {
    return { status: 0, body: { __type: (error as Error).message } };
  }
}

const killJava = (child: StartedServer) => {
  const [java] = dynamoChildrenOf(child.pid ?? 0);
  expect(java).toBeGreaterThan(0);
  process.kill(java as number, 'SIGKILL');
  return java as number;
};

describe('a DynamoDB Local killed under the local server', () => {
  it('is started again on its --data: 503 meanwhile, never 500, then the same data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-outage-'));
    dirs.push(dir);
    const { child, endpoint } = await start(['--data', dir]);
    const registered = await call(endpoint, 'RegisterDomain', {
      name: 'kept',
      workflowExecutionRetentionPeriodInDays: '1',
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const killed = killJava(child);
    const seen: { status: number; type?: string }[] = [];
    const until = Date.now() + 90_000;
    let last: Awaited<ReturnType<typeof call>> = { status: 0, body: {} };
    while (Date.now() < until) {
      last = await call(endpoint, 'ListDomains', { registrationStatus: 'REGISTERED' });
      seen.push({ status: last.status, ...(last.body.__type ? { type: last.body.__type } : {}) });
      if (last.status === 200 && seen.some((s) => s.status === 503)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen.filter((s) => s.status >= 500 && s.status !== 503)).toEqual([]);
    expect(seen.find((s) => s.status === 503)?.type).toMatch(/ServiceUnavailable/);
    expect(last.status, `${JSON.stringify(seen.slice(-3))}\n${child.errors()}`).toBe(200);
    expect(last.body.domainInfos?.map((d) => d.name)).toContain('kept');
    expect(dynamoChildrenOf(child.pid ?? 0)).not.toContain(killed);
    // One line for the death and one for the return, not a stack trace per failed read.
    const errors = child.errors();
    expect(errors.match(/DynamoDB Local exited unexpectedly/g)).toHaveLength(1);
    expect(errors).toMatch(/DynamoDB Local is back/);
    expect(
      errors.match(/stream poller: reading or handling the stream failed/g)?.length ?? 0,
    ).toBeLessThanOrEqual(1);
    expect(errors).not.toMatch(/\n\s+at /);
  }, 180_000);

  it('ends the server with a non-zero exit when its data was in memory', async () => {
    const { child } = await start([]);
    killJava(child);
    expect(await exited(child)).toBe(1);
    expect(child.errors()).toMatch(/kept its data in memory/);
  }, 120_000);
});
