/**
 * The console's only way to the service: SWF's own API, `POST /` of the page's origin with
 * `X-Amz-Target: SimpleWorkflowService.<Action>` and awsJson1_0 bodies. On the local server that is
 * the SWF endpoint itself; behind `npm run console` it is the signing proxy. Nothing else is called
 * but `GET /metrics` (metrics.ts), so the console works against any SWF endpoint unchanged.
 */

/** Timestamps on the wire are epoch seconds (fractions for milliseconds). */
export type Epoch = number;

export interface TypeRef {
  readonly name: string;
  readonly version: string;
}

export interface ExecutionRef {
  readonly workflowId: string;
  readonly runId: string;
}

export interface ExecutionInfo {
  readonly execution: ExecutionRef;
  readonly workflowType: TypeRef;
  readonly startTimestamp: Epoch;
  readonly closeTimestamp?: Epoch;
  readonly executionStatus: 'OPEN' | 'CLOSED';
  readonly closeStatus?: string;
  readonly parent?: ExecutionRef;
  readonly tagList?: readonly string[];
  readonly cancelRequested?: boolean;
}

export interface HistoryEvent {
  readonly eventId: number;
  readonly eventTimestamp: Epoch;
  readonly eventType: string;
  readonly [attributes: string]: unknown;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextPageToken?: string;
}

/** An error the endpoint answered (or the network gave): SWF's fault name and its message. */
export class SwfError extends Error {
  constructor(
    readonly fault: string,
    message: string,
    readonly status: number,
    readonly action: string,
  ) {
    super(message);
    this.name = fault;
  }
}

export const SWF_CONTENT_TYPE = 'application/x-amz-json-1.0';

/** Calls one SWF action; the answer's body, or a SwfError. */
export async function swf<T = Record<string, unknown>>(
  action: string,
  input: object,
  signal?: AbortSignal,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch('/', {
      method: 'POST',
      headers: {
        'content-type': SWF_CONTENT_TYPE,
        'x-amz-target': `SimpleWorkflowService.${action}`,
      },
      body: JSON.stringify(input),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new SwfError(
      'NetworkError',
      `The endpoint could not be reached (${String(error)})`,
      0,
      action,
    );
  }
  const text = await response.text();
  if (response.ok) return (text === '' ? {} : JSON.parse(text)) as T;
  throw errorOf(response.status, response.headers.get('x-amzn-errortype'), text, action);
}

/**
 * The fault of an error answer, read as the AWS SDKs read it: the body's `__type` (or the
 * `x-amzn-errortype` header), the part after `#` (and before `:`), and `message` or `Message`.
 */
export function errorOf(
  status: number,
  typeHeader: string | null,
  body: string,
  action: string,
): SwfError {
  let parsed: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value === 'object' && value !== null) parsed = value as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's or gateway's page): the text itself is the message.
  }
  const type = typeof parsed.__type === 'string' ? parsed.__type : (typeHeader ?? '');
  const fault = type.split('#').pop()?.split(':')[0]?.trim() || `HTTP ${status}`;
  const message = parsed.message ?? parsed.Message ?? body.trim().slice(0, 500);
  return new SwfError(
    fault,
    typeof message === 'string' && message !== '' ? message : `HTTP ${status}`,
    status,
    action,
  );
}

/**
 * The first `pages` pages of a listing (`ListDomains`, `ListWorkflowTypes`, ...), their items under
 * `key`: a listing is read no further than shown ("More" asks for one page more).
 */
export async function firstPages<T>(
  action: string,
  input: Record<string, unknown>,
  key: string,
  pages: number,
  signal?: AbortSignal,
): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let token: string | undefined;
  for (let page = 0; page < pages; page++) {
    const answer = await swf<Record<string, unknown>>(
      action,
      { ...input, ...(token === undefined ? {} : { nextPageToken: token }) },
      signal,
    );
    items.push(...((answer[key] as T[] | undefined) ?? []));
    token = answer.nextPageToken as string | undefined;
    if (token === undefined) break;
  }
  return { items, more: token !== undefined };
}

/** The attributes of an event: its `<eventType>EventAttributes` member. */
export function attributesOf(event: HistoryEvent): Record<string, unknown> {
  const key = `${event.eventType.charAt(0).toLowerCase()}${event.eventType.slice(1)}EventAttributes`;
  const value = event[key];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** A page of history, in the order asked for. */
export async function historyPage(
  domain: string,
  execution: ExecutionRef,
  options: { token?: string; reverse?: boolean; size?: number },
  signal?: AbortSignal,
): Promise<Page<HistoryEvent>> {
  const answer = await swf<{ events?: HistoryEvent[]; nextPageToken?: string }>(
    'GetWorkflowExecutionHistory',
    {
      domain,
      execution,
      maximumPageSize: options.size ?? 1000,
      ...(options.token === undefined ? {} : { nextPageToken: options.token }),
      ...(options.reverse === true ? { reverseOrder: true } : {}),
    },
    signal,
  );
  return {
    items: answer.events ?? [],
    ...(answer.nextPageToken === undefined ? {} : { nextPageToken: answer.nextPageToken }),
  };
}

/** The newest events of an open run, read newest first until the last one already read. */
const TAIL_PAGE = 100;

/** The events after `lastId`, oldest first: pages read newest first until `lastId` is reached. */
export async function newEvents(
  domain: string,
  execution: ExecutionRef,
  lastId: number,
  signal?: AbortSignal,
  read: typeof historyPage = historyPage,
): Promise<HistoryEvent[]> {
  const added: HistoryEvent[] = [];
  let token: string | undefined;
  do {
    const page = await read(
      domain,
      execution,
      { reverse: true, size: TAIL_PAGE, ...(token === undefined ? {} : { token }) },
      signal,
    );
    for (const event of page.items) {
      if (event.eventId <= lastId) return added.reverse();
      added.push(event);
    }
    token = page.nextPageToken;
  } while (token !== undefined);
  return added.reverse();
}
