/**
 * The embedded storage driver: one SQLite database file (`state.db` under the state root) in WAL
 * mode with `synchronous=FULL`, through the runtime's built-in SQLite. Every write goes through
 * one queue; the writes queued while a commit is in flight share the next transaction and its one
 * sync, across all sessions (group commit). Transactions run on a writer thread, reads on the
 * event loop's own connection. See docs/design/storage.md.
 *
 * @example
 * import { createSqliteStorage } from "agent-serve/storage/sqlite";
 * const storage = createSqliteStorage({ path: ".agent-serve/state.db" });
 * await storage.commit({ records: [{ key: "sessions/s1/record", value: "{}" }], appends: [{ log: "sessions/s1/events", lines: ["{}"] }] });
 * await storage.close();
 * @module
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { StorageUnavailableError } from "../../src/base/storage/errors.ts";
import { Followers } from "../../src/base/storage/followers.ts";
import { assertBatch, assertKey, assertLeaseOwner, assertPage, assertPrefix, type StorageDriver } from "../../src/base/storage/types.ts";
import { type OpenSqlite, openNodeSqlite, type SqliteDatabase } from "./database.ts";
import { storageError } from "./errors.ts";
import { configureReader, configureWriter } from "./configure.ts";
import { inlinePolicy } from "./inline-policy.ts";
import { type OpResult, Statements, type WriteOp } from "./schema.ts";
import { inlineWriter, threadWriter } from "./writer.ts";

export type { OpenSqlite, SqliteDatabase, SqliteStatement } from "./database.ts";
export { openNodeSqlite } from "./database.ts";

export interface SqliteStorageOptions {
  /** The database file; its directory is created when missing. `:memory:` keeps nothing. */
  path: string;
  /** The SQLite binding. @default `node:sqlite` (Node 22.13+, Deno) */
  open?: OpenSqlite;
  /** Open without writing: reads work, every write rejects with `StorageUnavailableError`. */
  readOnly?: boolean;
  /** Caps the database file's size; a write past it rejects with `StorageUnavailableError`. */
  maxBytes?: number;
  /**
   * `"full"`: a commit is synced to stable storage before it resolves (survives power loss).
   * `"normal"`: synced at checkpoints only; a commit survives a crash or kill of the process, not
   * a power loss. For tests and throwaway hosts. @default "full"
   */
  sync?: "full" | "normal";
  /**
   * Run write transactions (and their disk syncs) on a worker thread so they never hold the
   * event loop. Only with the default binding. @default true
   */
  writerThread?: boolean;
  /**
   * With the writer thread, commit a small group on the event loop's own connection while the
   * writer has been alone for a while and the disk syncs fast, instead of handing it over
   * (docs/design/speed.md "A lone commit runs inline"): a single user's turn then costs about a
   * quarter less CPU, and under load every group still goes to the thread. `false` sends every
   * group to the thread. @default true
   */
  inlineCommits?: boolean;
}

/** Lines per batch yielded by `read`, the same bound every driver uses. */
const READ_BATCH = 1024;

interface Queued {
  op: WriteOp;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Creates the driver. Several processes may open the same file (a `serve` and a CLI command on
 * one state root): SQLite serializes their transactions, leases are rows, and indexes are
 * computed inside the writing transaction, so they stay contiguous.
 */
export function createSqliteStorage(options: SqliteStorageOptions): StorageDriver {
  const path = options.path === ":memory:" ? options.path : resolve(options.path);
  const { db, readOnly } = openDatabase(path, options);
  const st = new Statements(db);
  const followers = new Followers();
  // A writer thread needs its own connection to the same file: not for `:memory:` or a custom binding.
  const threaded = !readOnly && path !== ":memory:" && options.open === undefined && options.writerThread !== false;
  const settings = { maxBytes: options.maxBytes, sync: options.sync ?? "full" } as const;
  const writer = threaded ? threadWriter(path, settings) : inlineWriter(db);
  // Unless `inlineCommits` is false, a lone small group is committed on the event loop's own
  // connection (the same settings, synced the same way) instead (docs/design/speed.md "A lone
  // commit runs inline").
  const here = threaded && options.inlineCommits !== false ? inlineWriter(db) : undefined;
  const policy = inlinePolicy();
  let queue: Queued[] = [];
  let busy = false;
  let closed = false;
  let idle: (() => void) | undefined;

  const nextTurn: (fn: () => void) => void =
    (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate ?? ((fn: () => void) => setTimeout(fn, 0));
  // How long a group waits before it is sent when the writer is free: only to the end of the
  // caller's synchronous run (a microtask) on the thread, so writes made together still share a
  // transaction and a lone write waits for nothing; inline, the commit holds the event loop, so
  // it gathers a whole event-loop turn first (docs/design/speed.md "Group commit").
  const schedule: (fn: () => void) => void = threaded ? queueMicrotask : nextTurn;

  /** Sends everything queued as one group; what arrives meanwhile waits for the next group. */
  async function flush(followOn: boolean): Promise<void> {
    const group = queue;
    queue = [];
    const ops = group.map((item) => item.op);
    // A group that follows a thread's reply had to wait: there is load, the thread keeps it.
    const inline = here !== undefined && policy.inline(ops, followOn);
    try {
      const used = inline ? here : writer;
      const results: OpResult[] = await used.run(ops);
      // Only a lone group's time says how fast the disk is for one: a follow-on carries many writes.
      if (here && !followOn) policy.took(used.lastMs);
      for (const [i, item] of group.entries()) {
        const result = results[i]!;
        if (!result.ok) {
          item.reject(result.error);
          continue;
        }
        // Followers hear about lines only once they are durable.
        if (item.op.kind === "commit") {
          const firsts = result.value as number[];
          const appends = item.op.batch.appends;
          if (appends) for (let n = 0; n < appends.length; n++) followers.publish(appends[n]!.log, firsts[n]!, appends[n]!.lines);
        }
        item.resolve(result.value);
      }
    } catch (error) {
      const reported = storageError(error, "commit");
      for (const item of group) item.reject(reported);
    }
    // After an inline commit the writer stays taken for one event-loop turn: what other requests
    // write meanwhile joins one group, which goes to the thread when it has company.
    if (inline) nextTurn(settle);
    else settle(true);
  }

  function settle(followOn = false): void {
    if (queue.length > 0) void flush(followOn);
    else {
      busy = false;
      idle?.();
    }
  }

  function enqueue<T>(op: WriteOp): Promise<T> {
    if (closed) return Promise.reject(new Error("[agent-serve] [storage] the sqlite store is closed"));
    if (readOnly) return Promise.reject(new StorageUnavailableError(`[agent-serve] [storage] ${path} is open read-only`));
    return new Promise<T>((resolve, reject) => {
      queue.push({ op, resolve: resolve as (value: unknown) => void, reject });
      if (!busy) {
        busy = true;
        // Writes made in the same synchronous run share the first group too.
        schedule(() => void flush(false));
      }
    });
  }

  const read = <T>(doing: string, work: () => T): T => {
    try {
      return work();
    } catch (error) {
      throw storageError(error, doing);
    }
  };

  return {
    name: "sqlite",
    capabilities: { durable: path !== ":memory:", follow: "process", sharedLeases: true, releasesInCommit: true },

    async commit(batch) {
      assertBatch(batch);
      return enqueue<number[]>({ kind: "commit", batch: copyBatch(batch) });
    },
    follow(log, listener) {
      assertKey(log);
      return followers.add(log, listener);
    },
    async entries(prefix) {
      assertPrefix(prefix);
      const rows = read("read", () => (prefix === "" ? st.entriesFrom.all("") : st.entriesBetween.all(prefix, upperBound(prefix))));
      return rows.map((row) => [row.key as string, row.value as string]);
    },
    async entriesPage(prefix, page) {
      assertPrefix(prefix);
      assertPage(page);
      const after = page.after !== undefined && page.after >= prefix ? page.after : undefined;
      const rows = read("read", () =>
        after === undefined ? st.entriesPageFrom.all(prefix, upperBound(prefix), page.limit) : st.entriesPageAfter.all(after, upperBound(prefix), page.limit),
      );
      return rows.map((row) => [row.key as string, row.value as string]);
    },

    async get(key) {
      assertKey(key);
      return read("read", () => (st.getRecord.get(key)?.value as string | undefined) ?? undefined);
    },
    async set(key, value) {
      const batch = { records: [{ key, value }] };
      assertBatch(batch);
      await enqueue({ kind: "commit", batch });
    },
    async delete(key) {
      assertKey(key);
      await enqueue({ kind: "commit", batch: { records: [{ key, value: null }] } });
    },
    async list(prefix) {
      assertPrefix(prefix);
      const rows = read("read", () => (prefix === "" ? st.keysFrom.all("") : st.keysBetween.all(prefix, upperBound(prefix))));
      return rows.map((row) => row.key as string);
    },

    async append(log, lines, expectedIndex) {
      const batch = { appends: [{ log, lines: [...lines], ...(expectedIndex === undefined ? {} : { expectedIndex }) }] };
      assertBatch(batch);
      const [first] = await enqueue<number[]>({ kind: "commit", batch });
      return first!;
    },
    async length(log) {
      assertKey(log);
      return read("read", () => st.length(log));
    },
    read(log, from = 0, to) {
      // The end is fixed now, not at the first `next()`: later appends are not part of this read.
      let end = 0;
      let invalid: unknown;
      try {
        assertKey(log);
        end = to ?? read("read", () => st.length(log));
      } catch (error) {
        invalid = error;
      }
      return batches(st, log, Math.max(0, from), end, invalid);
    },
    async deleteLog(log) {
      assertKey(log);
      await enqueue({ kind: "deleteLog", log });
    },
    async hasLog(log) {
      assertKey(log);
      return read("read", () => st.length(log) > 0);
    },

    async acquireLease(key, owner, ttlMs) {
      assertKey(key);
      assertLeaseOwner(owner);
      return enqueue<boolean>({ kind: "acquireLease", key, owner, ttlMs });
    },
    async releaseLease(key, owner) {
      assertKey(key);
      await enqueue({ kind: "releaseLease", key, owner });
    },

    async close() {
      if (closed) return;
      closed = true;
      if (busy) await new Promise<void>((resolve) => (idle = resolve));
      await writer.close();
      db.close();
    },
  };
}

// --- internals ---

function openDatabase(path: string, options: SqliteStorageOptions): { db: SqliteDatabase; readOnly: boolean } {
  const open = options.open ?? openNodeSqlite;
  if (options.readOnly) return { db: configureReader(openReadOnly(open, path)), readOnly: true };
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const db = open(path, { readOnly: false });
    try {
      configureWriter(db, { maxBytes: options.maxBytes, sync: options.sync ?? "full" });
      return { db, readOnly: false };
    } catch (error) {
      db.close();
      throw error;
    }
  } catch (error) {
    // A store on a read-only disk or file still serves reads; writes answer "unavailable".
    if (!StorageUnavailableError.isError(storageError(error, "open"))) throw error;
    return { db: configureReader(openReadOnly(open, path)), readOnly: true };
  }
}

/**
 * Read-only, and on a read-only file system (where SQLite cannot create the WAL's `-shm` file)
 * as an immutable file.
 */
function openReadOnly(open: OpenSqlite, path: string): SqliteDatabase {
  try {
    const db = open(path, { readOnly: true });
    try {
      // The file is first touched by a statement: this is where a missing `-shm` shows.
      db.prepare("SELECT count(*) FROM sqlite_master").get();
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  } catch (error) {
    if (path === ":memory:" || !StorageUnavailableError.isError(storageError(error, "open"))) throw error;
    return open(path, { readOnly: true, immutable: true });
  }
}

/** The smallest string above every key that starts with `prefix` (keys are ASCII). */
const upperBound = (prefix: string): string => `${prefix}\u007f`;

/** The queue keeps its own copy: a caller mutating its arrays after the call changes nothing. */
function copyBatch(batch: Parameters<StorageDriver["commit"]>[0]): Parameters<StorageDriver["commit"]>[0] {
  return {
    ...(batch.records ? { records: batch.records.map((write) => ({ ...write })) } : {}),
    ...(batch.appends ? { appends: batch.appends.map((append) => ({ ...append, lines: [...append.lines] })) } : {}),
    ...(batch.releases ? { releases: batch.releases.map((release) => ({ ...release })) } : {}),
  };
}

async function* batches(st: Statements, log: string, from: number, end: number, invalid: unknown): AsyncGenerator<string[]> {
  if (invalid !== undefined) throw invalid;
  for (let start = from; start < end; start += READ_BATCH) {
    const stop = Math.min(start + READ_BATCH, end);
    let rows;
    try {
      rows = st.readLines.all(log, start, stop);
    } catch (error) {
      throw storageError(error, "read");
    }
    // Past the end of the log, or a log deleted meanwhile: the read ends early.
    if (rows.length === 0) return;
    yield rows.map((row) => row.line as string);
    if (rows.length < stop - start) return;
  }
}
