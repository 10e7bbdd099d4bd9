/**
 * The store of each mount a composition root creates (docs/guide/cli.md, `--storage`): the sqlite
 * file `state.db` in the mount's state root by default, another sqlite file, memory, Redis or
 * Postgres.
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { createPostgresStorage } from "../drivers/postgres/index.ts";
import { createRedisStorage } from "../drivers/redis/index.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { OpenSqlite } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";

/**
 * Which store the mounts use: sqlite (`path` absent: `<state root>/state.db`), memory, Redis
 * (`url` without the prefix; `prefix` absent: `agent-serve:`) or Postgres (`url` without the
 * driver's own options; `schema` absent: `agent_serve`, `namespace` absent: `default`).
 */
export type StorageChoice =
  | { kind: "sqlite"; path?: string }
  | { kind: "memory" }
  | { kind: "redis"; url: string; prefix?: string }
  | { kind: "postgres"; url: string; schema?: string; namespace?: string };

/** The key prefix of a Redis store when the URL names none. */
export const DEFAULT_REDIS_PREFIX = "agent-serve:";

/**
 * The store of one mount. An explicit sqlite path serves single mode as given; in multi mode each
 * agent gets its own file in a folder named after its slug beside it (`/data/state.db` →
 * `/data/<slug>/state.db`), as the state root does. `open` is the runtime's SQLite binding. On
 * Redis each agent of a multi-agent host gets its own key prefix (`agent-serve:<slug>:`) in the
 * same way, and on Postgres its own namespace (`default/<slug>`) in the one schema; the Redis and
 * Postgres clients are loaded only when such a store is opened.
 */
export function openStorage(
  choice: StorageChoice,
  input: { stateRoot: string; mode: "multi" | "single"; slug: string; cwd: string; open?: OpenSqlite },
): StorageDriver {
  if (choice.kind === "memory") return createMemoryStorage();
  if (choice.kind === "redis") {
    const prefix = choice.prefix ?? DEFAULT_REDIS_PREFIX;
    return createRedisStorage({ url: choice.url, prefix: input.mode === "single" ? prefix : `${prefix}${input.slug}:` });
  }
  if (choice.kind === "postgres") {
    const namespace = choice.namespace ?? "default";
    return createPostgresStorage({
      url: choice.url,
      ...(choice.schema ? { schema: choice.schema } : {}),
      namespace: input.mode === "single" ? namespace : `${namespace}/${input.slug}`,
    });
  }
  const binding = input.open ? { open: input.open } : {};
  if (choice.path === undefined) return createSqliteStorage({ path: join(input.stateRoot, "state.db"), ...binding });
  const path = resolve(input.cwd, choice.path);
  return createSqliteStorage({ path: input.mode === "single" ? path : join(dirname(path), input.slug, basename(path)), ...binding });
}

/**
 * Opens each mount's store once and lends it to every host created over it, so the hosts of a
 * `dev` loop share one store per mount and the streams that follow it (docs/design/dev-reload.md).
 * A lent store's `close()` does nothing: the pool's owner closes the stores once, at the end.
 */
export interface StoragePool {
  /** The store under `key`, opened by `open` the first time. */
  lend(key: string, open: () => StorageDriver): StorageDriver;
  close(): Promise<void>;
}

export function createStoragePool(): StoragePool {
  const stores = new Map<string, { driver: StorageDriver; lent: StorageDriver }>();
  return {
    lend(key, open) {
      let entry = stores.get(key);
      if (!entry) {
        const driver = open();
        stores.set(key, (entry = { driver, lent: lendable(driver) }));
      }
      return entry.lent;
    },
    async close() {
      const drivers = [...stores.values()].map(({ driver }) => driver);
      stores.clear();
      await Promise.all(drivers.map((driver) => driver.close()));
    },
  };
}

// --- internals ---

/** The driver with a `close()` that leaves it open; methods stay bound to the driver's own fields. */
function lendable(driver: StorageDriver): StorageDriver {
  return new Proxy(driver, {
    get(target, property) {
      if (property === "close") return async () => {};
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
