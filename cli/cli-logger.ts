/**
 * The host's log on the terminal (`serve`, `dev`): one line per request, turn, tool call and
 * timed firing, at the level `--log-level` sets, as text for people or, with `--log-format json`,
 * one JSON object per line for machines (see `docs/guide/cli.md`).
 * @module
 */
import { plainMessage } from "../src/index.ts";
import type { HostLogger, LogFields, LogLevel } from "../src/index.ts";
import type { CliIo } from "./io.ts";
import { createStyle } from "./style.ts";

export type LogFormat = "text" | "json";

export interface CliLoggerOptions {
  /** Where info and debug lines go; warnings and errors always go to stderr. @default "stdout" */
  infoTo?: "stdout" | "stderr" | "none";
  /** @default "text" */
  format?: LogFormat;
}

export function createCliLogger(io: CliIo, options: CliLoggerOptions = {}): HostLogger {
  const infoTo = options.infoTo ?? "stdout";
  const json = options.format === "json";
  const write = (level: LogLevel, message: string, fields: LogFields | undefined, cause?: unknown): void => {
    const stream = level === "warn" || level === "error" ? io.stderr : infoTo === "none" ? undefined : io[infoTo];
    if (!stream) return;
    const text = plainMessage(message);
    if (json) {
      const error = cause instanceof Error ? { error: plainMessage(cause.message) } : {};
      stream.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: text, ...fields, ...error })}\n`);
      return;
    }
    const style = createStyle(stream, io.env);
    const tag = { debug: style.dim("debug"), info: style.cyan("info "), warn: style.yellow("warn "), error: style.red("error") }[level];
    const detail = cause instanceof Error ? `: ${level === "error" && cause.stack ? plainMessage(cause.stack) : plainMessage(cause.message)}` : "";
    stream.write(`${style.dim(clock())} ${tag} ${text}${detail}\n`);
  };
  return {
    debug: (message, fields) => write("debug", message, fields),
    info: (message, fields) => write("info", message, fields),
    warn: (message, fields) => write("warn", message, fields),
    error: (message, cause, fields) => write("error", message, fields, cause),
  };
}

// --- internals ---

function clock(): string {
  return new Date().toISOString().slice(11, 19);
}
