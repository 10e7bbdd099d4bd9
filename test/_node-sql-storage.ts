/**
 * `ctx.storage`'s SQL shape (`sql.exec`, `transactionSync`) over `node:sqlite`, so the Durable
 * Object drivers run in Node tests.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { DurableObjectSqlStorage } from "../drivers/durable-object/index.ts";
import type { SqliteValue } from "../drivers/sqlite/database.ts";

/** `ctx.storage`'s shape over one database (in memory unless given). */
export function nodeSqlStorage(db: DatabaseSync = new DatabaseSync(":memory:")): DurableObjectSqlStorage {
  return {
    sql: {
      exec: (query: string, ...bindings: SqliteValue[]) => {
        const rows = db.prepare(query).all(...bindings);
        return { toArray: () => rows };
      },
    },
    transactionSync<T>(fn: () => T): T {
      db.exec("BEGIN");
      try {
        const result = fn();
        db.exec("COMMIT");
        return result;
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    },
  };
}
