/**
 * The storage driver over a Durable Object's SQLite storage (`ctx.storage`: `sql.exec` and
 * `transactionSync`), with the sqlite driver's tables and write rules (docs/design/cloudflare.md
 * "Storage"). Every write is one synchronous transaction; the object's output gate holds any
 * response until it is durable, so nothing is acknowledged or shown before that. Several drivers
 * may share one database under different namespaces (one per mounted agent).
 *
 * It imports nothing runtime-specific: in Node the same driver runs over `node:sqlite` through
 * {@link DurableObjectSqlStorage}'s small shape (the conformance suite does so).
 * @module
 */
import { Followers } from "../../src/base/storage/followers.ts";
import { StorageUnavailableError } from "../../src/base/storage/errors.ts";
import {
  assertBatch,
  assertKey,
  assertLeaseOwner,
  assertPage,
  assertPrefix,
  type CommitBatch,
  LogConflictError,
  RecordConflictError,
  type StorageDriver,
} from "../../src/base/storage/types.ts";
import type { SqliteDatabase, SqliteRow, SqliteValue } from "../sqlite/database.ts";
import { applyEach, SCHEMA, Statements, type WriteOp } from "../sqlite/schema.ts";

/** What the driver uses of `DurableObjectState["storage"]`. */
export interface DurableObjectSqlStorage {
  sql: { exec(query: string, ...bindings: SqliteValue[]): { toArray(): unknown[] } };
  transactionSync<T>(fn: () => T): T;
}

export interface DurableObjectStorageOptions {
  /** Keeps this driver's keys, logs and leases apart from other drivers on the same database. */
  namespace?: string;
}

const READ_BATCH = 1024;

/** The driver, plus who holds a lease now (recovery and the storage protocol ask). */
export type DurableObjectStorageDriver = StorageDriver & { leaseHolder(key: string): Promise<string | undefined> };

export function createDurableObjectStorage(storage: DurableObjectSqlStorage, options: DurableObjectStorageOptions = {}): DurableObjectStorageDriver {
  const db = sqlDatabase(storage);
  for (const statement of SCHEMA.split(";").map((part) => part.trim())) if (statement) db.exec(statement);
  const st = new Statements(db);
  const followers = new Followers();
  const ns = options.namespace === undefined ? "" : `${options.namespace}/`;
  if (ns) assertKey(options.namespace!);
  const inner = (key: string): string => `${ns}${key}`;
  let closed = false;

  const open = (): void => {
    if (closed) throw new Error("[agent-serve] [storage] the durable-object driver is closed");
  };
  /** One write in its own transaction; conflicts and database failures reject. */
  const write = (op: WriteOp): unknown => {
    open();
    let result;
    try {
      result = storage.transactionSync(() => applyEach(st, [op]))[0]!;
    } catch (error) {
      throw unavailable(error, "write");
    }
    if (!result.ok) throw outer(result.error);
    return result.value;
  };
  const commit = (batch: CommitBatch): number[] => {
    assertBatch(batch);
    const appends = batch.appends ?? [];
    const firsts = write({
      kind: "commit",
      batch: {
        records: (batch.records ?? []).map((record) => ({ ...record, key: inner(record.key) })),
        appends: appends.map((append) => ({ ...append, log: inner(append.log), lines: [...append.lines] })),
      },
    }) as number[];
    // Durable at this point (the output gate holds every answer until it is): followers may see it.
    appends.forEach((append, i) => followers.publish(append.log, firsts[i]!, [...append.lines]));
    return firsts;
  };
  const read = <T>(run: () => T): T => {
    open();
    try {
      return run();
    } catch (error) {
      throw unavailable(error, "read");
    }
  };
  const range = (prefix: string): [string, string] => [inner(prefix), `${inner(prefix)}\u007f`];
  const strip = (key: string): string => key.slice(ns.length);
  /** A conflict names the caller's key or log, not the namespaced one. */
  const outer = (error: unknown): unknown => {
    if (RecordConflictError.isError(error)) return new RecordConflictError(strip(error.key));
    if (LogConflictError.isError(error)) return new LogConflictError(strip(error.log), error.expectedIndex, error.actualIndex);
    return error;
  };

  return {
    name: "durable-object",
    capabilities: { durable: true, follow: "process", sharedLeases: true },
    async commit(batch) {
      return commit(batch);
    },
    follow(log, listener) {
      assertKey(log);
      return followers.add(log, listener);
    },
    async entries(prefix) {
      assertPrefix(prefix);
      const rows = read(() => st.entriesBetween.all(...range(prefix)));
      return rows.map((row) => [strip(String(row.key)), String(row.value)]);
    },
    async entriesPage(prefix, page) {
      assertPrefix(prefix);
      assertPage(page);
      const [from, to] = range(prefix);
      const after = page.after !== undefined && page.after >= prefix ? inner(page.after) : undefined;
      const rows = read(() => (after === undefined ? st.entriesPageFrom.all(from, to, page.limit) : st.entriesPageAfter.all(after, to, page.limit)));
      return rows.map((row) => [strip(String(row.key)), String(row.value)]);
    },
    async get(key) {
      assertKey(key);
      const row = read(() => st.getRecord.get(inner(key)));
      return row ? String(row.value) : undefined;
    },
    async set(key, value) {
      commit({ records: [{ key, value }] });
    },
    async delete(key) {
      commit({ records: [{ key, value: null }] });
    },
    async list(prefix) {
      assertPrefix(prefix);
      return read(() => st.keysBetween.all(...range(prefix))).map((row) => strip(String(row.key)));
    },
    async append(log, lines, expectedIndex) {
      return commit({ appends: [{ log, lines, ...(expectedIndex === undefined ? {} : { expectedIndex }) }] })[0]!;
    },
    async length(log) {
      assertKey(log);
      return read(() => st.length(inner(log)));
    },
    read(log, from = 0, to) {
      // The end is taken now, when read is called, not when iteration starts.
      let end: number | undefined;
      let failure: unknown;
      try {
        assertKey(log);
        end = to ?? read(() => st.length(inner(log)));
      } catch (error) {
        failure = error;
      }
      return (async function* () {
        if (failure !== undefined) throw failure;
        for (let at = Math.max(0, from); at < end!; at += READ_BATCH) {
          const upTo = Math.min(end!, at + READ_BATCH);
          const lines = read(() => st.readLines.all(inner(log), at, upTo)).map((row) => String(row.line));
          if (lines.length === 0) return;
          yield lines;
          if (lines.length < upTo - at) return;
        }
      })();
    },
    async deleteLog(log) {
      assertKey(log);
      write({ kind: "deleteLog", log: inner(log) });
    },
    async hasLog(log) {
      assertKey(log);
      return read(() => st.length(inner(log))) > 0;
    },
    async acquireLease(key, owner, ttlMs) {
      assertKey(key);
      assertLeaseOwner(owner);
      return write({ kind: "acquireLease", key: inner(key), owner, ttlMs }) as boolean;
    },
    async releaseLease(key, owner) {
      assertKey(key);
      assertLeaseOwner(owner);
      write({ kind: "releaseLease", key: inner(key), owner });
    },
    async leaseHolder(key) {
      assertKey(key);
      return read(() => leaseHolder(storage, key, options.namespace));
    },
    async close() {
      closed = true;
    },
  };
}

/** The owner of the lease `key` while it is held (not expired), for recovery's "is anyone running this". */
export function leaseHolder(storage: DurableObjectSqlStorage, key: string, namespace?: string): string | undefined {
  const rows = storage.sql
    .exec("SELECT owner, expires_at FROM leases WHERE key = ?", namespace === undefined ? key : `${namespace}/${key}`)
    .toArray() as SqliteRow[];
  const row = rows[0];
  return row && Number(row.expires_at) > Date.now() ? String(row.owner) : undefined;
}

// --- internals ---

/** The sqlite driver's statement shape over `sql.exec` (which has no prepared statements). */
function sqlDatabase(storage: DurableObjectSqlStorage): SqliteDatabase {
  const all = (query: string, params: SqliteValue[]): SqliteRow[] => storage.sql.exec(query, ...params).toArray() as SqliteRow[];
  return {
    exec(query) {
      storage.sql.exec(query).toArray();
    },
    prepare(query) {
      return {
        run: (...params) => all(query, params),
        get: (...params) => all(query, params)[0],
        all: (...params) => all(query, params),
      };
    },
    close() {},
  };
}

/** A full or failing database means "cannot take writes now" (docs/design/storage.md "Errors"). */
function unavailable(error: unknown, doing: string): unknown {
  if (!(error instanceof Error) || StorageUnavailableError.isError(error)) return error;
  if (/SQLITE_(FULL|IOERR|CORRUPT|READONLY)|disk is full|database size|exceeded/i.test(error.message)) {
    return new StorageUnavailableError(`[agent-serve] [storage] cannot ${doing}: ${error.message}`, { cause: error });
  }
  return error;
}
