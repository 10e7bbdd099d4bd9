/**
 * `ctx.host.kv` and the agent config's `kv`: a key-value service over the agent's storage or any
 * unstorage driver (docs/guide/agent-projects.md).
 * @module
 */
export interface KvPutOptions {
  /** Seconds until the entry expires (a positive number). @default never */
  ttlSeconds?: number;
}

/** Keys are any non-empty strings up to 256 characters; `a/b` and `a:b` are two keys. */
export interface KvFacade {
  /** The stored value, or `undefined` when absent or expired. */
  get<T extends JsonValue = JsonValue>(key: string): Promise<T | undefined>;
  /** Stores a JSON value (objects, arrays, strings, finite numbers, booleans, null). */
  put(key: string, value: JsonValue, options?: KvPutOptions): Promise<void>;
  delete(key: string): Promise<void>;
  /** Keys starting with `prefix` (any string prefix), sorted; expired entries are left out. */
  list(prefix?: string): Promise<string[]>;
}

/**
 * The unstorage `Storage` methods `ctx.host.kv` offers besides the facade. Declared here rather
 * than imported, so the published types do not pull every unstorage driver's declarations (and
 * their optional peers) into a user's type check (docs/design/packaging.md).
 */
import type { JsonValue } from "../ports/model.ts";
export interface KvStorage {
  hasItem(key: string, options?: Record<string, unknown>): Promise<boolean>;
  getItem<T = unknown>(key: string, options?: Record<string, unknown>): Promise<T | null>;
  setItem(key: string, value: unknown, options?: Record<string, unknown>): Promise<void>;
  removeItem(key: string, options?: Record<string, unknown> | boolean): Promise<void>;
  getKeys(base?: string, options?: Record<string, unknown>): Promise<string[]>;
  getMeta(key: string, options?: Record<string, unknown> | boolean): Record<string, unknown> | Promise<Record<string, unknown>>;
  setMeta(key: string, value: Record<string, unknown>, options?: Record<string, unknown>): Promise<void>;
  removeMeta(key: string, options?: Record<string, unknown>): Promise<void>;
  clear(base?: string, options?: Record<string, unknown>): Promise<void>;
}

/** `ctx.host.kv`: an unstorage `Storage` plus the facade. */
export type HostKv = KvStorage & KvFacade;

/** An unstorage driver (`unstorage/drivers/*`), described by the members every driver has. */
export interface KvDriver {
  name?: string;
  hasItem(key: string, options: Record<string, unknown>): unknown;
  getItem(key: string, options?: Record<string, unknown>): unknown;
  getKeys(base: string, options: Record<string, unknown>): unknown;
}

/** Agent config `kv`: any unstorage driver replaces the host's storage. */
export interface KvConfig {
  driver?: KvDriver;
}
