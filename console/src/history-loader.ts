import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ExecutionRef, type HistoryEvent, historyPage, newEvents } from './swf.js';

/** SWF's largest page of history. */
const PAGE = 1000;

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
    void readAll(domain, execution, aborted.signal, (page, done) => {
      events.current = events.current.concat(page);
      complete.current = done;
      setState({ events: events.current, complete: done, error: undefined });
    }).catch((error: unknown) => {
      if (!aborted.signal.aborted) setState((s) => ({ ...s, error }));
    });
    return () => aborted.abort();
  }, [domain, execution.workflowId, execution.runId]);
  const refresh = useCallback(async () => {
    if (!complete.current) return;
    const signal = stopped.current.signal;
    try {
      const added = await newEvents(domain, execution, events.current.at(-1)?.eventId ?? 0, signal);
      if (added.length === 0 || signal.aborted) return;
      events.current = events.current.concat(added);
      setState({ events: events.current, complete: true, error: undefined });
    } catch (error) {
      if (!signal.aborted) setState((s) => ({ ...s, error }));
    }
  }, [domain, execution.workflowId, execution.runId]);
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
