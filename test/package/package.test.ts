/**
 * The package as a user gets it. `npm pack` builds it (prepack); the tarball is installed into fresh
 * projects outside the repository, from the npm registry as a user's install is, with nothing of this
 * repository's node_modules in reach:
 * - a bare project (the package, TypeScript, @types/node and the AWS SDK's SWF client) type-checks a
 *   decider and a worker against the shipped types, compiles them, and runs them with plain `node`
 *   against `npx swf-on-dynamo` to a completed execution;
 * - the template app (examples/app) installs it, type-checks, passes its own test (its Lambda decider
 *   and worker against the local service) and synthesizes with no network, the service's functions
 *   taken from the package's prebuilt bundles, every bundle loading.
 */
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEnded,
  cleanEnv,
  interrupt,
  offline,
  processTree,
  run,
  startAndRead,
} from '../support/package-project.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, string | Record<string, string>>;
  bin: Record<string, string>;
};
const versionOf = (name: string) =>
  (
    JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

let work: string;
let tarball: string;
let project: string;
let app: string;

// The package, then both projects' installs at once (mostly waiting on the registry).
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'swf-package-'));
  await run('npm', ['pack', '--pack-destination', work], root, cleanEnv());
  tarball = join(work, `swf-on-dynamo-${manifest.version}.tgz`);
  project = join(work, 'consumer');
  app = join(work, 'app');
  await Promise.all([installConsumer(), installApp()]);
}, 300_000);

/** A bare project: the package, TypeScript and the types and SWF client the decider needs. */
async function installConsumer() {
  cpSync(join(root, 'test/package/consumer'), project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  const pinned = ['typescript', '@types/node', '@aws-sdk/client-swf'].map(
    (name) => `${name}@${versionOf(name)}`,
  );
  await run('npm', ['install', tarball, ...pinned], project);
}

/** The template app as a user copies it, with the package from the tarball. */
async function installApp() {
  cpSync(join(root, 'examples/app'), app, {
    recursive: true,
    filter: (path) => !/[\\/](node_modules|cdk\.out)$/.test(path),
  });
  await run('npm', ['install', tarball], app);
}

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the tarball', () => {
  let files: string[];
  beforeAll(async () => {
    files = (await run('tar', ['-tzf', tarball], work)).split('\n').filter((f) => f !== '');
  });

  it('holds every entry point package.json names, compiled, with its types', () => {
    const targets = Object.values(manifest.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : Object.values(target),
    );
    expect(targets).toContain('./dist/lib/sdk/index.d.ts');
    for (const target of [...targets, ...Object.values(manifest.bin)])
      expect(files).toContain(`package/${target.replace(/^\.\//, '')}`);
  });

  it('holds the Lambda bundles and the console, and no TypeScript source', () => {
    for (const entry of ['api', 'stream', 'timer', 'lambda-task', 'reconciler'])
      expect(files).toContain(`package/dist/bundles/${entry}/index.mjs`);
    expect(files).toContain('package/dist/console/dist/index.html');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => !f.startsWith('package/dist/')).sort()).toEqual([
      'package/README.md',
      'package/package.json',
    ]);
  });
});

describe('a TypeScript decider and worker in a fresh project', () => {
  it('type-check against the shipped types and compile', async () => {
    await run('npx', ['tsc', '-p', '.'], project);
    expect(readdirSync(join(project, 'out')).sort()).toEqual([
      'decider.js',
      'main.js',
      'worker.js',
    ]);
  }, 300_000);

  it('run with node against npx swf-on-dynamo to a completed execution', async () => {
    const service = await startAndRead(
      'npx',
      ['swf-on-dynamo', '--port', '0'],
      project,
      /SWF endpoint: (\S+)/,
    );
    const processes = processTree(service.child.pid ?? 0);
    try {
      const endpoint = service.match;
      const page = await fetch(`${endpoint}/console/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const out = await run('node', ['out/main.js'], project, cleanEnv({ SWF_ENDPOINT: endpoint }));
      expect(out).toContain('closed COMPLETED Hello, world!');
      await expectConsoleFor(endpoint);
    } finally {
      await interrupt(service.child);
    }
    // Ctrl-C stops the service, DynamoDB Local (which the service stops itself) included.
    expect(processes.length).toBeGreaterThan(2);
    await allEnded(processes, 30_000);
  }, 300_000);

  it('run on plain node: the bin is JavaScript, and neither tsx nor esbuild is installed', () => {
    for (const tool of ['tsx', 'esbuild'])
      expect(existsSync(join(project, 'node_modules', tool))).toBe(false);
    const bin = readFileSync(join(project, 'node_modules/.bin/swf-on-dynamo'), 'utf8');
    expect(bin.startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('get the usage for --help, and exit code 2 and the usage for a bad argument', async () => {
    await expect(run('npx', ['swf-on-dynamo', '--no-such-option'], project)).rejects.toThrow(
      /exited 2[\s\S]*Usage: swf-on-dynamo \[--port N\]/,
    );
    const help = await run('npx', ['swf-on-dynamo', '--help'], project);
    expect(help).toMatch(/^Usage: swf-on-dynamo \[--port N\]/);
    expect(help).toContain('swf-on-dynamo console --endpoint URL');
    await expect(run('npx', ['swf-on-dynamo', 'consol'], project)).rejects.toThrow(
      /exited 2[\s\S]*Unexpected argument 'consol'[\s\S]*Usage: swf-on-dynamo \[--port N\]/,
    );
    const consoleArgs = ['swf-on-dynamo', 'console', '--endpoint', 'http://127.0.0.1:1'];
    await expect(run('npx', [...consoleArgs, '--port', 'nope'], project)).rejects.toThrow(
      /exited 2[\s\S]*Not a port number: nope[\s\S]*Usage: swf-on-dynamo console --endpoint URL/,
    );
    await expect(run('npx', [...consoleArgs, '--no-such-option'], project)).rejects.toThrow(
      /exited 2[\s\S]*Usage: swf-on-dynamo console --endpoint URL/,
    );
  }, 120_000);
});

/**
 * `npx swf-on-dynamo console --endpoint URL` serves the console's page from the package's bundle and
 * forwards the page's SWF calls to the endpoint: the domain the run registered is listed through it.
 */
async function expectConsoleFor(endpoint: string): Promise<void> {
  const proxy = await startAndRead(
    'npx',
    ['swf-on-dynamo', 'console', '--endpoint', endpoint, '--port', '0'],
    project,
    /SWF console: (\S+)\/console\//,
  );
  try {
    const page = await fetch(`${proxy.match}/console/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const listed = await fetch(`${proxy.match}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'SimpleWorkflowService.ListDomains',
      },
      body: JSON.stringify({ registrationStatus: 'REGISTERED' }),
    });
    expect(listed.status).toBe(200);
    const { domainInfos } = (await listed.json()) as { domainInfos: { name: string }[] };
    expect(domainInfos.map((info) => info.name)).toContain('packaged');
  } finally {
    await interrupt(proxy.child);
  }
}

describe('the template app', () => {
  it('type-checks', async () => {
    await run('npm', ['run', 'typecheck'], app);
  }, 300_000);

  it('passes its own test: its Lambda decider and worker against the local service', async () => {
    const out = await run('npm', ['test'], app);
    expect(out).toMatch(/# pass 6\n# fail 0/);
  }, 300_000);

  it("synthesizes with no network, from the package's prebuilt bundles", async () => {
    const synth = offline('npx', ['cdk', 'synth', '--quiet', '--no-notices']);
    await run(synth.command, synth.args, app, synth.env);
    const template = JSON.parse(readFileSync(join(app, 'cdk.out/SwfApp.template.json'), 'utf8'));
    const functions = lambdaFunctions(template);
    expect(Object.keys(functions).map((id) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual(
      expect.arrayContaining(['SwfApiHandler', 'SwfOutboxStreamHandler', 'Decider', 'Worker']),
    );
    const apiAsset = functions[idStartingWith(functions, 'SwfApiHandler')]?.asset ?? '';
    expect(readFileSync(join(app, 'cdk.out', apiAsset, 'index.mjs'))).toEqual(
      readFileSync(join(root, 'dist/bundles/api/index.mjs')),
    );
    for (const [id, fn] of Object.entries(functions)) {
      const loaded = await run(
        'node',
        [
          '--input-type=module',
          '-e',
          `console.log(typeof (await import('./cdk.out/${fn.asset}/index.mjs')).handler)`,
        ],
        app,
        cleanEnv({ ...fn.environment, AWS_REGION: 'us-east-1' }),
      );
      expect(`${id}: ${loaded.trim()}`).toBe(`${id}: function`);
    }
  }, 300_000);
});

interface SynthesizedFunction {
  readonly asset: string;
  readonly environment: Record<string, string>;
}

/** The template's Lambda functions: each one's asset folder and its environment, tokens filled. */
function lambdaFunctions(template: {
  Resources: Record<string, { Type: string; Metadata?: Record<string, string>; Properties: never }>;
}): Record<string, SynthesizedFunction> {
  const types = Object.fromEntries(
    Object.entries(template.Resources).map(([id, resource]) => [id, resource.Type]),
  );
  const entries = Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
    .map(([id, resource]) => {
      const variables = (resource.Properties as { Environment?: { Variables?: object } })
        .Environment?.Variables;
      const environment = Object.fromEntries(
        Object.entries(variables ?? {}).map(([name, value]) => [name, filled(value, types)]),
      );
      return [id, { asset: resource.Metadata?.['aws:asset:path'] ?? '', environment }] as const;
    });
  return Object.fromEntries(entries);
}

/** What CloudFormation would resolve a template value to, made up as a deployment's would look. */
function filled(value: unknown, types: Readonly<Record<string, string>>): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  const {
    'Fn::Join': join,
    Ref: ref,
    'Fn::GetAtt': att,
  } = value as {
    'Fn::Join'?: [string, unknown[]];
    Ref?: string;
    'Fn::GetAtt'?: [string, string];
  };
  if (join !== undefined) return join[1].map((part) => filled(part, types)).join(join[0]);
  if (ref !== undefined) return PSEUDO[ref] ?? refOf(types[ref] ?? '', ref);
  if (att !== undefined && att[1] === 'Arn') return arnOf(types[att[0]] ?? '', att[0]);
  if (att !== undefined && att[1] === 'ApiEndpoint')
    return `https://${att[0].toLowerCase()}.execute-api.us-east-1.amazonaws.com`;
  throw new Error(`a template value this test cannot fill: ${JSON.stringify(value)}`);
}

const PSEUDO: Readonly<Record<string, string>> = {
  'AWS::AccountId': '123456789012',
  'AWS::Region': 'us-east-1',
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
};

/** A resource's Ref: a queue's URL, a secret's ARN, else its name. */
function refOf(type: string, id: string): string {
  if (type === 'AWS::SQS::Queue') return `https://sqs.us-east-1.amazonaws.com/123456789012/${id}`;
  if (type === 'AWS::SecretsManager::Secret') return arnOf(type, id);
  return id;
}

/** A resource's ARN in its service's form. */
function arnOf(type: string, id: string): string {
  const service = type.split('::')[1]?.toLowerCase() ?? 'unknown';
  if (service === 'iam') return `arn:aws:iam::123456789012:role/${id}`;
  if (service === 'lambda') return `arn:aws:lambda:us-east-1:123456789012:function:${id}`;
  return `arn:aws:${service}:us-east-1:123456789012:${id}`;
}

const idStartingWith = (functions: object, prefix: string) =>
  Object.keys(functions).find((id) => id.startsWith(prefix)) ?? prefix;
