import type { Clock } from '../ports/clock.js';
import type { RegistryStore } from '../ports/registry-store.js';
import type { PageTokens } from './page-token.js';

/** Where this service runs: domain ARNs are built from it. */
export interface ServiceIdentity {
  readonly region: string;
  readonly accountId: string;
}

/** Everything an operation needs, built once per process by the wiring (Lambda or local server). */
export interface OperationDeps {
  readonly registry: RegistryStore;
  readonly clock: Clock;
  readonly pageTokens: PageTokens;
  readonly identity: ServiceIdentity;
}

/** Per-request context: the caller may go away (client disconnect, Lambda deadline). */
export interface RequestContext {
  readonly requestId: string;
  readonly signal: AbortSignal;
}

export type Operation = (
  input: Record<string, unknown>,
  deps: OperationDeps,
  request: RequestContext,
) => Promise<object | undefined>;

/**
 * Adapts a typed operation to the dispatcher. The cast is the one place the validated body meets its
 * type: validateInput has already checked it against the same service-model shape the type describes.
 */
export const operation =
  <I>(run: (input: I, deps: OperationDeps, request: RequestContext) => Promise<object | undefined>): Operation =>
  (input, deps, request) =>
    run(input as I, deps, request);
