/** One armed deadline: at `at` (epoch seconds), fire `key` of run `runId`. */
export interface DeadlineFire {
  readonly runId: string;
  readonly key: string;
  readonly at: number;
}

/**
 * Where deadlines wait until they fall due. Fires are at least once and may come early or twice: the
 * fire handler re-checks the run's state, so the scheduler need not be exact or exclusive.
 */
export interface DeadlineScheduler {
  arm(fire: DeadlineFire): Promise<void>;
}
