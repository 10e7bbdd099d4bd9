/**
 * `ctx.host.kv`: the agent's durable JSON store (docs/design/agent-sdk-compatibility.md). It is
 * an unstorage `Storage` (so `getItem`, `setItem`, `getKeys` and the rest work) with the Agent
 * SDK's `get / put / delete / list` on top, which check keys and values and honour
 * `ttlSeconds` on every driver.
 *
 * Keys: the facade takes any non-empty string (`drafts/launch`, `user:42`) and escapes what
 * unstorage would rewrite (./unstorage-keys.ts), so `a/b` and `a:b` stay two entries on every
 * driver. The unstorage methods see the escaped keys.
 *
 * Expiry: unstorage 1.x passes `{ttl}` to drivers but implements no expiry itself, and most
 * drivers (memory, fs, this host's own) ignore it. So `put` also records `expiresAt` in the
 * entry's meta (`<key>$`), and `get` and `list` treat an expired entry as absent and delete it.
 * Drivers with native TTL (redis) get `ttl` as well and reclaim the space on their own.
 * @module
 */
import { createStorage } from "unstorage";
import type { Driver, Storage } from "unstorage";
import { createError } from "../../base/errors.ts";
import type { JsonValue } from "../../base/ports/model.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { storagePortDriver } from "./storage-port-driver.ts";
import { fromUnstorageKey, toUnstorageKey } from "./unstorage-keys.ts";
import type { HostKv, KvConfig, KvFacade } from "../../base/definitions/kv.ts";

/** Longest key `put` accepts, in characters. */
export const MAX_KV_KEY_LENGTH = 256;

/**
 * Creates an agent's kv: over `config.driver` when given, else over the agent's storage port.
 * @example
 * const kv = createHostKv({ storage: createMemoryStorage() });
 * await kv.put("user:42", { plan: "pro" }, { ttlSeconds: 3600 });
 */
export function createHostKv(options: { storage: StorageDriver; config?: KvConfig; now?: () => number }): HostKv {
  const now = options.now ?? Date.now;
  // SAFETY: `KvDriver` describes unstorage's `Driver` by its required members (see KvStorage).
  const driver = (options.config?.driver as Driver | undefined) ?? storagePortDriver({ storage: options.storage });
  const storage: Storage = createStorage({ driver });
  const expired = async (key: string): Promise<boolean> => {
    const meta = await storage.getMeta(key);
    if (typeof meta.expiresAt !== "number" || meta.expiresAt > now()) return false;
    await storage.removeItem(key, { removeMeta: true });
    return true;
  };
  const facade: KvFacade = {
    async get<T extends JsonValue = JsonValue>(key: string): Promise<T | undefined> {
      const stored = storedKey(key);
      if (await expired(stored)) return undefined;
      const value = await storage.getItem(stored);
      // SAFETY: `put` stores JSON text only; unstorage parses it back (a missing entry is null).
      return value === null && !(await storage.hasItem(stored)) ? undefined : (value as T);
    },
    async put(key, value, putOptions = {}) {
      const stored = storedKey(key);
      const text = jsonText(key, value);
      const ttl = putOptions.ttlSeconds;
      if (ttl !== undefined && !(typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0)) {
        throw createError("kv", `ttlSeconds must be a positive number of seconds (got ${JSON.stringify(ttl)})`);
      }
      // Always the JSON text, so a string such as "123" reads back as a string, not a number.
      await storage.setItem(stored, text, ttl === undefined ? {} : { ttl: Math.ceil(ttl) });
      if (ttl === undefined) await storage.removeMeta(stored);
      else await storage.setMeta(stored, { expiresAt: now() + ttl * 1000 }, { ttl: Math.ceil(ttl) });
    },
    async delete(key) {
      await storage.removeItem(storedKey(key), { removeMeta: true });
    },
    async list(prefix = "") {
      if (typeof prefix !== "string") throw createError("kv", "list(prefix) takes a string prefix");
      // Every key, then the prefix on the facade's keys: `drafts/` and `drafts:` are escaped
      // differently, and one prefix such as `drafts` covers both.
      const keys = (await storage.getKeys())
        .map((stored) => ({ stored, key: fromUnstorageKey(stored) }))
        .filter(({ key }) => key.startsWith(prefix))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const live: string[] = [];
      for (const { stored, key } of keys) if (!(await expired(stored))) live.push(key);
      return live;
    },
  };
  return Object.assign(storage, facade);
}

// --- internals ---

/** The unstorage key of a facade key, after checking it is one. */
function storedKey(key: unknown): string {
  if (typeof key !== "string" || key.length === 0) throw invalidKey(key, "keys are non-empty strings");
  if (key.length > MAX_KV_KEY_LENGTH) throw invalidKey(key, `keys are at most ${MAX_KV_KEY_LENGTH} characters`);
  return toUnstorageKey(key);
}

function invalidKey(key: unknown, problem: string): Error {
  return createError("kv", `invalid key ${JSON.stringify(key)}: ${problem}`);
}

function jsonText(key: string, value: unknown): string {
  const path = nonJsonPath(value, "value");
  if (path !== undefined) {
    throw createError("kv", `put(${JSON.stringify(key)}): ${path} is not JSON (objects, arrays, strings, finite numbers, booleans and null only)`);
  }
  return JSON.stringify(value);
}

/** The path of the first member that is not plain JSON, or `undefined`. */
function nonJsonPath(value: unknown, path: string, seen = new Set<unknown>()): string | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : path;
  if (typeof value !== "object") return path;
  if (seen.has(value)) return `${path} (a cycle)`;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonJsonPath(value[i], `${path}[${i}]`, seen);
      if (found) return found;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return path;
  for (const [member, inner] of Object.entries(value)) {
    const found = nonJsonPath(inner, `${path}.${member}`, seen);
    if (found) return found;
  }
  return undefined;
}
