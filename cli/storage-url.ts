/**
 * `--storage <url>` / `AGENT_SERVE_STORAGE`: which store a locally started host uses
 * (docs/guide/cli.md, `--storage`). The default is the sqlite file `state.db` in the state root.
 * @module
 */
import type { StorageChoice } from "../adapters/_storage.ts";
import { UsageError } from "./io.ts";

export type { StorageChoice };

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
