/**
 * An unstorage driver over the host's storage port, so `ctx.host.kv` is as durable and as shared
 * as the sessions by default (docs/design/agent-sdk-compatibility.md). Storage keys allow only
 * `[A-Za-z0-9_.-]` segments, so each unstorage key is encoded: characters outside
 * `[A-Za-z0-9_-]` become `.` and two hex digits per UTF-8 byte (`user:42` is `user.3A42`).
 * @module
 */
import { defineDriver } from "unstorage";
import type { Driver } from "unstorage";
import type { StorageDriver } from "../../base/storage/types.ts";
import { KV_STORAGE_PREFIX } from "../../base/storage/keys.ts";

/** Where kv records live in an agent's storage. */

/**
 * Creates the driver. It stores values as given (unstorage hands it strings); expiry is kept by
 * the kv facade in each entry's meta, as for any other driver.
 * @example
 * const kv = createStorage({ driver: storagePortDriver({ storage }) });
 */
export const storagePortDriver: (options: { storage: StorageDriver; prefix?: string }) => Driver = defineDriver(
  (options: { storage: StorageDriver; prefix?: string }) => {
    const { storage } = options;
    const prefix = `${options.prefix ?? KV_STORAGE_PREFIX}/`;
    const toKey = (key: string): string => `${prefix}${encodeKvKey(key)}`;
    const keys = async (base: string): Promise<string[]> =>
      (await storage.list(prefix)).map((key) => decodeKvKey(key.slice(prefix.length))).filter((key) => key.startsWith(base));
    return {
      name: "agent-serve-storage",
      options,
      async hasItem(key) {
        return (await storage.get(toKey(key))) !== undefined;
      },
      async getItem(key) {
        return (await storage.get(toKey(key))) ?? null;
      },
      async setItem(key, value) {
        await storage.set(toKey(key), value);
      },
      async removeItem(key) {
        await storage.delete(toKey(key));
      },
      getKeys: (base) => keys(base ?? ""),
      async clear(base) {
        for (const key of await keys(base ?? "")) await storage.delete(toKey(key));
      },
    };
  },
);

export function encodeKvKey(key: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(key)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9_-]/.test(char) ? char : `.${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function decodeKvKey(encoded: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    if (encoded[i] === ".") {
      bytes.push(Number.parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(encoded.charCodeAt(i));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
