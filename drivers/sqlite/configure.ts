/**
 * Connection settings of the sqlite driver, shared by the connection on the event loop and the
 * writer thread's.
 * @module
 */
import type { SqliteDatabase } from "./database.ts";
import { whileBusy } from "./busy.ts";
import { SCHEMA } from "./schema.ts";

/** How long a writer waits for another connection's (or process's) transaction before failing. */
const BUSY_TIMEOUT_MS = 10_000;

export function configureReader(db: SqliteDatabase): SqliteDatabase {
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

export interface WriterSettings {
  maxBytes: number | undefined;
  sync: "full" | "normal";
}

/** WAL with `synchronous=FULL` (by default): a commit is on stable storage before it returns. */
export function configureWriter(db: SqliteDatabase, { maxBytes, sync }: WriterSettings): SqliteDatabase {
  // Set up (WAL, schema) under SQLite's own wait, and ours around it: processes opening a new file
  // at once both want to write it (switching it to WAL), and SQLite refuses one of them at once
  // instead of waiting (./busy.ts). Write transactions then wait in `begin` (schema.ts).
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.exec("PRAGMA page_size = 4096");
  whileBusy(() => db.exec("PRAGMA journal_mode = WAL"));
  db.exec(`PRAGMA synchronous = ${sync === "normal" ? "NORMAL" : "FULL"}`);
  whileBusy(() => db.exec(SCHEMA));
  if (maxBytes !== undefined) db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / 4096))}`);
  db.exec("PRAGMA busy_timeout = 0");
  return db;
}
