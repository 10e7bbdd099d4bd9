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
  if (value.startsWith("postgres://") || value.startsWith("postgresql://")) return parsePostgresUrl(value);
  throw new UsageError(`--storage must be sqlite:<path>, memory:, redis://host:port or postgres://host/db (got "${value}")`);
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

/**
 * `postgres[ql]://[user:pass@]host[:port]/database[?schema=<s>&namespace=<n>&sslmode=…]`. The
 * schema and namespace are the driver's (docs/guide/storage.md); every other option goes to the
 * client as it is.
 */
function parsePostgresUrl(value: string): StorageChoice {
  const bad = (why: string) => new UsageError(`--storage ${redact(value)}: ${why}; expected postgres://[user:pass@]host[:port]/database[?schema=name&namespace=name]`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad("not a URL");
  }
  if (url.hostname === "") throw bad("no host");
  if (!/^\/[^/]+$/.test(url.pathname)) throw bad("no database");
  const schema = url.searchParams.get("schema") ?? undefined;
  const namespace = url.searchParams.get("namespace") ?? undefined;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,39}$/.test(schema)) throw bad("the schema must be a lower-case identifier");
  if (namespace === "") throw bad("an empty namespace");
  url.searchParams.delete("schema");
  url.searchParams.delete("namespace");
  return { kind: "postgres", url: url.toString(), ...(schema === undefined ? {} : { schema }), ...(namespace === undefined ? {} : { namespace }) };
}

/** The URL without its password, for messages. */
function redact(value: string): string {
  return value.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}
