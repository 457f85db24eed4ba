/** Where the SDK writes what it has to say. Any object with these four methods works (console does). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const write =
  (sink: (line: string) => void, level: string) =>
  (message: string, fields?: Record<string, unknown>) =>
    sink(
      `[swf-sdk] ${level} ${message}${fields === undefined ? '' : ` ${JSON.stringify(fields)}`}`,
    );

/** The default logger: warnings and errors to stderr, info to stdout, debug dropped. */
export const consoleLogger: Logger = {
  debug: () => {},
  info: write((line) => console.log(line), 'info'),
  warn: write((line) => console.warn(line), 'warn'),
  error: write((line) => console.error(line), 'error'),
};

/** A logger that drops everything. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};
