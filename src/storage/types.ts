/**
 * The storage port (docs/design/storage.md): key/value records, append-only logs and short leases.
 *
 * Keys are `/`-separated segments of `[A-Za-z0-9_.-]` (no empty, `.` or `..` segment); drivers
 * reject anything else with `assertKey`, so an id taken from a URL can never escape its namespace.
 * Values and log lines are strings: the core serializes once and drivers store bytes as given.
 * @module
 */

export interface StorageDriver {
  /** Short driver name for diagnostics, e.g. `memory` or `fs`. */
  readonly name: string;

  /** The stored value, or `undefined` when absent. */
  get(key: string): Promise<string | undefined>;
  /** Replaces the value atomically: readers see the old or the new value, never a torn one. */
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Keys that start with `prefix` (a whole-segment prefix such as `sessions/`), sorted.
   * Log names are not included.
   */
  list(prefix: string): Promise<string[]>;

  /**
   * Appends lines (without trailing newline; a line never contains `\n`) to the log `log` and
   * resolves with the index of the first appended line once the lines are durable under the
   * driver's policy. Appends to one log are applied in call order.
   *
   * When `expectedIndex` is given and differs from the log's length, nothing is written and the
   * promise rejects with a `LogConflictError`: this is how a writer that lost its lease finds out.
   */
  append(log: string, lines: string[], expectedIndex?: number): Promise<number>;
  /** Number of lines in the log (0 for a log that does not exist). */
  length(log: string): Promise<number>;
  /**
   * Lines `[from, to)` of the log in batches, oldest first. `to` defaults to the length at the
   * time of the call. Reading a missing log yields nothing.
   */
  read(log: string, from?: number, to?: number): AsyncIterable<string[]>;
  /** Removes the log; a later append starts again at index 0. */
  deleteLog(log: string): Promise<void>;
  /** Whether the log exists (has been appended to and not deleted). */
  hasLog(log: string): Promise<boolean>;

  /**
   * Takes or renews the lease `key` for `owner` for `ttlMs`. Resolves true when `owner` holds it
   * afterwards. A lease held by another owner that has not expired is not taken.
   */
  acquireLease(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Releases the lease if `owner` holds it; otherwise does nothing. */
  releaseLease(key: string, owner: string): Promise<void>;

  /** Flushes and releases resources (file handles, connections). */
  close(): Promise<void>;
}

/** Thrown by `append` when `expectedIndex` does not match the log length. */
export class LogConflictError extends Error {
  override readonly name = "LogConflictError";
  readonly log: string;
  readonly expectedIndex: number;
  readonly actualIndex: number;
  constructor(log: string, expectedIndex: number, actualIndex: number) {
    super(`[agent-serve] [storage] log ${log} is at ${actualIndex}, expected ${expectedIndex}`);
    this.log = log;
    this.expectedIndex = expectedIndex;
    this.actualIndex = actualIndex;
  }
  static isError(value: unknown): value is LogConflictError {
    return value instanceof Error && value.name === "LogConflictError";
  }
}

const SEGMENT = /^[A-Za-z0-9_.-]+$/;

/** Throws unless `key` is a well-formed storage key (see the module comment). */
export function assertKey(key: string): void {
  if (typeof key !== "string" || key.length === 0 || key.length > 512) throw invalidKey(key);
  for (const segment of key.split("/")) {
    if (!SEGMENT.test(segment) || segment === "." || segment === "..") throw invalidKey(key);
  }
}

/** A prefix is a key that may end with `/`, or the empty string for everything. */
export function assertPrefix(prefix: string): void {
  if (prefix === "") return;
  assertKey(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
}

function invalidKey(key: string): Error {
  return new Error(`[agent-serve] [storage] invalid key ${JSON.stringify(String(key).slice(0, 80))}`);
}
