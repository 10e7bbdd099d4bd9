/**
 * The stores a crash point runs on, each as a factory of its durable state: `open()` gives the
 * driver a (new) process opens on that state, `dispose()` removes it. The memory store stands for
 * the durability model where a write that returned is kept; sqlite is the real file, reopened by
 * a new driver as a restarted process would (docs/reliability.md "Durability model").
 * @module
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "../../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../../src/base/storage/memory.ts";
import type { StorageDriver } from "../../src/base/storage/types.ts";

/**
 * Where the sqlite files live: a RAM-backed directory when there is one. A crash point is a
 * process crash, not a power loss, so what the database handed the kernel survives it either way;
 * the sync to the disk is what power loss would test, and it costs the sweep most of its time.
 */
function scratchRoot(): string {
  return process.env["CHAOS_DIR"] ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
}

export type StoreName = "memory" | "sqlite";

export interface StoreState {
  open(): StorageDriver;
  dispose(): void;
}

export function storeState(name: StoreName): StoreState {
  if (name === "memory") {
    const shared = createMemoryStorage();
    return { open: () => shared, dispose: () => {} };
  }
  const dir = mkdtempSync(join(scratchRoot(), "agent-serve-chaos-"));
  const path = join(dir, "state.db");
  return {
    // The writer thread is the served default; the sweep runs thousands of hosts, so it commits
    // inline (the same transactions and syncs, on the event loop: drivers/sqlite/writer.ts).
    open: () => createSqliteStorage({ path, writerThread: false }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
