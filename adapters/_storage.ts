/**
 * The store of each mount a composition root creates (docs/guide/cli.md, `--storage`): the sqlite
 * file `state.db` in the mount's state root by default, another sqlite file, memory, or Redis.
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { createRedisStorage } from "../drivers/redis/index.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { OpenSqlite } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/storage/memory.ts";
import type { StorageDriver } from "../src/storage/types.ts";

/**
 * Which store the mounts use: sqlite (`path` absent: `<state root>/state.db`), memory, or Redis
 * (`url` without the prefix; `prefix` absent: `agent-serve:`).
 */
export type StorageChoice = { kind: "sqlite"; path?: string } | { kind: "memory" } | { kind: "redis"; url: string; prefix?: string };

/** The key prefix of a Redis store when the URL names none. */
export const DEFAULT_REDIS_PREFIX = "agent-serve:";

/**
 * The store of one mount. An explicit sqlite path serves single mode as given; in multi mode each
 * agent gets its own file in a folder named after its slug beside it (`/data/state.db` →
 * `/data/<slug>/state.db`), as the state root does. `open` is the runtime's SQLite binding. On
 * Redis each agent of a multi-agent host gets its own key prefix (`agent-serve:<slug>:`) in the
 * same way; the Redis client is loaded only when a Redis store is opened.
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
  const binding = input.open ? { open: input.open } : {};
  if (choice.path === undefined) return createSqliteStorage({ path: join(input.stateRoot, "state.db"), ...binding });
  const path = resolve(input.cwd, choice.path);
  return createSqliteStorage({ path: input.mode === "single" ? path : join(dirname(path), input.slug, basename(path)), ...binding });
}
