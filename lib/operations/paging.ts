import { type HistoryEvent, toWireEvent } from '../core/history-event.js';
import type { PageRequest } from '../ports/registry-store.js';
import type { OperationDeps } from './context.js';

/** SWF's page size: absent or 0 means the maximum, 1000. */
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

/**
 * Bytes of JSON a page of history answers with at most: events hold up to 32,768 characters in each of
 * several members, so a page of a thousand can run to tens of megabytes, past the 6 MB a Lambda
 * function may answer with (the deployed API would fail). A page that would pass it ends early, with a
 * nextPageToken, as SWF's may: a page can hold fewer events than maximumPageSize.
 */
export const HISTORY_PAGE_BYTES = 1_048_576;

/**
 * A page of events as the wire has them, cut before the event that would take its JSON past `budget`
 * bytes (never before the first event): `next` is then that event's id, else the page's own `next`.
 */
export function historyPage(
  events: readonly HistoryEvent[],
  next: number | undefined,
  budget = HISTORY_PAGE_BYTES,
): { events: Record<string, unknown>[]; next?: number } {
  const wire = events.map(toWireEvent);
  const whole = Buffer.byteLength(JSON.stringify(wire));
  if (whole <= budget) return next === undefined ? { events: wire } : { events: wire, next };
  let bytes = 2;
  for (let i = 0; i < wire.length; i++) {
    bytes += Buffer.byteLength(JSON.stringify(wire[i])) + 1;
    const cut = events[i];
    if (bytes > budget && i > 0 && cut !== undefined)
      return { events: wire.slice(0, i), next: cut.eventId };
  }
  return next === undefined ? { events: wire } : { events: wire, next };
}
