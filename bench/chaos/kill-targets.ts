/**
 * What the real-process-death run (./kill.ts) kills on: the stores `serve` keeps its state in
 * (sqlite, a real `redis-server`, a real Postgres) and the runtimes it runs on (Node, Bun, Deno),
 * each reported as skipped, with the reason, when its tool is missing on the machine. One server
 * per store is shared by every lane; each lane gets its own key prefix (Redis) or namespace
 * (Postgres), so lanes never see each other's state (docs/guide/storage.md).
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPostgresStorage } from "../../drivers/postgres/index.ts";
import { createRedisStorage } from "../../drivers/redis/index.ts";
import { createSqliteStorage } from "../../drivers/sqlite/index.ts";
import type { StorageDriver } from "../../src/base/storage/types.ts";
import { POSTGRES_BIN, type PostgresServer, startPostgresServer } from "../../test/_postgres-server.ts";
import { REDIS_SERVER, type RedisServer, startRedisServer } from "../../test/_redis-server.ts";

export const KILL_STORES = ["sqlite", "redis", "postgres"] as const;
export const KILL_RUNTIMES = ["node", "bun", "deno"] as const;
export type KillStore = (typeof KILL_STORES)[number];
export type KillRuntime = (typeof KILL_RUNTIMES)[number];

/** Where one lane's state lives on a store: the `serve` arguments and environment, and a reader. */
export interface LaneState {
  /** Extra arguments of `serve` (`--storage <url>`), none for the default sqlite file. */
  args: string[];
  /** Extra environment of `serve`. */
  env: Record<string, string>;
  /** A driver on the same state, for the oracles to read what the processes left. */
  open(): StorageDriver;
}

export interface StoreTarget {
  name: KillStore;
  /** The state of one job, under its own folder (`dir`) and name (`id`). */
  lane(id: string, dir: string): LaneState;
  close(): Promise<void>;
}

/**
 * A shared store needs a short turn lease: a SIGKILLed process's turn is taken over only once its
 * lease expires (docs/design/processes.md), and each round restarts at once. Long enough that a
 * busy 2-core machine still renews it in time (every third of it).
 */
const SHARED_LEASE_MS = "2000";

/** Why the store cannot run here, or undefined when it can. */
export function storeMissing(name: KillStore): string | undefined {
  if (name === "redis" && !REDIS_SERVER) return "redis-server is not installed";
  if (name === "postgres" && !POSTGRES_BIN) return "the postgresql server is not installed";
  return undefined;
}

/** Starts the store's server (Redis and Postgres) with the durability their guide asks for. */
export async function startStore(name: KillStore): Promise<StoreTarget> {
  if (name === "sqlite") {
    return {
      name,
      lane: (_id, dir) => ({ args: [], env: {}, open: () => createSqliteStorage({ path: join(dir, ".state", "state.db"), readOnly: true }) }),
      close: async () => {},
    };
  }
  if (name === "redis") {
    // `appendonly yes` with `appendfsync always`, as docs/guide/storage.md asks where sessions must survive.
    const server: RedisServer = await startRedisServer({ fsync: "always" });
    return {
      name,
      lane: (id) => ({
        args: ["--storage", `${server.url}?prefix=chaos-${id}:`],
        env: { AGENT_SERVE_LEASE_TTL_MS: SHARED_LEASE_MS },
        open: () => createRedisStorage({ url: server.url, prefix: `chaos-${id}:` }),
      }),
      close: () => server.close(),
    };
  }
  const server: PostgresServer = await startPostgresServer({ fsync: true });
  return {
    name,
    lane: (id) => ({
      args: ["--storage", `${server.url}?namespace=chaos-${id}`],
      env: { AGENT_SERVE_LEASE_TTL_MS: SHARED_LEASE_MS },
      open: () => createPostgresStorage({ url: server.url, namespace: `chaos-${id}` }),
    }),
    close: () => server.close(),
  };
}

const BIN_DIR = fileURLToPath(new URL("../../node_modules/.bin", import.meta.url));

/** How a user runs the CLI on each runtime (README "Bun and Deno"). */
export function runtimeCommand(runtime: KillRuntime, script: string, args: string[]): [string, string[]] {
  if (runtime === "node") return [process.execPath, [script, ...args]];
  if (runtime === "bun") return [join(BIN_DIR, "bun"), [script, ...args]];
  return [join(BIN_DIR, "deno"), ["run", "-A", script, ...args]];
}

/** Why the runtime cannot run here, or undefined when it can. */
export function runtimeMissing(runtime: KillRuntime): string | undefined {
  if (runtime === "node") {
    // An older Node has bin/agent-serve.mjs start a newer one as its child: the SIGKILL would miss the server.
    const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
    return major > 22 || (major === 22 && minor >= 13) ? undefined : `this is Node ${process.version}; the CLI needs 22.13 or newer to serve in the process it starts`;
  }
  const file = join(BIN_DIR, runtime);
  if (!existsSync(file) || spawnSync(file, ["--version"]).status !== 0) return `${runtime} is not installed (node_modules/.bin/${runtime})`;
  return undefined;
}
