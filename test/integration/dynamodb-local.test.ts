/**
 * The DynamoDB Local that `npm start` runs outlives a SIGINT (a terminal's Ctrl-C reaches the whole
 * process group) until the server stops it, so the calls in progress are answered first; and it ends
 * when stopped.
 */
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
