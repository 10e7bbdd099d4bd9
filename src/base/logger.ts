/**
 * The host's log: leveled lines with optional structured fields, kept in a ring buffer for
 * `GET /v1/logs` (the playground's Logs tab) and passed on to a sink (the terminal, by default
 * the console). Lines are for people, so internal `[agent-serve] [component]` tags are removed
 * (see `docs/design/logging.md`).
 * @module
 */
import type { HostLogger, LogBuffer, LogFields, LogLevel, LogLine } from "./logging.ts";

/** Lowest to highest; a logger at level L keeps L and everything after it. */
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * A fixed-size ring of recent log lines with a polling cursor (`GET /v1/logs?after=N`). A line is
 * kept as it was logged and made presentable (`format`, the time as ISO text) when it is first
 * read, so logging on a turn's path costs a push, not string work nobody may ever read
 * (docs/design/speed.md "CPU per turn").
 */
export function createLogBuffer(capacity = 1000): LogBuffer & {
  push(level: LogLevel, message: string, fields?: LogFields, format?: (message: string, fields: LogFields | undefined) => string): void;
} {
  const ring: Kept[] = [];
  let seq = 0;
  const present = (kept: Kept): LogLine => {
    if (kept.line) return kept.line;
    const line: LogLine = { seq: kept.seq, at: new Date(kept.at).toISOString(), level: kept.level, message: kept.format ? kept.format(kept.message, kept.fields) : kept.message };
    if (kept.fields && Object.keys(kept.fields).length > 0) line.fields = kept.fields;
    kept.line = line;
    return line;
  };
  return {
    push(level, message, fields, format) {
      ring.push({ seq: ++seq, at: Date.now(), level, message, fields, format, line: undefined });
      if (ring.length > capacity) ring.shift();
    },
    lines(after = 0) {
      return ring.filter((kept) => kept.seq > after).map(present);
    },
  };
}

interface Kept {
  seq: number;
  at: number;
  level: LogLevel;
  message: string;
  fields: LogFields | undefined;
  format: ((message: string, fields: LogFields | undefined) => string) | undefined;
  line: LogLine | undefined;
}

/**
 * Wraps a sink so every line at or above `level` also lands in the ring buffer, with internal
 * tags removed; lines below `level` go nowhere.
 */
export function createHostLogger(
  sink: HostLogger | undefined,
  buffer: ReturnType<typeof createLogBuffer>,
  level: LogLevel = "info",
): Required<HostLogger> {
  const out = sink ?? consoleLogger;
  const floor = LOG_LEVELS.indexOf(level);
  const keeps = (at: LogLevel): boolean => LOG_LEVELS.indexOf(at) >= floor;
  const forBuffer = (message: string, fields: LogFields | undefined): string =>
    withoutPaths(plainMessage(message), typeof fields?.["path"] === "string" ? fields["path"] : undefined);
  return {
    debug(message, fields) {
      if (!keeps("debug")) return;
      buffer.push("debug", message, fields, forBuffer);
      out.debug?.(message, fields);
    },
    info(message, fields) {
      if (!keeps("info")) return;
      buffer.push("info", message, fields, forBuffer);
      out.info(message, fields);
    },
    warn(message, fields) {
      if (!keeps("warn")) return;
      buffer.push("warn", message, fields, forBuffer);
      out.warn(message, fields);
    },
    error(message, cause, fields) {
      const detail = cause instanceof Error ? `${message}: ${cause.message}` : message;
      buffer.push("error", detail, fields, forBuffer);
      out.error(message, cause, fields);
    },
  };
}

/**
 * The ring buffer is served over HTTP (`GET /v1/logs`) to any admitted caller, so it never holds
 * file-system paths (state root, project, workspace): each becomes `<path>/<last segment>`. The
 * sink (the operator's console) keeps them. Stacks never reach the buffer (only `message`s do).
 */
export function withoutPaths(message: string, urlPath?: string): string {
  return message.replace(ABSOLUTE_PATH, (path) => {
    // A request line's URL path is what the client sent, not a place on this machine's disk.
    if (path === urlPath) return path;
    const trimmed = path.replace(/[\\/]+$/, "");
    const last = trimmed.split(/[\\/]/).at(-1);
    return last ? `<path>/${last}` : "<path>";
  });
}

/** `file:///a/b`, `/a/b` (two segments or more) and `C:\\a\\b`, up to whitespace or quoting. */
const ABSOLUTE_PATH = /(?:file:\/\/|(?<![\w.~:/-]))(?:\/[^\s'"`()<>,;]+){2,}|\b[A-Za-z]:\\[^\s'"`()<>,;]+/g;

/**
 * A message for people: internal `[agent-serve] [component]` tags (which say where an error was
 * raised, for whoever reads the code) are dropped wherever they appear.
 */
export function plainMessage(text: string): string {
  return text.replace(/\[agent-serve\] (?:\[[\w.-]+\] )?/g, "");
}

/**
 * The sink of a host created without a logger (embedded in another app): its warnings and errors
 * reach the console; request, turn and tool lines stay in `GET /v1/logs`, so a library does not
 * write to the app's standard output (docs/design/logging.md).
 */
const consoleLogger: HostLogger = {
  debug: () => {},
  info: () => {},
  warn: (message) => console.warn(plainMessage(message)),
  error: (message, cause) => console.error(plainMessage(message), cause ?? ""),
};
