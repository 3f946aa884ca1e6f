/**
 * The Logger port: structured lines, a constant message plus fields (controller-runtime style), so
 * logs can be queried by key, reconcile id and rule. `PowertoolsLogger` writes Lambda-ready JSON
 * through `@aws-lambda-powertools/logger`; `MemoryLogger` keeps lines for tests and `simulate`.
 */

import { Logger as PtLogger } from '@aws-lambda-powertools/logger';

/** The fields of one line; values must be JSON-serialisable. Never put secrets here. */
export type LogFields = Record<string, unknown>;

/** Severity of a line. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Where structured lines go. Implementations never throw: logging must not fail a step. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Settings of the Powertools logger; both also come from POWERTOOLS_* environment variables. */
export type PowertoolsLoggerOptions = { serviceName?: string; logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' };

/**
 * `Logger` on Powertools: one JSON object per line with level, timestamp, service, the Lambda
 * context once `addContext` is called, and the given fields at top level.
 */
export class PowertoolsLogger implements Logger {
  /** The underlying Powertools logger, for middy's `injectLambdaContext`. */
  readonly powertools: PtLogger;

  constructor(options: PowertoolsLoggerOptions | PtLogger = {}) {
    this.powertools =
      options instanceof PtLogger
        ? options
        : new PtLogger({ serviceName: options.serviceName ?? 'tidb-reconciler', ...withLevel(options.logLevel) });
  }

  debug(message: string, fields: LogFields = {}): void {
    this.powertools.debug(message, fields);
  }

  info(message: string, fields: LogFields = {}): void {
    this.powertools.info(message, fields);
  }

  warn(message: string, fields: LogFields = {}): void {
    this.powertools.warn(message, fields);
  }

  error(message: string, fields: LogFields = {}): void {
    this.powertools.error(message, fields);
  }
}

function withLevel(level: PowertoolsLoggerOptions['logLevel']): { logLevel?: PowertoolsLoggerOptions['logLevel'] } {
  return level === undefined ? {} : { logLevel: level };
}

/** One line kept by `MemoryLogger`. */
export type LogLine = { level: LogLevel; message: string; fields: LogFields };

/** `Logger` in memory: keeps every line, in order, for assertions and reports. */
export class MemoryLogger implements Logger {
  readonly lines: LogLine[] = [];

  debug(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'debug', message, fields });
  }

  info(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'info', message, fields });
  }

  warn(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'warn', message, fields });
  }

  error(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'error', message, fields });
  }

  /** The lines with `message`. */
  withMessage(message: string): LogLine[] {
    return this.lines.filter((l) => l.message === message);
  }
}

/** A `Logger` that drops everything (benchmarks, tests that do not look at logs). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * A `Logger` writing one JSON object per line to a stream (stderr by default), with the virtual or
 * real time from `nowMs` — for `simulate --verbose` and the local stack, where stdout carries output.
 */
export class StreamLogger implements Logger {
  constructor(
    private readonly nowMs: () => number,
    private readonly write: (line: string) => void = (line) => void process.stderr.write(line + '\n'),
    private readonly minLevel: LogLevel = 'info',
  ) {}

  debug(message: string, fields: LogFields = {}): void {
    this.line('debug', message, fields);
  }

  info(message: string, fields: LogFields = {}): void {
    this.line('info', message, fields);
  }

  warn(message: string, fields: LogFields = {}): void {
    this.line('warn', message, fields);
  }

  error(message: string, fields: LogFields = {}): void {
    this.line('error', message, fields);
  }

  private line(level: LogLevel, message: string, fields: LogFields): void {
    const order: LogLevel[] = ['debug', 'info', 'warn', 'error'];
    if (order.indexOf(level) < order.indexOf(this.minLevel)) return;
    try {
      this.write(JSON.stringify({ time: new Date(this.nowMs()).toISOString(), level, message, ...fields }));
    } catch {
      // Logging must never fail a step (e.g. a field that cannot be serialised).
    }
  }
}
