/**
 * The embedded file-system storage driver, the default under `--state-root`.
 *
 * Layout under `root` (see docs/design/storage.md):
 * - record `a/b/c` → `a/b/c.json`, replaced atomically (temp file + `rename`);
 * - log `a/b/c` → `a/b/c.ndjson`, one line per entry, written with real appends;
 * - lease `a/b/c` → `.leases/a__b__c.lock`.
 *
 * Every key passes `assertKey` before it becomes a path, so no key can leave `root`.
 *
 * @example
 * import { createFsStorage } from "agent-serve/storage/fs";
 * const storage = createFsStorage({ root: ".agent-serve" });
 * await storage.append("sessions/s1/events", ['{"type":"turn.started"}']);
 * await storage.close();
 * @module
 */

import { readdir, readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { assertKey, assertPrefix, type StorageDriver } from "../../src/storage/types.ts";
import { guarded, isMissing, toStorageError, hasCode, writeFileAtomic } from "./_fs.ts";
import { createLeases } from "./leases.ts";
import { createLogStore } from "./log-store.ts";

export interface FsStorageOptions {
  /** Directory that holds everything; created lazily on the first write. */
  root: string;
  /**
   * Durability policy for log appends and record writes.
   *
   * - `"always"`: an `append` resolves only after its bytes are on stable storage, so an
   *   acknowledged event survives a power loss. Appends to one log that arrive while a write is
   *   in flight are group-committed: one `write` and one sync for the whole group (the log is
   *   opened `O_DSYNC`, which is `write` + `fdatasync` in one call; `fdatasync` where the
   *   platform lacks the flag). Records and leases are fsynced before their `rename`, and the
   *   directory after it.
   * - `"never"`: an `append` resolves once its bytes are handed to the OS (`write` returned):
   *   they survive a crash of this process but may be lost on power loss or kernel crash.
   *
   * @default "always"
   */
  fsync?: "always" | "never";
  /**
   * Log files kept open (an LRU of append handles). Idle logs beyond this are closed and
   * re-opened (with one scan of the file) when used again.
   * @default 256
   */
  maxOpenLogs?: number;
}

/**
 * Creates the file-system driver. Several processes may share one `root`: leases are lock
 * files, and each log re-reads the file's size before every write, so a process that takes over
 * a session's lease continues its logs where the previous holder stopped. Writers to one log
 * must be serialized by a lease; the driver does not lock appends across processes.
 */
export function createFsStorage(options: FsStorageOptions): StorageDriver {
  const root = resolve(options.root);
  const sync = (options.fsync ?? "always") === "always";
  const recordPath = (key: string) => join(root, `${key}.json`);
  const logs = createLogStore({
    pathOf: (log) => join(root, `${log}.ndjson`),
    sync,
    maxOpenLogs: options.maxOpenLogs ?? 256,
  });
  const leases = createLeases(root, sync);

  const driver: StorageDriver = {
    name: "fs",

    async get(key) {
      assertKey(key);
      try {
        return await readFile(recordPath(key), "utf8");
      } catch (error) {
        if (isMissing(error) || hasCode(error, "EISDIR")) return undefined;
        throw error;
      }
    },
    async set(key, value) {
      assertKey(key);
      if (typeof value !== "string") throw new TypeError("[agent-serve] [storage] a value must be a string");
      await writeFileAtomic(recordPath(key), value, sync);
    },
    async delete(key) {
      assertKey(key);
      await rm(recordPath(key), { force: true }).catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      });
    },
    async list(prefix) {
      assertPrefix(prefix);
      // Only the directory the prefix names is walked: `sessions/` never reads `channels/`.
      const cut = prefix.lastIndexOf("/") + 1;
      const keys: string[] = [];
      await collectKeys(join(root, prefix.slice(0, cut)), prefix.slice(0, cut), prefix.slice(cut), keys);
      return keys.filter((key) => key.startsWith(prefix)).sort();
    },

    append: logs.append,
    length: logs.length,
    read: logs.read,
    deleteLog: logs.deleteLog,
    hasLog: logs.hasLog,

    acquireLease: leases.acquire,
    releaseLease: leases.release,

    close: logs.close,
  };
  return withOutageErrors(driver);
}

// --- internals ---

const RECORD_SUFFIX = ".json";
const SEGMENT = /^[A-Za-z0-9_.-]+$/;

/** Adds the record keys under `dir` whose first name starts with `namePrefix`. */
async function collectKeys(dir: string, keyPrefix: string, namePrefix: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  await Promise.all(
    entries.map(async (entry) => {
      if (!entry.name.startsWith(namePrefix)) return;
      if (entry.isDirectory()) {
        await collectKeys(join(dir, entry.name), `${keyPrefix}${entry.name}/`, "", out);
        return;
      }
      // Logs (`.ndjson`), temp files (`.tmp`) and locks (`.lock`) are not records.
      if (!entry.isFile() || !entry.name.endsWith(RECORD_SUFFIX)) return;
      const name = entry.name.slice(0, -RECORD_SUFFIX.length);
      if (SEGMENT.test(name) && name !== "." && name !== "..") out.push(`${keyPrefix}${name}`);
    }),
  );
}

/**
 * A full disk, a read-only root or an I/O error surfaces as `StorageUnavailableError` from every
 * call that can meet one (docs/design/faults.md), so the core answers 503, not 500.
 */
function withOutageErrors(driver: StorageDriver): StorageDriver {
  return {
    ...driver,
    get: (key) => guarded(() => driver.get(key)),
    set: (key, value) => guarded(() => driver.set(key, value)),
    delete: (key) => guarded(() => driver.delete(key)),
    list: (prefix) => guarded(() => driver.list(prefix)),
    append: (log, lines, expectedIndex) => guarded(() => driver.append(log, lines, expectedIndex)),
    length: (log) => guarded(() => driver.length(log)),
    hasLog: (log) => guarded(() => driver.hasLog(log)),
    deleteLog: (log) => guarded(() => driver.deleteLog(log)),
    acquireLease: (key, owner, ttlMs) => guarded(() => driver.acquireLease(key, owner, ttlMs)),
    releaseLease: (key, owner) => guarded(() => driver.releaseLease(key, owner)),
    read: (log, from, to) => guardedRead(driver.read(log, from, to)),
  };
}

async function* guardedRead(lines: AsyncIterable<string[]>): AsyncGenerator<string[]> {
  try {
    yield* lines;
  } catch (error) {
    throw toStorageError(error);
  }
}
