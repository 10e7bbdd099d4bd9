/**
 * The sqlite driver's tables and the one function that applies a group of writes in one
 * transaction. It touches only the database handle it is given, so it can run wherever that
 * handle lives (the event loop's thread, or a worker).
 * @module
 */
import { LogConflictError, RecordConflictError, type CommitBatch } from "../../src/base/storage/types.ts";
import { whileBusy } from "./busy.ts";
import type { SqliteDatabase, SqliteStatement } from "./database.ts";

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS logs (log TEXT NOT NULL, idx INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (log, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS leases (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
`;

/** A write the driver queues for the next group commit. */
export type WriteOp =
  | { kind: "commit"; batch: CommitBatch }
  | { kind: "deleteLog"; log: string }
  | { kind: "acquireLease"; key: string; owner: string; ttlMs: number }
  | { kind: "releaseLease"; key: string; owner: string };

export type OpResult = { ok: true; value: unknown } | { ok: false; error: unknown };

export class Statements {
  readonly getRecord: SqliteStatement;
  readonly putRecord: SqliteStatement;
  readonly deleteRecord: SqliteStatement;
  readonly keysFrom: SqliteStatement;
  readonly keysBetween: SqliteStatement;
  readonly entriesFrom: SqliteStatement;
  readonly entriesBetween: SqliteStatement;
  /**
   * `entriesPage` from the prefix's start (`>=`), or strictly after a key (`>`), below the
   * prefix's end: one lower bound each, since SQLite seeks by only one of two on the same column.
   */
  readonly entriesPageFrom: SqliteStatement;
  readonly entriesPageAfter: SqliteStatement;
  readonly logLength: SqliteStatement;
  readonly appendLine: SqliteStatement;
  readonly readLines: SqliteStatement;
  readonly deleteLog: SqliteStatement;
  readonly getLease: SqliteStatement;
  readonly putLease: SqliteStatement;
  readonly deleteLease: SqliteStatement;
  /** Prepared once: `exec` would parse the text again for every group. */
  readonly begin: SqliteStatement;
  readonly commit: SqliteStatement;

  constructor(db: SqliteDatabase) {
    this.getRecord = db.prepare("SELECT value FROM records WHERE key = ?");
    this.putRecord = db.prepare("INSERT INTO records (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    this.deleteRecord = db.prepare("DELETE FROM records WHERE key = ?");
    this.keysFrom = db.prepare("SELECT key FROM records WHERE key >= ? ORDER BY key");
    this.keysBetween = db.prepare("SELECT key FROM records WHERE key >= ? AND key < ? ORDER BY key");
    this.entriesFrom = db.prepare("SELECT key, value FROM records WHERE key >= ? ORDER BY key");
    this.entriesBetween = db.prepare("SELECT key, value FROM records WHERE key >= ? AND key < ? ORDER BY key");
    this.entriesPageFrom = db.prepare("SELECT key, value FROM records WHERE key >= ? AND key < ? ORDER BY key LIMIT ?");
    this.entriesPageAfter = db.prepare("SELECT key, value FROM records WHERE key > ? AND key < ? ORDER BY key LIMIT ?");
    this.logLength = db.prepare("SELECT coalesce(max(idx) + 1, 0) AS n FROM logs WHERE log = ?");
    this.appendLine = db.prepare("INSERT INTO logs (log, idx, line) VALUES (?, ?, ?)");
    this.readLines = db.prepare("SELECT line FROM logs WHERE log = ? AND idx >= ? AND idx < ? ORDER BY idx");
    this.deleteLog = db.prepare("DELETE FROM logs WHERE log = ?");
    this.getLease = db.prepare("SELECT owner, expires_at FROM leases WHERE key = ?");
    this.putLease = db.prepare(
      "INSERT INTO leases (key, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at",
    );
    this.deleteLease = db.prepare("DELETE FROM leases WHERE key = ? AND owner = ?");
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
  }

  length(log: string): number {
    return Number(this.logLength.get(log)?.n ?? 0);
  }
}

/**
 * Applies `ops` in one transaction. An op whose check fails (a stale `expected`/`expectedIndex`)
 * gets its error and writes nothing, the others commit; a failure of the database itself (disk
 * full, I/O error) rolls the whole group back and is thrown.
 */
export function applyGroup(db: SqliteDatabase, statements: Statements, ops: WriteOp[]): OpResult[] {
  begin(statements);
  try {
    const results = applyEach(statements, ops);
    statements.commit.run();
    return results;
  } catch (error) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // Already rolled back by SQLite (it does so itself after some I/O errors).
    }
    throw error;
  }
}

/**
 * Applies `ops` in order inside a transaction the caller holds (the Durable Object driver runs it
 * in `transactionSync`): an op whose check fails gets its error and writes nothing.
 */
export function applyEach(statements: Statements, ops: WriteOp[]): OpResult[] {
  return ops.map((op): OpResult => {
    try {
      return { ok: true, value: apply(statements, op) };
    } catch (error) {
      if (LogConflictError.isError(error) || RecordConflictError.isError(error)) return { ok: false, error };
      throw error;
    }
  });
}

// --- internals ---

/**
 * `BEGIN IMMEDIATE`, waiting for another process's write transaction in 1 ms steps (./busy.ts).
 * The connection's `busy_timeout` is 0 for this reason.
 */
function begin(statements: Statements): void {
  whileBusy(() => statements.begin.run());
}

/** Checks first, then writes: an op that fails its checks has written nothing. */
function apply(st: Statements, op: WriteOp): unknown {
  switch (op.kind) {
    case "commit": {
      const { records = [], appends = [] } = op.batch;
      for (const write of records) {
        if (write.expected === undefined) continue;
        const current = (st.getRecord.get(write.key)?.value as string | undefined) ?? null;
        if (current !== write.expected) throw new RecordConflictError(write.key);
      }
      const next = new Map<string, number>();
      const firsts = appends.map(({ log, lines, expectedIndex }) => {
        const index = next.get(log) ?? st.length(log);
        if (expectedIndex !== undefined && expectedIndex !== index) throw new LogConflictError(log, expectedIndex, index);
        next.set(log, index + lines.length);
        return index;
      });
      for (const write of records) {
        if (write.value === null) st.deleteRecord.run(write.key);
        else st.putRecord.run(write.key, write.value);
      }
      appends.forEach(({ log, lines }, i) => {
        for (const [offset, line] of lines.entries()) st.appendLine.run(log, firsts[i]! + offset, line);
      });
      for (const { key, owner } of op.batch.releases ?? []) st.deleteLease.run(key, owner);
      return firsts;
    }
    case "deleteLog":
      st.deleteLog.run(op.log);
      return undefined;
    case "acquireLease": {
      const now = Date.now();
      const current = st.getLease.get(op.key);
      if (current && current.owner !== op.owner && Number(current.expires_at) > now) return false;
      st.putLease.run(op.key, op.owner, now + op.ttlMs);
      return true;
    }
    case "releaseLease":
      st.deleteLease.run(op.key, op.owner);
      return undefined;
  }
}
