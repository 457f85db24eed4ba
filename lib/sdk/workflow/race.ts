import type { Operation } from './operation.js';
import type { Scope } from './scope.js';

export interface RaceOptions {
  /** What becomes of the operations that did not settle first (default `cancel`). */
  readonly losers?: 'cancel' | 'leave';
}

const cancelOf = (value: unknown): (() => void) | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const cancel: unknown = Reflect.get(value, 'cancel');
  return typeof cancel === 'function' ? () => Reflect.apply(cancel, value, []) : undefined;
};

/** Promise.race, then every operation cancelled (a settled one ignores it) unless left. */
export function race(
  ops: readonly unknown[] | Readonly<Record<string, PromiseLike<unknown>>>,
  options: RaceOptions,
): Promise<unknown> {
  const members: unknown[] = Array.isArray(ops) ? [...ops] : Object.values(ops);
  const first: Promise<unknown> = Array.isArray(ops)
    ? Promise.race(ops)
    : Promise.race(
        Object.entries(ops).map(([key, op]) =>
          Promise.resolve(op).then((value) => ({ key, value })),
        ),
      );
  if (options.losers === 'leave') return first;
  const cancelAll = () => {
    for (const member of members) cancelOf(member)?.();
  };
  return first.then(
    (value) => {
      cancelAll();
      return value;
    },
    (error: unknown) => {
      cancelAll();
      throw error;
    },
  );
}

/** The operation of a scope's work: its result, and cancelling it cancels the scope. */
export function scoped<T>(scope: Scope, work: Promise<T>): Operation<T> {
  const done = work.finally(() => scope.close());
  done.catch(() => {});
  return Object.assign(done, { cancel: () => scope.cancel() });
}
