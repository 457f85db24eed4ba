/**
 * The AWS CLI against the local server (the banner's `aws swf list-domains --registration-status
 * REGISTERED --endpoint-url …` works). Runs only where `aws` is on PATH; elsewhere it is skipped and
 * says why.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/contract.js';
import { startTestServer } from '../support/local.js';

const run = promisify(execFile);
const probe = spawnSync('aws', ['--version'], { encoding: 'utf8' });
const cliMissing = probe.error !== undefined || probe.status !== 0;
if (cliMissing) {
  console.warn('aws-cli.test.ts skipped: the AWS CLI (`aws`) is not on PATH');
}

let endpoint: string;
let close: () => Promise<void>;

const env = {
  ...process.env,
  AWS_ACCESS_KEY_ID: 'x',
  AWS_SECRET_ACCESS_KEY: 'x',
  AWS_DEFAULT_REGION: 'us-east-1',
  AWS_PAGER: '',
  AWS_CONFIG_FILE: '/dev/null',
  AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
};

/** Runs `aws swf <args>` against the test server; returns exit code, parsed stdout and stderr. */
async function aws(...args: string[]): Promise<{ code: number; json: unknown; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      'aws',
      ['swf', ...args, '--endpoint-url', endpoint, '--output', 'json'],
      { env, timeout: 60_000 },
    );
    return { code: 0, json: stdout.trim() === '' ? undefined : JSON.parse(stdout), stderr };
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    return { code: e.code ?? -1, json: undefined, stderr: e.stderr ?? String(error) };
  }
}

describe.skipIf(cliMissing)('the AWS CLI', () => {
  beforeAll(async () => {
    const server = await startTestServer({ polling: { maxWaitMs: 500 } });
    endpoint = server.service.endpoint;
    close = server.close;
  });

  afterAll(async () => {
    await close?.();
  });

  it('registers and lists domains', { timeout: 60_000 }, async () => {
    const name = unique('cli');
    const registered = await aws(
      'register-domain',
      '--name',
      name,
      '--workflow-execution-retention-period-in-days',
      '1',
    );
    expect(registered).toMatchObject({ code: 0 });

    const listed = await aws('list-domains', '--registration-status', 'REGISTERED');

    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json).toStrictEqual({
      domainInfos: [
        { name, status: 'REGISTERED', arn: `arn:aws:swf:us-east-1:000000000000:/domain/${name}` },
      ],
    });
  });

  it('reports a fault by its name and message', { timeout: 60_000 }, async () => {
    const out = await aws('describe-domain', '--name', 'no-such-domain');

    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('(UnknownResourceFault)');
    expect(out.stderr).toContain('Unknown domain: no-such-domain');
  });

  it('starts a workflow and reads its first decision task', { timeout: 90_000 }, async () => {
    const domain = unique('cli-wf');
    await aws(
      'register-domain',
      '--name',
      domain,
      '--workflow-execution-retention-period-in-days',
      '1',
    );
    const typed = await aws(
      'register-workflow-type',
      '--domain',
      domain,
      '--name',
      'order',
      '--workflow-version',
      '1',
      '--default-task-list',
      'name=deciders',
      '--default-execution-start-to-close-timeout',
      '600',
      '--default-task-start-to-close-timeout',
      '30',
      '--default-child-policy',
      'TERMINATE',
    );
    expect(typed.code, typed.stderr).toBe(0);
    const started = await aws(
      'start-workflow-execution',
      '--domain',
      domain,
      '--workflow-id',
      'order-1',
      '--workflow-type',
      'name=order,version=1',
      '--input',
      'hello',
    );
    expect(started.json).toStrictEqual({ runId: expect.any(String) });

    const task = await aws(
      'poll-for-decision-task',
      '--domain',
      domain,
      '--task-list',
      'name=deciders',
      '--identity',
      'cli',
    );

    expect(task.code, task.stderr).toBe(0);
    const body = task.json as {
      taskToken: string;
      startedEventId: number;
      events: { eventType: string; eventTimestamp: number }[];
    };
    expect(body.taskToken).toEqual(expect.any(String));
    expect(body.startedEventId).toBe(3);
    expect(body.events.map((e) => e.eventType)).toStrictEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
    ]);
  });
});
