/**
 * The storage port (docs/design/storage.md): key/value records, append-only logs and short leases,
 * atomic multi-operation commits and live follow.
 *
 * Keys are `/`-separated segments of `[A-Za-z0-9_.-]` (no empty, `.` or `..` segment); drivers
 * reject anything else with `assertKey`, so an id taken from a URL can never escape its namespace.
 * Values and log lines are strings: the core serializes once and drivers store bytes as given.
 * @module
 */

/** What a driver can do beyond the required operations; callers and the conformance suite branch on it. */
export interface StorageCapabilities {
  /** Writes survive a restart of the process (false for `memory`). */
  readonly durable: boolean;
  /**
   * Who receives `follow` notifications: followers in this process only (`"process"`: memory,
   * sqlite), or followers in every process sharing the store (`"shared"`: Redis, Durable Objects).
   */
  readonly follow: "process" | "shared";
  /** Leases exclude other processes sharing the store, not only other callers in this process. */
  readonly sharedLeases: boolean;
  /**
   * `commit` applies a batch's `releases` with its other writes, all or nothing. A driver without
   * it may not see them: callers send `releaseLease` after the commit instead.
   */
  readonly releasesInCommit?: boolean;
}

/** One record write of a `commit`: a value to store, or `null` to delete the key. */
export interface RecordWrite {
  key: string;
  value: string | null;
  /**
   * Compare-and-set: the commit applies only if the key's current value is exactly this (`null`:
   * the key is absent); otherwise the whole commit rejects with `RecordConflictError`.
   */
  expected?: string | null;
}

/** One log append of a `commit`. `expectedIndex` works as in `append`. */
export interface LogAppend {
  log: string;
  lines: string[];
  expectedIndex?: number;
}

/** A lease given back by a `commit`, as `releaseLease` would: only if `owner` holds it. */
export interface LeaseRelease {
  key: string;
  owner: string;
}

/** Everything one `commit` applies, all or nothing. */
export interface CommitBatch {
  records?: RecordWrite[];
  appends?: LogAppend[];
  /** Only with `capabilities.releasesInCommit`: leases released in the same transaction. */
  releases?: LeaseRelease[];
}

/** Where a page of `entriesPage` starts and how long it is. */
export interface EntriesPage {
  /** Only keys strictly after this one (in key order); usually the last key of the previous page. */
  after?: string;
  /** At most this many records: a positive integer. */
  limit: number;
}

/** Called with the lines a commit appended to a followed log, after they are durable. */
export type FollowListener = (firstIndex: number, lines: readonly string[]) => void;

export interface StorageDriver {
  /** Short driver name for diagnostics, e.g. `memory` or `sqlite`. */
  readonly name: string;
  readonly capabilities: StorageCapabilities;

  /**
   * Applies record writes and log appends atomically: after a crash either all of them are
   * stored or none is, and no reader or follower sees part of them. Resolves with the index of
   * the first line of each append (in `appends` order) once durable. A stale `expected` or
   * `expectedIndex` rejects the whole commit (`RecordConflictError`, `LogConflictError`) and
   * writes nothing. `set`, `delete` and `append` are one-operation commits.
   */
  commit(batch: CommitBatch): Promise<number[]>;
  /**
   * Calls `listener` with every batch of lines appended to `log` from now on, in index order,
   * once durable (who is reached: `capabilities.follow`). Returns the unsubscribe function.
   * A follower that needs the lines before now reads them first and drops what it already saw.
   */
  follow(log: string, listener: FollowListener): () => void;
  /** Records whose key starts with `prefix` with their values, sorted by key (one indexed scan). */
  entries(prefix: string): Promise<Array<[key: string, value: string]>>;
  /**
   * One page of `entries(prefix)`: at most `limit` records, in key order, whose key sorts strictly
   * after `after` (all from the start without it). One bounded range read of the store's key
   * index, whatever the number of records under the prefix: what paged listings stand on
   * (docs/design/listing.md).
   */
  entriesPage(prefix: string, page: EntriesPage): Promise<Array<[key: string, value: string]>>;

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

/** Thrown by `commit` when a record's `expected` value does not match what is stored. */
export class RecordConflictError extends Error {
  override readonly name = "RecordConflictError";
  readonly key: string;
  constructor(key: string) {
    super(`[agent-serve] [storage] record ${key} changed since it was read`);
    this.key = key;
  }
  static isError(value: unknown): value is RecordConflictError {
    return value instanceof Error && value.name === "RecordConflictError";
  }
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

/** Segments of `[A-Za-z0-9_.-]+` joined by `/`, none of them `.` or `..`: one pass each, no split. */
const KEY = /^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

/** Throws unless `key` is a well-formed storage key (see the module comment). */
export function assertKey(key: string): void {
  if (typeof key !== "string" || key.length === 0 || key.length > 512 || !KEY.test(key) || DOT_SEGMENT.test(key)) throw invalidKey(key);
}

/** Throws unless the page is `{after?: string, limit: positive integer}`. */
export function assertPage(page: EntriesPage): void {
  if (typeof page !== "object" || page === null) throw new TypeError("[agent-serve] [storage] a page must be {after?, limit}");
  if (!Number.isInteger(page.limit) || page.limit < 1) throw new TypeError("[agent-serve] [storage] a page's limit must be a positive integer");
  if (page.after !== undefined && typeof page.after !== "string") throw new TypeError("[agent-serve] [storage] a page's after must be a string");
}

/** A prefix is a key that may end with `/`, or the empty string for everything. */
export function assertPrefix(prefix: string): void {
  if (prefix === "") return;
  assertKey(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
}

/** Throws unless every line is a string without a newline. */
export function assertLines(lines: string[]): void {
  if (!Array.isArray(lines)) throw new TypeError("[agent-serve] [storage] lines must be an array");
  for (const line of lines) {
    if (typeof line !== "string" || line.includes("\n")) {
      throw new Error("[agent-serve] [storage] a log line must be a string without a newline");
    }
  }
}

/** Validates a commit's keys, values and lines before a driver touches anything. */
export function assertBatch(batch: CommitBatch): void {
  for (const write of batch.records ?? []) {
    assertKey(write.key);
    if (write.value !== null && typeof write.value !== "string") throw new TypeError("[agent-serve] [storage] a value must be a string");
  }
  for (const append of batch.appends ?? []) {
    assertKey(append.log);
    assertLines(append.lines);
  }
  for (const release of batch.releases ?? []) {
    assertKey(release.key);
    assertLeaseOwner(release.owner);
  }
}

/** Throws unless `owner` (of a lease) is a non-empty string. */
export function assertLeaseOwner(owner: string): void {
  if (typeof owner !== "string" || owner === "") throw new Error("[agent-serve] [storage] lease owner must be a non-empty string");
}

function invalidKey(key: string): Error {
  return new Error(`[agent-serve] [storage] invalid key ${JSON.stringify(String(key).slice(0, 80))}`);
}
