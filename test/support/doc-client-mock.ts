import { vi } from 'vitest';
import { type DocClient, DynamoDocClient } from '../../lib/adapters/dynamodb/doc-client.js';

type Operation = keyof DocClient;
const OPERATIONS: readonly Operation[] = [
  'get',
  'put',
  'update',
  'delete',
  'query',
  'scan',
  'transactWrite',
  'batchWrite',
];

/**
 * Replaces every DynamoDocClient's requests (functions build theirs at module load): each call is
 * recorded; an operation answers what `on` gave it and fails loudly otherwise, so nothing reaches AWS.
 */
export function mockDocClient() {
  const calls: { operation: Operation; input: Record<string, unknown> }[] = [];
  const answers = new Map<Operation, (input: Record<string, unknown>) => unknown>();
  const spies = OPERATIONS.map((operation) =>
    vi.spyOn(DynamoDocClient.prototype, operation).mockImplementation((async (
      input: Record<string, unknown>,
    ) => {
      calls.push({ operation, input });
      const answer = answers.get(operation);
      if (answer === undefined) throw new Error(`unexpected DynamoDB ${operation} in a unit test`);
      return answer(input);
    }) as never),
  );
  return {
    on(operation: Operation, answer: (input: Record<string, unknown>) => unknown) {
      answers.set(operation, answer);
    },
    /** Inputs of the calls made (of one operation, when given). */
    calls(operation?: Operation) {
      return calls
        .filter((c) => operation === undefined || c.operation === operation)
        .map((c) => c.input);
    },
    reset() {
      calls.length = 0;
      answers.clear();
    },
    restore() {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
