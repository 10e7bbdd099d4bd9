/**
 * `--storage <url>` / `AGENT_SERVE_STORAGE`: which store a locally started host uses
 * (docs/guide/cli.md, `--storage`). The default is the sqlite file `state.db` in the state root.
 * @module
 */
import { dirname, basename, join, resolve } from "node:path";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/storage/memory.ts";
import type { StorageDriver } from "../src/storage/types.ts";
import { UsageError } from "./io.ts";

export type StorageChoice = { kind: "sqlite"; path?: string } | { kind: "memory" };

/** Parses a storage URL; `undefined` (no flag, no env) is the sqlite default. */
export function parseStorageUrl(value: string | undefined): StorageChoice {
  if (value === undefined || value === "") return { kind: "sqlite" };
  if (value === "memory:") return { kind: "memory" };
  if (value === "sqlite:") return { kind: "sqlite" };
  if (value.startsWith("sqlite:")) return { kind: "sqlite", path: value.slice("sqlite:".length) };
  if (value.startsWith("redis://") || value.startsWith("rediss://")) {
    throw new UsageError("--storage redis://… is not available yet in this version; use sqlite:<path> or memory:");
  }
  throw new UsageError(`--storage must be sqlite:<path>, memory: or redis://host:port (got "${value}")`);
}

/**
 * The store of one mount. An explicit sqlite path serves single mode as given; in multi mode each
 * agent gets its own file in a folder named after its slug beside it (`/data/state.db` →
 * `/data/<slug>/state.db`), as the state root does.
 */
export function openStorage(choice: StorageChoice, input: { stateRoot: string; mode: "multi" | "single"; slug: string; cwd: string }): StorageDriver {
  if (choice.kind === "memory") return createMemoryStorage();
  if (choice.path === undefined) return createSqliteStorage({ path: join(input.stateRoot, "state.db") });
  const path = resolve(input.cwd, choice.path);
  return createSqliteStorage({ path: input.mode === "single" ? path : join(dirname(path), input.slug, basename(path)) });
}
