/**
 * `npm run admin` as a process over DynamoDB Local: bad arguments get a message naming what is wrong,
 * the usage and exit code 2, and change nothing stored; good ones answer in text or JSON, with exit
 * code 1 for what could not be done.
 */
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoExecutionStore } from '../../lib/adapters/dynamodb/execution-store.js';
import { dynamoEndpoint, tableForFile, tableItems } from '../support/local.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const table = tableForFile('admin-cli');

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI as `npm run admin --` runs it, without the caller's AWS settings. */
function admin(...args: string[]): Promise<Ran> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')),
  );
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args],
      { cwd: root, env, timeout: 60_000 },
      (error, stdout, stderr) =>
        done({ code: error === null ? 0 : (error.code as number | null), stdout, stderr }),
    );
  });
}

const local = () => ['--endpoint', dynamoEndpoint(), '--table', table().tableName];
const items = () => tableItems(table().client, table().tableName);

beforeAll(async () => {
  const store = new DynamoExecutionStore({ doc: table().doc, tableName: table().tableName });
  await store.putDeadLetter('letter-1', '{"eventID":"letter-1"}', 'Error: effect failed');
});

describe('npm run admin, given bad arguments', () => {
  const cases: [string, string[], string][] = [
    ['no command', [], 'no command given'],
    ['an unknown command', ['dead-letters', 'purge'], 'unknown command: dead-letters purge'],
    ['an unknown option', ['dead-letters', 'list', '--force'], "Unknown option '--force'"],
    ['no id', ['dead-letters', 'discard'], 'dead-letters discard needs a dead letter id'],
    [
      'an extra argument',
      ['dead-letters', 'discard', 'letter-1', 'letter-2'],
      'dead-letters discard: unexpected argument letter-2',
    ],
    [
      'an option of another command',
      ['dead-letters', 'discard', 'letter-1', '--queue-url', 'https://q'],
      'dead-letters discard takes no --queue-url',
    ],
    [
      'half a workflow',
      ['run', 'show', '--domain', 'd'],
      'needs both --domain D and --workflow-id W',
    ],
    ['redrive without a queue', ['stream', 'redrive'], 'stream redrive needs --queue-url URL'],
    [
      'redrive of npm start',
      ['stream', 'redrive', '--queue-url', 'https://q'],
      'stream redrive is for a deployed stack',
    ],
  ];
  for (const [what, args, message] of cases)
    it(`${what}: says so, exits 2 and changes nothing`, async () => {
      const before = await items();
      const ran = await admin(...args, ...local());
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(message);
      expect(ran.stderr).toContain('Usage: npm run admin -- <command>');
      expect(ran.stdout).toBe('');
      expect(await items()).toEqual(before);
    });

  it('no table, a table without a region, or a deployed effect without its function: exit 2', async () => {
    const before = await items();
    const noTable = await admin('dead-letters', 'list');
    expect(noTable.code).toBe(2);
    expect(noTable.stderr).toContain('say which table');
    const noRegion = await admin('dead-letters', 'list', '--table', 'swf');
    expect(noRegion.code).toBe(2);
    expect(noRegion.stderr).toContain('--table needs --region R');
    const noFunction = await admin(
      'run',
      'rearm',
      'r-1',
      '--table',
      'swf',
      '--region',
      'eu-west-1',
    );
    expect(noFunction.code).toBe(2);
    expect(noFunction.stderr).toContain('run rearm on a deployed table needs --stream-function');
    const badEndpoint = await admin('dead-letters', 'list', '--endpoint', 'localhost:8000');
    expect(badEndpoint.code).toBe(2);
    expect(await items()).toEqual(before);
  });
});

describe('npm run admin, given good arguments', () => {
  it('prints its usage for --help', async () => {
    const ran = await admin('--help');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('dead-letters replay <id>');
  });

  it('lists in text and JSON; a missing letter exits 1; discard removes, after a dry run that does not', async () => {
    const text = await admin('dead-letters', 'list', ...local());
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Z {2}letter-1 {2}Error: effect failed\n1 dead letter\(s\)/);
    const json = await admin('dead-letters', 'list', '--json', ...local());
    expect(JSON.parse(json.stdout)).toEqual([
      { id: 'letter-1', at: expect.any(String), error: 'Error: effect failed' },
    ]);
    const missing = await admin('dead-letters', 'show', 'letter-9', ...local());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no dead letter letter-9');

    const before = await items();
    const dry = await admin('dead-letters', 'discard', 'letter-1', '--dry-run', ...local());
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Would remove 1 letter(s) of letter-1.');
    expect(await items()).toEqual(before);
    const discarded = await admin('dead-letters', 'discard', 'letter-1', ...local());
    expect(discarded.stdout).toContain('Removed 1 letter(s) of letter-1.');
    expect((await items()).length).toBe(before.length - 1);
  });
});
