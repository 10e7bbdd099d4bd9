/**
 * The host log's types: what every component logs through and what `GET /v1/logs` returns.
 * @module
 */

/** Structured detail of a log line (`--log-format json` prints it; the Logs tab shows it). */
export type LogFields = Record<string, unknown>;

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface HostLogger {
  /** Detail below the default level (`--log-level debug`): polls, static files. */
  debug?(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, cause?: unknown, fields?: LogFields): void;
}

export interface LogLine {
  seq: number;
  at: string;
  level: LogLevel;
  message: string;
  fields?: LogFields;
}

export interface LogBuffer {
  lines(after?: number): LogLine[];
}
