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
  /**
   * Gives up a fire armed earlier that is no longer needed, where that saves something (a schedule
   * that would otherwise be invoked), unless `armedAgain` says the run has set it again since. Best
   * effort: a fire not disarmed comes and does nothing.
   */
  disarm(fire: DeadlineFire, armedAgain: () => Promise<boolean>): Promise<void>;
}
