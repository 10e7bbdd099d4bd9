/**
 * Decisions about timed work (has this slot fired? is this reminder due?) are read-modify-writes
 * of one stored record. They run under a storage lease, so two processes sharing a state root
 * never both decide to fire the same thing, and under an in-process lock, because a lease is
 * re-entrant for its owner.
 * @module
 */
import { KeyedLock } from "../keyed-lock.ts";
import type { StorageDriver } from "./types.ts";

/** Long enough for a few storage round trips; a crashed holder blocks the key at most this long. */
const LEASE_TTL_MS = 30_000;

export type Exclusive = <T>(key: string, work: () => Promise<T>, options?: { waitMs?: number }) => Promise<{ ok: true; value: T } | { ok: false }>;

/**
 * Runs `work` while holding the lease `key` for `owner`. Without `waitMs` a busy lease answers
 * `{ok: false}` at once (another process is deciding); with it, the lease is retried until then.
 */
export function createExclusive(storage: StorageDriver, owner: string): Exclusive {
  const lock = new KeyedLock();
  return (key, work, options = {}) =>
    lock.run(key, async () => {
      const deadline = Date.now() + (options.waitMs ?? 0);
      for (let attempt = 0; !(await storage.acquireLease(key, owner, LEASE_TTL_MS)); attempt++) {
        if (Date.now() >= deadline) return { ok: false as const };
        await new Promise((resolve) => setTimeout(resolve, Math.min(5 * (attempt + 1), 50)));
      }
      try {
        return { ok: true as const, value: await work() };
      } finally {
        await storage.releaseLease(key, owner).catch(() => {});
      }
    });
}
