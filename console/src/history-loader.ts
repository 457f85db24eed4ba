import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ExecutionRef, type HistoryEvent, historyPage, newEvents } from './swf.js';

/** SWF's largest page of history. */
const PAGE = 1000;
/**
 * The first events, read before the full pages, so that the first rows show at once (and a short
 * history is read in one call). A call of its own, not a page that tokens continue: a token is only
 * ever used with the page size it was given.
 */
const PREVIEW = 100;

export interface HistoryState {
  readonly events: readonly HistoryEvent[];
  /** Every page read (until the run closes, more may come: see refresh). */
  readonly complete: boolean;
  readonly error: unknown;
}

/**
 * An execution's history, read a page at a time with SWF's page tokens: the first page shows while
 * the others come, so a history of 25,000 events opens as quickly as one of 100. `refresh` reads the
 * events added since (newest first, until one already read): a live view costs a page of 100 events.
 */
export function useHistory(
  domain: string,
  execution: ExecutionRef,
): HistoryState & { refresh: () => Promise<void> } {
  const [state, setState] = useState<HistoryState>({
    events: [],
    complete: false,
    error: undefined,
  });
  const events = useRef<HistoryEvent[]>([]);
  const complete = useRef(false);
  const stopped = useRef(new AbortController());
  useEffect(() => {
    const aborted = new AbortController();
    stopped.current = aborted;
    events.current = [];
    complete.current = false;
    const failed = (error: unknown) => {
      if (!aborted.signal.aborted) setState((s) => ({ ...s, error }));
    };
    void readHistory(domain, execution, aborted.signal, (read, done) => {
      events.current = read;
      complete.current = done;
      setState({ events: read, complete: done, error: undefined });
    }).catch(failed);
    return () => aborted.abort();
  }, [domain, execution.workflowId, execution.runId]);
  // One refresh at a time: a live tick and an action's refresh would read the same events twice.
  const refreshing = useRef<Promise<void> | undefined>(undefined);
  const refresh = useCallback(async () => {
    if (!complete.current) return;
    if (refreshing.current !== undefined) return refreshing.current;
    const signal = stopped.current.signal;
    const done = readNew(signal).finally(() => {
      refreshing.current = undefined;
    });
    refreshing.current = done;
    return done;
  }, [domain, execution.workflowId, execution.runId]);
  const readNew = async (signal: AbortSignal) => {
    try {
      const last = events.current.at(-1)?.eventId ?? 0;
      const added = (await newEvents(domain, execution, last, signal)).filter(
        (e) => e.eventId > last,
      );
      if (added.length === 0 || signal.aborted) return;
      events.current = events.current.concat(added);
      setState({ events: events.current, complete: true, error: undefined });
    } catch (error) {
      if (!signal.aborted) setState((s) => ({ ...s, error }));
    }
  };
  return { ...state, refresh };
}

/**
 * Reads the history: the first events, then every page from the start, `show`n as they come (all the
 * events read so far, and whether that is all of them).
 */
async function readHistory(
  domain: string,
  execution: ExecutionRef,
  signal: AbortSignal,
  show: (events: HistoryEvent[], done: boolean) => void,
): Promise<void> {
  const preview = await historyPage(domain, execution, { size: PREVIEW }, signal);
  if (signal.aborted) return;
  // A short history comes whole in the first call.
  show([...preview.items], preview.nextPageToken === undefined);
  if (preview.nextPageToken === undefined) return;
  let read: HistoryEvent[] = [];
  let token: string | undefined;
  do {
    const page = await historyPage(
      domain,
      execution,
      { size: PAGE, ...(token === undefined ? {} : { token }) },
      signal,
    );
    if (signal.aborted) return;
    token = page.nextPageToken;
    read = read.concat(page.items);
    show(read, token === undefined);
  } while (token !== undefined);
}
