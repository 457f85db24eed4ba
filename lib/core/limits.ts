/** Per-execution quotas SWF documents (swf-api.md §12). */
export const executionLimits = {
  openActivities: 1000,
  openTimers: 1000,
  openChildren: 1000,
  openLambdaFunctions: 1000,
  /** SWF terminates an execution whose history would grow past this (cause EVENT_LIMIT_EXCEEDED). */
  historyEvents: 25_000,
} as const;
