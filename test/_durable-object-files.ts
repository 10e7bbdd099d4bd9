/**
 * Reads what workerd persisted for each Durable Object (one SQLite file per object under
 * Miniflare's `durableObjectsPersist` folder), to check where a session's data lives.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** The SQLite files of every Durable Object persisted under `dir`. */
export async function objectDatabases(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith(".sqlite")).map((entry) => join(entry.parentPath, entry.name));
}

/** The storage driver's log names in one object's database (`<slug>/<log>`). */
export function logsIn(file: string): string[] {
  return query(file, "SELECT DISTINCT log FROM logs").map((row) => String(row["log"]));
}

/** The storage driver's record keys in one object's database (`<slug>/<key>`). */
export function recordsIn(file: string): string[] {
  return query(file, "SELECT key FROM records").map((row) => String(row["key"]));
}

/** The events of a session, read from whichever object's database holds its log. */
export async function eventsOnDisk(dir: string, slug: string, sessionId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const log = `${slug}/sessions/${sessionId}/events`;
  for (const file of await objectDatabases(dir)) {
    const rows = query(file, "SELECT line FROM logs WHERE log = ? ORDER BY idx", log);
    if (rows.length > 0) return rows.map((row) => JSON.parse(String(row["line"])) as { type: string; data: Record<string, unknown> });
  }
  return [];
}

function query(file: string, sql: string, ...params: string[]): Array<Record<string, unknown>> {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(sql).all(...params) as Array<Record<string, unknown>>;
  } catch {
    // An object whose driver never created its tables (an object that stores nothing else).
    return [];
  } finally {
    db.close();
  }
}
