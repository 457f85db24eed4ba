/**
 * One API container of the deployed path that serves HTTP itself: the real API function's handler
 * (functions/shared/api-handler.ts) over DynamoDB Local, behind the same API Gateway front door as
 * the pooled containers (api-front-door.ts), in a process of its own. It serves every request sent to
 * its own URL at once, so a test can put hundreds of polls in one container and kill that container
 * alone. Nothing is shared with other containers but the table: polls of different containers meet
 * only through it. Run with `node --import tsx test/support/deployed/http-container.ts`; environment:
 * DYNAMO_ENDPOINT, TABLE_NAME, POLL_MAX_WAIT_MS. It prints `container listening on <url>` once it
 * serves.
 */
import { createApiHandler } from '../../../functions/shared/api-handler.js';
import { createDocumentClient } from '../../../lib/adapters/dynamodb/client.js';
import { localCredentials } from '../../../lib/local/dynamodb-local.js';
import { lambdaContext, TEST_ACCOUNT, TEST_REGION } from '../lambda-events.js';
import { startApiFrontDoor } from './api-front-door.js';
import { API_TIMEOUT_MS } from './deployed-api.js';

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const doc = createDocumentClient({
  endpoint: env('DYNAMO_ENDPOINT'),
  region: TEST_REGION,
  credentials: localCredentials,
});
const handler = createApiHandler({
  doc,
  tableName: env('TABLE_NAME'),
  region: TEST_REGION,
  accountId: TEST_ACCOUNT,
  polling: { maxWaitMs: Number(env('POLL_MAX_WAIT_MS')) },
});

const frontDoor = await startApiFrontDoor((event) =>
  handler(event, lambdaContext({ remainingMs: API_TIMEOUT_MS, name: 'swf-api' })),
);
console.log(`container listening on ${frontDoor.url}`);
