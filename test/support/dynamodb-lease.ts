/**
 * A setup file of the projects that run over DynamoDB Local (vitest.config.ts): leases this test
 * file's DynamoDB Local from the project's pool (dynamodb-global-setup.ts) before the file loads, and
 * hands it back once the file's own `afterAll` hooks have run (vitest runs after-hooks in reverse).
 */
import { afterAll, inject } from 'vitest';
import { useDynamoEndpoint } from './local.js';

const pool = inject('dynamoPool');
const answer = await fetch(`${pool}/lease`, { method: 'POST' });
const lease = (await answer.json()) as { id: number; endpoint: string; message?: string };
if (!answer.ok) throw new Error(`no DynamoDB Local for this file: ${lease.message}`);
useDynamoEndpoint(lease.endpoint);

afterAll(async () => {
  await fetch(`${pool}/release?id=${lease.id}`, { method: 'POST' });
});
