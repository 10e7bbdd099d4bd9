import type { HostLogger, LogBuffer, LogLine } from "./types.ts";

/** A fixed-size ring of recent log lines with a polling cursor (`GET /v1/logs?after=N`). */
export function createLogBuffer(capacity = 1000): LogBuffer & { push(level: LogLine["level"], message: string): void } {
  const ring: LogLine[] = [];
  let seq = 0;
  return {
    push(level, message) {
      ring.push({ seq: ++seq, at: new Date().toISOString(), level, message });
      if (ring.length > capacity) ring.shift();
    },
    lines(after = 0) {
      return ring.filter((line) => line.seq > after);
    },
  };
}

/** Wraps a logger so every line also lands in the ring buffer. */
export function createHostLogger(
  sink: HostLogger | undefined,
  buffer: ReturnType<typeof createLogBuffer>,
): HostLogger {
  const out = sink ?? consoleLogger;
  return {
    info(message) {
      buffer.push("info", withoutPaths(message));
      out.info(message);
    },
    warn(message) {
      buffer.push("warn", withoutPaths(message));
      out.warn(message);
    },
    error(message, cause) {
      const detail = cause instanceof Error ? `${message}: ${cause.message}` : message;
      buffer.push("error", withoutPaths(detail));
      out.error(message, cause);
    },
  };
}

/**
 * The ring buffer is served over HTTP (`GET /v1/logs`) to any admitted caller, so it never holds
 * file-system paths (state root, project, workspace): each becomes `<path>/<last segment>`. The
 * sink (the operator's console) keeps them. Stacks never reach the buffer (only `message`s do).
 */
export function withoutPaths(message: string): string {
  return message.replace(ABSOLUTE_PATH, (path) => {
    const trimmed = path.replace(/[\\/]+$/, "");
    const last = trimmed.split(/[\\/]/).at(-1);
    return last ? `<path>/${last}` : "<path>";
  });
}

/** `file:///a/b`, `/a/b` (two segments or more) and `C:\\a\\b`, up to whitespace or quoting. */
const ABSOLUTE_PATH = /(?:file:\/\/|(?<![\w.~:/-]))(?:\/[^\s'"`()<>,;]+){2,}|\b[A-Za-z]:\\[^\s'"`()<>,;]+/g;

const consoleLogger: HostLogger = {
  info: (message) => console.log(`[agent-serve] ${message}`),
  warn: (message) => console.warn(`[agent-serve] ${message}`),
  error: (message, cause) => console.error(`[agent-serve] ${message}`, cause ?? ""),
};
