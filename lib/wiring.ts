import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoRegistryStore } from './adapters/dynamodb/registry-store.js';
import { type Clock, epochSeconds, systemClock } from './ports/clock.js';
import type { SigningKeySource } from './ports/secrets.js';
import type { OperationDeps, ServiceIdentity } from './operations/context.js';
import { PageTokens } from './operations/page-token.js';

export interface WiringOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly identity: ServiceIdentity;
  readonly clock?: Clock;
  /** A fixed signing key (base64); by default one is created in the table on first use and shared. */
  readonly signingKey?: string;
}

/** Builds the operations' dependencies over one table: the same wiring for Lambda and the local server. */
export function createDeps(options: WiringOptions): OperationDeps {
  const table = { doc: options.doc, tableName: options.tableName };
  const registry = new DynamoRegistryStore(table);
  const clock = options.clock ?? systemClock;
  const keys = cachedKeySource(() =>
    options.signingKey === undefined
      ? registry.signingKey(() => randomBytes(32))
      : Promise.resolve(Buffer.from(options.signingKey, 'base64')),
  );
  return {
    registry,
    clock,
    identity: options.identity,
    pageTokens: new PageTokens(keys, () => epochSeconds(clock)),
  };
}

function cachedKeySource(load: () => Promise<Buffer>): SigningKeySource {
  let key: Promise<Buffer> | undefined;
  return {
    signingKey: () => {
      key ??= load().catch((error: unknown) => {
        key = undefined; // a failed load is retried by the next request
        throw error;
      });
      return key;
    },
  };
}
