/**
 * Leases shared by every process that uses the same state root, as lock files.
 *
 * `<root>/.leases/<key with "/" replaced by "__">.lock` holds `{"owner", "expiresAt"}`. A free
 * lease is taken by creating the file with `O_EXCL` (`wx`), which exactly one process can do.
 * Every change to an existing lock file (renewal, takeover of an expired lease, release) happens
 * while holding a short guard file (`<lock>.guard`, also created with `O_EXCL`), so two processes
 * can never both take over the same expired lease: the second one sees the first one's lock.
 * @module
 */

import { readFile, rm, stat } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { join } from "node:path";
import { assertKey } from "../../src/storage/types.ts";
import { hasCode, isMissing, writeFileAtomic, writeFileExclusive } from "./_fs.ts";

/** How long to wait for another process's guard before answering "not acquired". */
const GUARD_WAIT_MS = 2_000;
/**
 * A guard or an unreadable lock this old belongs to a process that died in the middle of a
 * few-millisecond critical section, and is broken.
 */
const STALE_MS = 10_000;

export interface Leases {
  acquire(key: string, owner: string, ttlMs: number): Promise<boolean>;
  release(key: string, owner: string): Promise<void>;
}

interface LeaseRecord {
  owner: string;
  expiresAt: number;
}

export function createLeases(root: string, sync: boolean): Leases {
  const dir = join(root, ".leases");
  // `/` → `__` is not injective (`a/b` and `a__b` share a file); sharing only makes the lock
  // coarser, never lets two owners hold one key.
  const pathOf = (key: string) => join(dir, `${key.replaceAll("/", "__")}.lock`);
  const recordFor = (owner: string, ttlMs: number) => JSON.stringify({ owner, expiresAt: Date.now() + ttlMs });

  return {
    async acquire(key, owner, ttlMs) {
      assertKey(key);
      if (typeof owner !== "string" || owner === "") throw new Error("[agent-serve] [storage] lease owner must be a non-empty string");
      const path = pathOf(key);
      if (await writeFileExclusive(path, recordFor(owner, ttlMs), sync)) return true;
      const taken = await withGuard(path, async () => {
        const current = await readLease(path);
        if (current === undefined) return writeFileExclusive(path, recordFor(owner, ttlMs), sync);
        if (current.owner !== owner && current.expiresAt > Date.now()) return false;
        await writeFileAtomic(path, recordFor(owner, ttlMs), sync);
        return (await readLease(path))?.owner === owner;
      });
      return taken ?? false;
    },

    async release(key, owner) {
      assertKey(key);
      const path = pathOf(key);
      if ((await readLease(path))?.owner !== owner) return;
      await withGuard(path, async () => {
        if ((await readLease(path))?.owner === owner) await rm(path, { force: true });
      });
    },
  };
}

// --- internals ---

/** The lock's record; undefined when there is no lock. */
async function readLease(path: string): Promise<LeaseRecord | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (isLeaseRecord(value)) return value;
  } catch {
    // Unparsable: see below.
  }
  // Just created with `wx` and not written yet, or left so by a crash at that instant: held
  // while young, expired once stale.
  const age = await ageOf(path);
  if (age === undefined) return undefined;
  return { owner: "", expiresAt: age > STALE_MS ? 0 : Number.POSITIVE_INFINITY };
}

function isLeaseRecord(value: unknown): value is LeaseRecord {
  return (
    typeof value === "object" &&
    value !== null &&
    "owner" in value &&
    typeof value.owner === "string" &&
    "expiresAt" in value &&
    typeof value.expiresAt === "number"
  );
}

/** Runs `task` while holding `<path>.guard`; undefined when the guard stayed busy too long. */
async function withGuard<T>(path: string, task: () => Promise<T>): Promise<T | undefined> {
  const guard = `${path}.guard`;
  const deadline = Date.now() + GUARD_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    if (await writeFileExclusive(guard, String(process.pid), false)) break;
    const age = await ageOf(guard);
    if (age !== undefined && age > STALE_MS) {
      await rm(guard, { force: true });
      continue;
    }
    if (Date.now() > deadline) return undefined;
    await delay(Math.min(1 + attempt, 20));
  }
  try {
    return await task();
  } finally {
    await rm(guard, { force: true });
  }
}

async function ageOf(path: string): Promise<number | undefined> {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch (error) {
    if (hasCode(error, "ENOENT")) return undefined;
    throw error;
  }
}
