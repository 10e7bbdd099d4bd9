/**
 * `--log-level` and `--log-format`, the options of every command that serves (`serve`, `dev`,
 * `playground`).
 * @module
 */
import type { LogLevel } from "../src/index.ts";
import type { LogFormat } from "./cli-logger.ts";
import { UsageError } from "./io.ts";
import { rawOption } from "./raw-option.ts";

/**
 * The host's levels, lowest first. Written out here because every command parses its options
 * and only the serving ones load the host; the `Record` type fails to compile when the host's
 * `LogLevel` gains or loses a level.
 */
const LEVELS: Record<LogLevel, true> = { debug: true, info: true, warn: true, error: true };
const LOG_LEVELS = Object.keys(LEVELS) as LogLevel[];
const isLogLevel = (value: string): value is LogLevel => Object.hasOwn(LEVELS, value);

interface CommandLike {
  option(rawName: string, description: string): CommandLike;
}

export function withLogOptions<T extends CommandLike>(command: T): T {
  command
    .option("--log-level <level>", `Lowest level logged: ${LOG_LEVELS.join(", ")} (default: info)`)
    .option("--log-format <format>", "text for people, json for machines: one object per line (default: text)");
  return command;
}

export function logOptions(argv: readonly string[]): { logLevel?: LogLevel; logFormat?: LogFormat } {
  const level = rawOption(argv, "log-level");
  const format = rawOption(argv, "log-format");
  if (level !== undefined && !isLogLevel(level)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")} (got "${level}")`);
  if (format !== undefined && format !== "text" && format !== "json") throw new UsageError(`--log-format must be text or json (got "${format}")`);
  return { ...(level ? { logLevel: level } : {}), ...(format ? { logFormat: format } : {}) };
}
