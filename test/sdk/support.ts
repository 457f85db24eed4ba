/** Helpers shared by the SDK's tests: a logger that keeps what it was told, and a deadline wait. */
import type { Logger } from '../../lib/sdk/index.js';

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

/** A Logger that records every line; `warnings()` lists the warn lines. */
export function recordingLogger(): Logger & { lines: LogLine[]; warnings: () => LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (message: string, fields?: Record<string, unknown>) =>
    lines.push({ level, message, fields });
  return {
    lines,
    warnings: () => lines.filter((l) => l.level === 'warn'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

/**
 * Polls `condition` every `intervalMs` (20 ms) until it holds; fails after `timeoutMs` with `what`.
 * A condition that calls the service should use a longer interval, so the polling is not the load.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
