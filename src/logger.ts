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
      buffer.push("info", message);
      out.info(message);
    },
    warn(message) {
      buffer.push("warn", message);
      out.warn(message);
    },
    error(message, cause) {
      const detail = cause instanceof Error ? `${message}: ${cause.message}` : message;
      buffer.push("error", detail);
      out.error(message, cause);
    },
  };
}

const consoleLogger: HostLogger = {
  info: (message) => console.log(`[agent-serve] ${message}`),
  warn: (message) => console.warn(`[agent-serve] ${message}`),
  error: (message, cause) => console.error(`[agent-serve] ${message}`, cause ?? ""),
};
