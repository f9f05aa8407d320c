/**
 * The slice of a pino logger the bus needs. Structural, so a pino `Logger` (from
 * `@marquee/platform/logger`) fits without the bus importing pino.
 */
export interface BusLogger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

/**
 * Used when a caller passes no logger: failures must still be visible, so warnings and errors go
 * to stderr as JSON lines; debug and info are dropped.
 */
export const stderrLogger: BusLogger = {
  debug: () => {},
  info: () => {},
  warn: (fields, message) => writeLine('warn', fields, message),
  error: (fields, message) => writeLine('error', fields, message),
};

function writeLine(level: string, fields: object, message: string | undefined): void {
  let line: string;
  try {
    line = JSON.stringify(
      { level, time: new Date().toISOString(), ...fields, msg: message },
      errorReplacer,
    );
  } catch {
    line = JSON.stringify({ level, msg: message });
  }
  process.stderr.write(`${line}\n`);
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error
    ? { type: value.name, message: value.message, stack: value.stack }
    : value;
}
