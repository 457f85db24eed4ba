import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { parseRoute, type Route } from './routes.js';

/** The route of the location's hash, following it as it changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export interface Loaded<T> {
  readonly value: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  /** Loads again (a refresh keeps the value shown until the new one comes). */
  readonly reload: () => void;
}

/**
 * The value of an asynchronous load, done again whenever `deps` change; a load that is overtaken is
 * aborted, and its answer dropped.
 */
export function useAsync<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: unknown; loading: boolean }>({
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    const aborted = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    latest
      .current(aborted.signal)
      .then((value) => {
        if (!aborted.signal.aborted) setState({ value, loading: false });
      })
      .catch((error: unknown) => {
        if (!aborted.signal.aborted) setState((s) => ({ ...s, error, loading: false }));
      });
    return () => aborted.abort();
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { value: state.value, error: state.error, loading: state.loading, reload };
}

/** Calls `tick` every `ms` while `active`, and not while the page is hidden. */
export function useInterval(tick: () => void, ms: number, active: boolean): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') latest.current();
    }, ms);
    return () => clearInterval(timer);
  }, [ms, active]);
}

/** Runs an action, keeping its error (shown by the caller) and whether it is under way. */
export function useAction(): {
  readonly busy: boolean;
  readonly error: unknown;
  readonly run: (action: () => Promise<unknown>) => Promise<boolean>;
  readonly clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: useCallback(() => setError(undefined), []) };
}
