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
  if (value.startsWith("redis://") || value.startsWith("rediss://")) return parseRedisUrl(value);
  throw new UsageError(`--storage must be sqlite:<path>, memory: or redis://host:port (got "${value}")`);
}

/**
 * `redis[s]://[user:pass@]host[:port][/db][?prefix=<key prefix>]`. The prefix is taken out here:
 * the rest goes to the Redis client as it is.
 */
function parseRedisUrl(value: string): StorageChoice {
  const bad = (why: string) => new UsageError(`--storage ${redact(value)}: ${why}; expected redis://[user:pass@]host:port[/db][?prefix=name:]`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad("not a URL");
  }
  if (url.hostname === "") throw bad("no host");
  if (!/^(\/\d{0,2})?$/.test(url.pathname)) throw bad("the database must be a number");
  const prefix = url.searchParams.get("prefix") ?? undefined;
  for (const name of url.searchParams.keys()) if (name !== "prefix") throw bad(`unknown option ${name}`);
  if (prefix === "") throw bad("an empty prefix");
  url.search = "";
  return { kind: "redis", url: url.toString(), ...(prefix === undefined ? {} : { prefix }) };
}

/** The URL without its password, for messages. */
function redact(value: string): string {
  return value.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}
