/**
 * The sqlite driver's writer thread: it owns the connection that writes, applies each group of
 * writes it is sent in one transaction (synced before it answers) and answers with the results,
 * so the event loop never waits on a disk sync (docs/design/storage.md "sqlite driver").
 * @module
 */
import { parentPort, workerData } from "node:worker_threads";
import { openNodeSqlite } from "./database.ts";
import { configureWriter, type WriterSettings } from "./configure.ts";
import { applyGroup, Statements, type WriteOp } from "./schema.ts";
import { encodeError } from "./wire.ts";

// The main thread opened `node:sqlite` first and said (or, from the CLI, filtered) whether it is
// experimental; this thread's own load would print the same warning a second time.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const text = typeof warning === "string" ? warning : warning.message;
  if (text.startsWith("SQLite is an experimental feature")) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;

const { path, settings } = workerData as { path: string; settings: WriterSettings };
const port = parentPort!;
const db = openNodeSqlite(path, { readOnly: false });
let statements: Statements | undefined;
let failure: unknown;
try {
  configureWriter(db, settings);
  statements = new Statements(db);
} catch (error) {
  failure = error;
}

port.on("message", (message: { id: number; ops: WriteOp[] } | { close: true }) => {
  if ("close" in message) {
    db.close();
    port.close();
    return;
  }
  try {
    if (!statements) throw failure;
    const started = performance.now();
    const results = applyGroup(db, statements, message.ops);
    // How long the transaction took here, sync included: the driver's inline policy compares it
    // with its own inline commits (drivers/sqlite/inline-policy.ts).
    const ms = performance.now() - started;
    port.postMessage({ id: message.id, ms, results: results.map((r) => (r.ok ? r : { ok: false, error: encodeError(r.error) })) });
  } catch (error) {
    port.postMessage({ id: message.id, error: encodeError(error) });
  }
});
