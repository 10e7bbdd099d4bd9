/**
 * Where the sqlite driver's write transactions run: on a writer thread (the default with
 * `node:sqlite`), or inline on the event loop (any other binding, e.g. `bun:sqlite`).
 * @module
 */
import { Worker } from "node:worker_threads";
import type { WriterSettings } from "./configure.ts";
import type { SqliteDatabase } from "./database.ts";
import { applyGroup, type OpResult, Statements, type WriteOp } from "./schema.ts";
import { decodeError, type WireError } from "./wire.ts";

export interface Writer {
  /** Applies `ops` in one transaction; rejects with the database's error when the whole group failed. */
  run(ops: WriteOp[]): Promise<OpResult[]>;
  /** How long (ms) the last transaction that succeeded took where it ran, its sync included. */
  readonly lastMs: number;
  close(): Promise<void>;
}

/** Runs each group synchronously on the calling thread (the disk sync included). */
export function inlineWriter(db: SqliteDatabase): Writer {
  const statements = new Statements(db);
  let lastMs = 0;
  return {
    async run(ops) {
      const started = performance.now();
      const results = applyGroup(db, statements, ops);
      lastMs = performance.now() - started;
      return results;
    },
    get lastMs() {
      return lastMs;
    },
    async close() {},
  };
}

type Reply = { id: number; ms: number; results: Array<OpResult | { ok: false; error: WireError }> } | { id: number; error: WireError };

/**
 * Runs each group on a worker thread with its own connection. The thread is referenced only while
 * a group is in flight, so an idle store never keeps the process alive.
 */
export function threadWriter(path: string, settings: WriterSettings): Writer {
  // From a checkout the thread runs the TypeScript source; the installed package runs the build.
  const script = import.meta.url.endsWith(".ts") ? "./writer-worker.ts" : "./writer-worker.js";
  const worker = new Worker(new URL(script, import.meta.url), { workerData: { path, settings } });
  worker.unref();
  const waiting = new Map<number, { resolve: (results: OpResult[]) => void; reject: (error: unknown) => void }>();
  let nextId = 0;
  let lastMs = 0;
  let dead: Error | undefined;
  let exited: Promise<void> = new Promise((resolve) => worker.on("exit", () => resolve()));
  const failAll = (error: Error) => {
    dead ??= error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  worker.on("message", (reply: Reply) => {
    const entry = waiting.get(reply.id);
    if (!entry) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) worker.unref();
    if ("error" in reply) entry.reject(decodeError(reply.error));
    else {
      lastMs = reply.ms;
      entry.resolve(reply.results.map((r) => (r.ok ? r : { ok: false, error: decodeError(r.error as WireError) })));
    }
  });
  worker.on("error", (error) => failAll(error));
  exited = exited.then(() => failAll(new Error("[agent-serve] [storage] the sqlite writer thread stopped")));
  return {
    run(ops) {
      if (dead) return Promise.reject(dead);
      const id = nextId++;
      worker.ref();
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, ops });
      });
    },
    get lastMs() {
      return lastMs;
    },
    async close() {
      // Referenced until it has exited: closing must not let the process end with the file open.
      worker.ref();
      if (!dead) worker.postMessage({ close: true });
      await exited;
    },
  };
}
