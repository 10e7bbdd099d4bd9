/**
 * The little of a synchronous SQLite binding the sqlite driver uses, so `node:sqlite` (Node, Deno)
 * and `bun:sqlite` (Bun) plug in behind one shape.
 * @module
 */

export type SqliteValue = string | number | bigint | null;
export type SqliteRow = Record<string, SqliteValue>;

export interface SqliteStatement {
  run(...params: SqliteValue[]): unknown;
  /** The first row, or `undefined`/`null` when there is none. */
  get(...params: SqliteValue[]): SqliteRow | undefined | null;
  all(...params: SqliteValue[]): SqliteRow[];
}

export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/**
 * Opens (creating unless `readOnly`) the database file at `path`. `immutable`: the file cannot
 * change while open (a read-only file system), so SQLite needs no `-shm` file beside it.
 */
export type OpenSqlite = (path: string, options: { readOnly: boolean; immutable?: boolean }) => SqliteDatabase;

interface NodeSqliteModule {
  DatabaseSync: new (path: string | URL, options?: { readOnly?: boolean }) => SqliteDatabase;
}

/**
 * `node:sqlite` (Node 22.13+, Deno), loaded when first used so that importing the driver on a
 * runtime without it fails only if no other binding is given.
 */
export const openNodeSqlite: OpenSqlite = (path, options) => {
  const loader = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const module = loader?.("node:sqlite") as NodeSqliteModule | undefined;
  if (!module) throw new Error("[agent-serve] [storage] node:sqlite is not available in this runtime; pass `open` to createSqliteStorage");
  if (!options.immutable) return new module.DatabaseSync(path, { readOnly: options.readOnly });
  // A `file:` URL carries SQLite's `immutable` parameter.
  const url = new URL(`file://${path.split("/").map(encodeURIComponent).join("/")}`);
  url.searchParams.set("immutable", "1");
  return new module.DatabaseSync(url, { readOnly: true });
};
