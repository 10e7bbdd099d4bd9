import type { ProjectRuntime } from "../adapters/_project.ts";

/** What a command may touch of the outside world; injected so commands run in-process in tests. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  /** Where interactive commands (`chat`, `login`) read from. @default process.stdin */
  stdin?: Readable;
  env: Record<string, string | undefined>;
  /** Directory relative paths resolve against. */
  cwd: string;
  /**
   * Stops long-running commands (`serve`, `dev`, `logs --follow`). When absent they stop on
   * SIGINT or SIGTERM.
   */
  signal?: AbortSignal;
  /**
   * How this runtime loads projects and listens (the `bin` passes Bun's or Deno's adapter there).
   * @default the Node adapter's
   */
  runtime?: ProjectRuntime;
}

export interface Writable {
  write(chunk: string): unknown;
  /** True on a terminal: enables colours, spinners and line editing. */
  isTTY?: boolean;
}

/** The part of a Node readable stream the interactive commands use. */
export type Readable = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };

/** Exit codes: 0 success, 1 the command failed, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A command-line mistake; `main` prints it and exits with {@link EXIT_USAGE}. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** An expected failure (unreachable server, unknown session); `main` prints the message, exits 1. */
export class CommandError extends Error {
  override readonly name = "CommandError";
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
