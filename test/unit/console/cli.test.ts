import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseConsoleArgs, UsageError } from '../../../lib/console/cli.js';

describe('npm run console', () => {
  it('reads the endpoint, region, port and signing name', () => {
    const parsed = parseConsoleArgs(
      ['--endpoint', 'https://abc.execute-api.eu-west-1.amazonaws.com', '--port', '9000'],
      {},
    );
    expect(parsed).toMatchObject({
      port: 9000,
      signing: { service: 'execute-api', region: 'eu-west-1' },
    });
    expect(parseConsoleArgs(['--region', 'us-west-2'], {})).toMatchObject({
      port: 8081,
      signing: { service: 'swf' },
    });
    expect(parseConsoleArgs(['-h'], {})).toBe('help');
  });

  it.each([
    [['--endpoint'], /argument missing/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['--region', 'eu-west-1', 'extra'], /positional/],
    [['--region', 'eu-west-1', '--port', 'http'], /Not a port number: http/],
    [['--endpoint', 'https://swf.example.com'], /give --region/],
    [
      ['--endpoint', 'https://swf.eu-west-1.amazonaws.com', '--service', 'sqs'],
      /Unknown signing name/,
    ],
  ])('refuses %j', (args, message) => {
    expect(() => parseConsoleArgs(args, {})).toThrow(UsageError);
    expect(() => parseConsoleArgs(args, {})).toThrow(message);
  });

  it('exits 2 with the message and the usage on bad arguments', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'lib/console/run.ts', '--port=-3', '--region', 'eu-west-1'],
      {
        encoding: 'utf8',
        env: { ...process.env, AWS_REGION: '' },
        timeout: 30_000,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /Not a port number: -3[\s\S]*Usage: npm run console -- --endpoint URL/,
    );
  });
});
