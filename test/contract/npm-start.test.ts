/**
 * `npm start` as the README and docs/running-locally.md show it: the process it runs
 * (`node --import tsx lib/local/start.ts`) prints the endpoint and the AWS SDK's and the AWS CLI's
 * settings for it, serves SWF there, and stops on SIGTERM with everything it started (DynamoDB
 * Local included, also while it is still starting), exiting 0. Without Java it says how to install
 * it; `--help` prints the options docs/running-locally.md lists; a malformed setting stops it before it starts
 * anything.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListDomainsCommand, SWFClient } from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { JAVA_HINT } from '../../lib/local/dynamodb-local.js';
import {
  alive,
  dynamoChildrenOf,
  endpointIn,
  startEnv as env,
  exited,
  npmStart,
  root,
  startArgs,
  waitForLine,
} from '../support/start-process.js';

describe('npm start', () => {
  it('prints the endpoint and how to reach it, serves SWF, and stops everything on SIGTERM', async () => {
    const child = npmStart(['--port', '0']);
    let children: number[] = [];
    try {
      const out = await waitForLine(child, 'Press Ctrl-C to stop.', 90_000);
      const endpoint = endpointIn(out);
      expect(out.trim().split('\n')).toEqual([
        'Starting DynamoDB Local (data in memory)...',
        expect.stringMatching(/^DynamoDB Local ready on http:\/\/127\.0\.0\.1:\d+ \(\d+\.\d s\)$/),
        'Table swf-local ready',
        "Outbox reading the table's stream; 0 open run(s) with deadlines re-armed",
        `SWF endpoint: ${endpoint}   (region us-east-1, data in memory (gone when stopped))`,
        `Console: ${endpoint}/console/`,
        `AWS SDK: new SWFClient({ endpoint: '${endpoint}', region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } })`,
        `AWS CLI: aws swf list-domains --registration-status REGISTERED --endpoint-url ${endpoint} --region us-east-1`,
        'Press Ctrl-C to stop.',
      ]);
      const swf = new SWFClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      const { domainInfos } = await swf.send(
        new ListDomainsCommand({ registrationStatus: 'REGISTERED' }),
      );
      swf.destroy();
      expect(domainInfos).toEqual([]);
      // The console, bundled from its source when the server starts (no build step to run first).
      const page = await fetch(`${endpoint}/console/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script type="module" src="app.js">');
      const script = await fetch(`${endpoint}/console/app.js`);
      expect([script.status, script.headers.get('content-type')]).toEqual([
        200,
        'text/javascript; charset=utf-8',
      ]);
      expect((await script.text()).length).toBeGreaterThan(10_000);
      children = dynamoChildrenOf(child.pid ?? 0);
      expect(children).toHaveLength(1); // DynamoDB Local
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(children.filter(alive)).toEqual([]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const pid of children.filter(alive)) process.kill(pid, 'SIGKILL');
    }
  }, 120_000);

  it('prints each part as it starts, not all at once at the end', async () => {
    const child = npmStart(['--port', '0']);
    const seen: { line: string; at: number }[] = [];
    child.stdout?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n'))
        if (line !== '') seen.push({ line, at: performance.now() });
    });
    try {
      await waitForLine(child, 'Press Ctrl-C to stop.', 90_000);
      const first = seen.find((s) => s.line.startsWith('Starting DynamoDB Local'));
      const ready = seen.find((s) => s.line.startsWith('DynamoDB Local ready'));
      const banner = seen.find((s) => s.line.startsWith('SWF endpoint:'));
      // The JVM takes seconds to answer: the first line comes before it does, not with the banner.
      expect((ready?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThan(500);
      expect(banner?.at).toBeGreaterThanOrEqual(ready?.at ?? Number.POSITIVE_INFINITY);
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 120_000);

  it('makes the --data directory when it is not there, and names it when it cannot', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
    try {
      const dir = join(parent, 'nested', '.local-data');
      const child = npmStart(['--port', '0', '--data', dir]);
      try {
        const out = await waitForLine(child, 'Press Ctrl-C to stop.', 90_000);
        expect(out).toContain(`Starting DynamoDB Local (data in ${dir})...`);
        expect(out).toContain(`data kept in ${dir}`);
        child.kill('SIGTERM');
        expect(await exited(child)).toBe(0);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      expect(readdirSync(dir).length).toBeGreaterThan(0); // DynamoDB Local's database
      // A path under a file cannot be a directory.
      const file = join(parent, 'a-file');
      writeFileSync(file, '');
      const run = spawnSync(
        process.execPath,
        [...startArgs, '--port', '0', '--data', join(file, 'data')],
        {
          cwd: root,
          env,
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`Cannot use ${join(file, 'data')} as the data directory`);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 180_000);

  it('stops DynamoDB Local too when SIGTERM comes while it is still starting', async () => {
    const child = npmStart(['--port', '0']);
    let children: number[] = [];
    try {
      // As soon as the JVM runs, before it answers (the banner comes once the table is made).
      const deadline = Date.now() + 60_000;
      while (children.length === 0 && Date.now() < deadline) {
        await new Promise((resolveWait) => setTimeout(resolveWait, 20));
        children = dynamoChildrenOf(child.pid ?? 0);
      }
      expect(children).toHaveLength(1);
      expect(child.output()).not.toContain('SWF endpoint:');
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(child.output()).toContain('SIGTERM: stopping once DynamoDB Local has started...');
      expect(child.output()).not.toContain('SWF endpoint:');
      expect(children.filter(alive)).toEqual([]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const pid of children.filter(alive)) process.kill(pid, 'SIGKILL');
    }
  }, 120_000);

  it('refuses a malformed SWF_LAMBDA_FUNCTIONS or SWF_PUSH_TASK_LISTS before starting anything', () => {
    const bad = [
      {
        SWF_LAMBDA_FUNCTIONS: '{"greet":"ftp://127.0.0.1/"}',
        message: 'SWF_LAMBDA_FUNCTIONS["greet"]',
      },
      {
        SWF_PUSH_TASK_LISTS: '[{"kind":"activity","domain":"d"}]',
        message: 'SWF_PUSH_TASK_LISTS[0]',
      },
    ];
    for (const { message, ...settings } of bad) {
      const run = spawnSync(process.execPath, startArgs, {
        cwd: root,
        env: { ...env, ...settings },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(message);
    }
  }, 60_000);

  it('enforces --access-policies by access key id, and prints an audit line per call with --audit-log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'access-'));
    const file = join(dir, 'policies.json');
    writeFileSync(
      file,
      JSON.stringify({
        lister: { Statement: { Effect: 'Allow', Action: 'swf:ListDomains', Resource: '*' } },
      }),
    );
    const child = npmStart(['--port', '0', '--access-policies', file, '--audit-log']);
    let children: number[] = [];
    let out = '';
    try {
      out = await waitForLine(child, 'Press Ctrl-C to stop.', 90_000);
      expect(out).toContain(
        `Access policies: 1 principal(s) from ${file}; callers not named are denied`,
      );
      const endpoint = /^SWF endpoint: (http:\/\/127\.0\.0\.1:\d+)/m.exec(out)?.[1] ?? '';
      const as = (accessKeyId: string) =>
        new SWFClient({
          endpoint,
          region: 'us-east-1',
          credentials: { accessKeyId, secretAccessKey: 'x' },
          maxAttempts: 1,
        });
      const list = new ListDomainsCommand({ registrationStatus: 'REGISTERED' });
      const [lister, local] = [as('lister'), as('local')];
      const lines: string[] = [];
      child.stdout?.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n')));
      expect((await lister.send(list)).domainInfos).toEqual([]);
      await expect(local.send(list)).rejects.toMatchObject({ name: 'OperationNotPermittedFault' });
      lister.destroy();
      local.destroy();
      children = dynamoChildrenOf(child.pid ?? 0);
      await new Promise((resolveWait) => setTimeout(resolveWait, 200));
      const audit = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      expect(audit).toEqual([
        expect.objectContaining({ caller: 'lister', action: 'ListDomains', outcome: 'ok' }),
        expect.objectContaining({
          caller: 'local',
          action: 'ListDomains',
          outcome: 'OperationNotPermittedFault',
        }),
      ]);
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const pid of children.filter(alive)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a malformed --access-policies file with exit 2 before starting anything', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bad-access-'));
    // No Java on the PATH either: the file is refused before anything else is looked at.
    const noJava = mkdtempSync(join(tmpdir(), 'no-java-'));
    const allow = { Effect: 'Allow', Action: 'swf:*', Resource: '*' };
    const cases = [
      ['{"worker": ', 'is not JSON'],
      [
        JSON.stringify({
          worker: {
            Statement: [
              allow,
              { ...allow, Condition: { StringEqualz: { 'swf:taskList.name': 'a' } } },
            ],
          },
        }),
        'principal "worker": statement 2: unknown condition operator "StringEqualz"',
      ],
      [
        JSON.stringify({
          decider: {
            Statement: { ...allow, Sid: 'Orders', Resource: 'arn:aws:swf:/domain/orders' },
          },
        }),
        'principal "decider": statement 1 (Sid "Orders"): Resource "arn:aws:swf:/domain/orders" is not an ARN',
      ],
    ];
    try {
      for (const [content, message] of cases) {
        const file = join(dir, 'policies.json');
        writeFileSync(file, content ?? '');
        const run = spawnSync(process.execPath, [...startArgs, '--access-policies', file], {
          cwd: root,
          env: { ...env, PATH: noJava },
          encoding: 'utf8',
          timeout: 30_000,
        });
        expect(run.status, run.stderr).toBe(2);
        expect(run.stderr).toContain(`--access-policies ${file}`);
        expect(run.stderr).toContain(message);
        expect(run.stdout).toBe('');
      }
      const missing = spawnSync(
        process.execPath,
        [...startArgs, '--access-policies', join(dir, 'none.json')],
        { cwd: root, env, encoding: 'utf8', timeout: 30_000 },
      );
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain('cannot read it');
      const unknown = spawnSync(process.execPath, [...startArgs, '--acces-policies', 'x'], {
        cwd: root,
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain("Unknown option '--acces-policies'");
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(noJava, { recursive: true, force: true });
    }
  }, 90_000);

  it('says how to install Java when it is missing', () => {
    const noJava = mkdtempSync(join(tmpdir(), 'no-java-'));
    try {
      const run = spawnSync(process.execPath, startArgs, {
        cwd: root,
        env: { ...env, PATH: noJava },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(JAVA_HINT);
      expect(JAVA_HINT).toContain('apt-get install -y default-jre-headless');
    } finally {
      rmSync(noJava, { recursive: true, force: true });
    }
  }, 30_000);

  it('--help lists the options and the environment variables', () => {
    const out = execFileSync(process.execPath, [...startArgs, '--help'], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    for (const option of [
      '--port N',
      '--data DIR',
      '--table NAME',
      '--access-policies FILE',
      '--audit-log',
      '$PORT',
      '$SWF_DATA_DIR',
    ])
      expect(out).toContain(option);
    for (const variable of ['$SWF_PUSH_TASK_LISTS', '$SWF_LAMBDA_FUNCTIONS'])
      expect(out).toContain(variable);
  }, 30_000);
});
