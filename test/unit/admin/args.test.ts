/** The admin CLI's arguments (what `npm run admin --` is given) and the on-failure queue's pointers. */
import { describe, expect, it } from 'vitest';
import { parseAdminArgs, UsageError } from '../../../lib/admin/args.js';
import { pointerOf } from '../../../lib/admin/stream-redrive.js';

const local = ['--endpoint', 'http://127.0.0.1:8000'];
const deployed = ['--table', 'swf', '--region', 'eu-west-1'];

describe('parseAdminArgs', () => {
  it('reads each command, with npm start defaults for a local endpoint', () => {
    expect(parseAdminArgs(['dead-letters', 'replay', 'e-1', ...local, '--dry-run'])).toEqual({
      command: { kind: 'dead-letters replay', id: 'e-1' },
      target: { endpoint: 'http://127.0.0.1:8000', tableName: 'swf-local', region: 'us-east-1' },
      dryRun: true,
      json: false,
    });
    expect(
      parseAdminArgs(['run', 'show', '--domain', 'd', '--workflow-id', 'w', ...deployed]),
    ).toMatchObject({ command: { kind: 'run show', run: { domain: 'd', workflowId: 'w' } } });
    const redrive = parseAdminArgs([
      'stream',
      'redrive',
      '--queue-url',
      'https://q',
      ...deployed,
      '--stream-function',
      'f',
      '--json',
    ]);
    expect(redrive).toMatchObject({
      command: { kind: 'stream redrive', queueUrl: 'https://q' },
      target: { tableName: 'swf', region: 'eu-west-1', streamFunction: 'f' },
      json: true,
    });
  });

  it('takes the region of a deployed table from AWS_REGION', () => {
    const request = parseAdminArgs(['dead-letters', 'list', '--table', 't'], {
      AWS_REGION: 'ap-south-1',
    });
    expect(request).toMatchObject({ target: { tableName: 't', region: 'ap-south-1' } });
  });

  const refused: [string[], string][] = [
    [[], 'no command given'],
    [['run'], 'unknown command: run'],
    [['run', 'show', ...local], 'run show needs a run id, or --domain D --workflow-id W'],
    [['run', 'show', 'r', '--domain', 'd', '--workflow-id', 'w', ...local], 'not both'],
    [['run', 'rearm', 'r', '--domain', 'd', ...local], 'run rearm takes no --domain'],
    [['dead-letters', 'list', '--table', ''], 'an option was given an empty value'],
    [['dead-letters', 'replay', 'e', ...deployed], 'needs --stream-function NAME'],
    [['dead-letters', 'list', '--endpoint', 'ftp://x'], 'not an http(s) URL'],
    [
      ['dead-letters', 'list', '--dry-run=yes', ...local],
      "Option '--dry-run' does not take an argument",
    ],
  ];
  for (const [argv, message] of refused)
    it(`refuses ${JSON.stringify(argv.slice(0, 3))}: ${message}`, () => {
      expect(() => parseAdminArgs(argv)).toThrow(UsageError);
      expect(() => parseAdminArgs(argv)).toThrow(message);
    });
});

describe('pointerOf', () => {
  const body = (info: unknown) => JSON.stringify({ version: '1.0', DDBStreamBatchInfo: info });
  it("reads Lambda's on-failure record of a stream batch", () => {
    const info = {
      shardId: 'shardId-1',
      startSequenceNumber: '100',
      endSequenceNumber: '120',
      batchSize: 3,
      streamArn: 'arn:aws:dynamodb:eu-west-1:123456789012:table/swf/stream/2026-01-01T00:00:00.000',
    };
    expect(pointerOf(body(info))).toEqual(info);
  });
  it('says what is wrong with a message that is not one', () => {
    expect(pointerOf('{')).toBe('the message is not JSON');
    expect(pointerOf(body({ shardId: 's' }))).toContain('holds no DynamoDB stream batch');
    expect(
      pointerOf(
        body({ shardId: 's', streamArn: 'a', startSequenceNumber: 'x', endSequenceNumber: '1' }),
      ),
    ).toContain('not numbers');
  });
});
