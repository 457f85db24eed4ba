/** Resolves after `ms` milliseconds (on the global timers, which tests may fake). */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
