/**
 * The DynamoDB Local that `npm start` runs outlives a SIGINT (a terminal's Ctrl-C reaches the whole
 * process group) until the server stops it, so the calls in progress are answered first; and it ends
 * when stopped. The JVM options a caller gives (the tests' pool gives some) reach the JVM.
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { localCredentials, startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';

const answers = async (endpoint: string) => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: localCredentials,
    maxAttempts: 1,
  });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
};

describe("npm start's DynamoDB Local", () => {
  it('outlives a SIGINT, and ends when the server stops it', async () => {
    const dynamo = await startDynamoDbLocal({ outliveInterrupt: true });
    try {
      process.kill(dynamo.pid ?? 0, 'SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await answers(dynamo.endpoint)).toBe(true);
    } finally {
      await dynamo.stop();
    }
    expect(await answers(dynamo.endpoint)).toBe(false);
  }, 60_000);
});

describe('JVM options', () => {
  it.each([false, true])(
    'reach the JVM, which answers (outliving SIGINT: %s)',
    async (outlive) => {
      const jvmOptions = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
      const dynamo = await startDynamoDbLocal({ jvmOptions, outliveInterrupt: outlive });
      try {
        const environ = readFileSync(`/proc/${dynamo.pid}/environ`, 'utf8').split('\0');
        expect(environ).toContain(`JAVA_TOOL_OPTIONS=${jvmOptions.join(' ')}`);
        expect(await answers(dynamo.endpoint)).toBe(true);
      } finally {
        await dynamo.stop();
      }
    },
    60_000,
  );
});
