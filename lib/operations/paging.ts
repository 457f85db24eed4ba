import type { PageRequest } from '../ports/registry-store.js';
import type { OperationDeps } from './context.js';

/** SWF's page size: absent or 0 means the maximum, 1000 (swf-api.md §4). */
export const pageSize = (maximumPageSize: number | undefined) =>
  maximumPageSize === undefined || maximumPageSize === 0 ? 1000 : maximumPageSize;

export interface PagingInput {
  readonly nextPageToken?: string;
  readonly maximumPageSize?: number;
  readonly reverseOrder?: boolean;
}

/** Turns the request's paging members into a store page request, opening the token if there is one. */
export async function pageRequest(
  deps: OperationDeps,
  action: string,
  args: unknown,
  input: PagingInput,
): Promise<PageRequest> {
  const base = { limit: pageSize(input.maximumPageSize), reverse: input.reverseOrder === true };
  if (input.nextPageToken === undefined || input.nextPageToken === '') return base;
  const after = await deps.pageTokens.decode({ action, args }, input.nextPageToken);
  return { ...base, after };
}

/** The `nextPageToken` member of a response: present only when another page follows. */
export async function nextPageToken(
  deps: OperationDeps,
  action: string,
  args: unknown,
  next: string | undefined,
): Promise<{ nextPageToken?: string }> {
  if (next === undefined) return {};
  return { nextPageToken: await deps.pageTokens.encode({ action, args }, next) };
}
