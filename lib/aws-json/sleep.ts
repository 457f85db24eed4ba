/**
 * Resolves after `ms`, or at once when `signal` fires (it never rejects). Handy inside activities:
 * `await sleep(1000, ctx.signal); if (ctx.signal.aborted) …`.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
