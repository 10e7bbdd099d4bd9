/**
 * The stores a crash point runs on, each as a factory of its durable state: `open()` gives the
 * driver a (new) process opens on that state, `dispose()` removes it. The memory store stands for
 * the durability model where a write that returned is kept; sqlite is the real file, reopened by
 * a new driver as a restarted process would; Redis and Postgres are real servers, one of each
 * started once per worker process, and a crash point's state is a key prefix (Redis) or a
 * namespace (Postgres) of its own that a new driver reopens (docs/reliability.md "Durability model").
 * @module
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPostgresStorage } from "../../drivers/postgres/index.ts";
import { createRedisStorage } from "../../drivers/redis/index.ts";
import { createSqliteStorage } from "../../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../../src/base/storage/memory.ts";
import type { StorageDriver } from "../../src/base/storage/types.ts";
import { POSTGRES_BIN, type PostgresServer, startPostgresServer } from "../../test/_postgres-server.ts";
import { REDIS_SERVER, type RedisServer, startRedisServer } from "../../test/_redis-server.ts";

export const STORES = ["memory", "sqlite", "redis", "postgres"] as const;
export type StoreName = (typeof STORES)[number];

export const isStoreName = (name: string): name is StoreName => (STORES as readonly string[]).includes(name);

/** Why a store cannot run on this machine (its server is not installed), or undefined when it can. */
export function storeMissing(name: StoreName): string | undefined {
  if (name === "redis" && !REDIS_SERVER) return "redis-server is not installed";
  if (name === "postgres" && !POSTGRES_BIN) return "the postgresql server is not installed";
  return undefined;
}

/**
 * Where the sqlite files live: a RAM-backed directory when there is one. A crash point is a
 * process crash, not a power loss, so what the database handed the kernel survives it either way;
 * the sync to the disk is what power loss would test, and it costs the sweep most of its time.
 */
function scratchRoot(): string {
  return process.env["CHAOS_DIR"] ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
}

export interface StoreState {
  open(): StorageDriver;
  dispose(): void;
}

/**
 * The servers of this process, started on first use. A crash point is the host's process dying,
 * not the server's: the server keeps running and keeps whatever reached it, so it runs without
 * syncs (they would only matter to a crash of the server itself).
 */
let redis: Promise<RedisServer> | undefined;
let postgres: Promise<PostgresServer> | undefined;
/** Each crash point's prefix or namespace: the process id and a counter, unique on one server. */
let states = 0;

/** Stops the servers this process started (a worker's last step, a test's `afterAll`). */
export async function stopServers(): Promise<void> {
  const started = [redis, postgres].filter((server) => server !== undefined);
  redis = undefined;
  postgres = undefined;
  await Promise.allSettled(started.map(async (server) => (await server).close()));
}

export async function storeState(name: StoreName): Promise<StoreState> {
  if (name === "memory") {
    const shared = createMemoryStorage();
    return { open: () => shared, dispose: () => {} };
  }
  if (name === "redis") {
    redis ??= startRedisServer();
    const { url } = await redis;
    const prefix = `chaos:${process.pid}:${++states}:`;
    return { open: () => createRedisStorage({ url, prefix }), dispose: () => {} };
  }
  if (name === "postgres") {
    postgres ??= startPostgresServer();
    const { url } = await postgres;
    // One schema per server (migrated once), a namespace per crash point: the driver's own
    // isolation between stores that share a schema (docs/design/storage.md "Postgres driver").
    const namespace = `chaos-${process.pid}-${++states}`;
    return { open: () => createPostgresStorage({ url, namespace }), dispose: () => {} };
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
