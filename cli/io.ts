/** What a command may touch of the outside world; injected so commands run in-process in tests. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  /** Directory relative paths resolve against. */
  cwd: string;
  /**
   * Stops long-running commands (`serve`, `dev`). When absent they stop on SIGINT or SIGTERM.
   */
  signal?: AbortSignal;
}

export interface Writable {
  write(chunk: string): unknown;
}

/** Exit codes: 0 success, 1 the command failed, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A command-line mistake; `main` prints it and exits with {@link EXIT_USAGE}. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
