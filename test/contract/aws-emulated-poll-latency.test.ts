/**
 * How soon the deployed API function (functions/api.ts, configured as the CDK stack configures it)
 * ends a long poll, and finds a task another container scheduled: wall-clock bounds, so this file
 * runs in the timing project, alone (vitest.config.ts). The rest of the deployed path is
 * aws-emulated.test.ts, over the same emulated AWS (test/support/emulated-deployment.ts).
 */
import type { APIGatewayProxyEventV2WithIAMAuthorizer } from 'aws-lambda';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createApiHandler } from '../../functions/shared/api-handler.js';
import { createDocumentClient } from '../../lib/adapters/dynamodb/client.js';
import { localCredentials } from '../../lib/local/dynamodb-local.js';
import { sleep, uid } from '../support/decider.js';
import {
  ACCOUNT,
  API_FUNCTION,
  domain,
  emulatedDeployment,
  parent,
  REGION,
} from '../support/emulated-deployment.js';
import { functionUrlEvent, lambdaContext } from '../support/lambda-events.js';
import { dynamoEndpoint } from '../support/local.js';

// The functions' DynamoDB client goes to DynamoDB Local instead of dynamodb.<region>.amazonaws.com.
vi.mock('../../functions/shared/config.js', async (importOriginal) =>
  (await import('../support/emulated-deployment.js')).configOnDynamoDbLocal(importOriginal),
);

const aws = emulatedDeployment();

describe('the API function behind API Gateway', () => {
  const event = functionUrlEvent;
  const call = (e: APIGatewayProxyEventV2WithIAMAuthorizer, remainingMs?: number) =>
    aws.callApi(e, remainingMs);

  it("ends a long poll before the function's deadline, and within POLL_MAX_WAIT_MS", async () => {
    const poll = event(
      'SimpleWorkflowService.PollForActivityTask',
      JSON.stringify({ domain, taskList: { name: uid('idle') } }),
    );
    let t = Date.now();
    const full = await call(poll, 28_000);
    const fullMs = Date.now() - t;
    expect(full.statusCode).toBe(200);
    expect(fullMs).toBeGreaterThanOrEqual(1_900);
    expect(fullMs).toBeLessThan(3_500);
    t = Date.now();
    const short = await call(poll, 3_800);
    const shortMs = Date.now() - t;
    expect(short.statusCode).toBe(200);
    expect(short.json.taskToken).toBeUndefined();
    expect(shortMs).toBeLessThan(1_500);
  });

  it('finds a task another container scheduled within POLL_RECHECK_MS (nothing else wakes it)', async () => {
    // Another container of the function: its own dispatcher, whose commits wake none of this one's polls.
    const otherDoc = createDocumentClient({
      endpoint: dynamoEndpoint(),
      region: REGION,
      credentials: localCredentials,
    });
    onTestFinished(() => otherDoc.destroy());
    const other = createApiHandler({
      doc: otherDoc,
      tableName: aws.table.tableName,
      region: REGION,
      accountId: ACCOUNT,
    });
    const list = uid('recheck');
    const waiting = call(
      event(
        'SimpleWorkflowService.PollForDecisionTask',
        JSON.stringify({ domain, taskList: { name: list } }),
      ),
    );
    // Just after the poll's first look: at the default second, its next comes ~950 ms later.
    await sleep(50);
    const started = await other(
      event(
        'SimpleWorkflowService.StartWorkflowExecution',
        JSON.stringify({
          domain,
          workflowId: uid('recheck'),
          workflowType: parent,
          taskList: { name: list },
        }),
      ),
      lambdaContext({ remainingMs: 28_000, name: API_FUNCTION }),
    );
    const at = Date.now();
    expect(typeof started === 'string' ? started : started.statusCode).toBe(200);
    const polled = await waiting;
    // Found at the poll's next look, 150 ms apart (it would be up to a second at the default).
    expect(polled.json.taskToken).toEqual(expect.any(String));
    expect(Date.now() - at).toBeLessThan(500);
  });
});
