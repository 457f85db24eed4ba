/** What a Lambda container child process (api-container.ts) and its pool say to each other. */
import type { PollingConfig } from '../../../lib/operations/context.js';
import type { ApiAnswer, ApiEvent } from './api-front-door.js';

/** How the pool builds every container: the settings the stack gives the function, as JSON. */
export interface ContainerSettings {
  readonly functionName: string;
  readonly dynamoEndpoint: string;
  readonly tableName: string;
  readonly region: string;
  readonly accountId: string;
  readonly polling: Partial<PollingConfig>;
  /** The SQS endpoint of the wake channel, when the function has one. */
  readonly sqsEndpoint?: string;
  readonly wakeQueuePrefix?: string;
}

export interface ToContainer {
  readonly id: number;
  readonly event: ApiEvent;
  /** The function's timeout: the context's remaining time when the invocation starts. */
  readonly remainingMs: number;
}

/** What one invocation did to DynamoDB. */
export interface InvocationUsage {
  readonly requests: Record<string, number>;
  readUnits: number;
  writeUnits: number;
  /** GetItem of a run's state item (each claim a poll tries reads one). */
  stateReads: number;
  /** Conditional writes of a run's state item that another writer beat (a lost claim's write). */
  lostStateWrites: number;
  /** CPU time the container's process spent on the invocation (user + system), in ms. */
  cpuMs: number;
}

export type FromContainer =
  | { readonly ready: true }
  | { readonly id: number; readonly answer: ApiAnswer; readonly usage: InvocationUsage }
  | { readonly id: number; readonly error: string; readonly usage: InvocationUsage };
