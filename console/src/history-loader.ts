import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ExecutionRef, type HistoryEvent, historyPage, newEvents } from './swf.js';

/** SWF's largest page of history. */
const PAGE = 1000;
/**
 * The first events, read beside the first full page, so that the first rows show at once. A call of
 * its own (not a page that tokens continue): a token is only ever used with the size it was given.
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
    let pages = 0;
    const failed = (error: unknown) => {
      if (!aborted.signal.aborted) setState((s) => ({ ...s, error }));
    };
    void historyPage(domain, execution, { size: PREVIEW }, aborted.signal)
      .then((preview) => {
        // Shown until the first full page comes, unless it has come already.
        if (pages === 0 && !aborted.signal.aborted)
          setState({ events: preview.items, complete: false, error: undefined });
      })
      .catch(failed);
    void readAll(domain, execution, aborted.signal, (page, done) => {
      pages++;
      events.current = events.current.concat(page);
      complete.current = done;
      setState({ events: events.current, complete: done, error: undefined });
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

async function readAll(
  domain: string,
  execution: ExecutionRef,
  signal: AbortSignal,
  onPage: (events: readonly HistoryEvent[], done: boolean) => void,
): Promise<void> {
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
    onPage(page.items, token === undefined);
  } while (token !== undefined);
}
