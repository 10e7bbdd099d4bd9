/**
 * Which interrupted turns a host on Workers closes when it starts (docs/design/cloudflare.md
 * "Recovery"). Every Durable Object runs its own host over the one shared store, so the core's
 * start-up recovery ("close every turn with an active marker") would close turns other objects
 * are running. This view of the storage narrows what recovery sees to turns that are certainly
 * dead: the turn lease is free (expired), or held by an earlier instance of this very object (a
 * Durable Object runs once at a time, so that instance is gone). A session object sees only its
 * own session and no eval runs (the coordinator runs those), and resumes channel delivery for its
 * own session only. The owners an object's hosts take turn leases as are remembered in its own
 * storage for this.
 * @module
 */
import type { StorageDriver } from "../../src/storage/types.ts";
import type { DurableObjectStorageLike } from "./platform.ts";

const OWNERS_KEY = "agent-serve:turn-lease-owners";
/** The prefix channel delivery lists its cursors under (`src/channels/delivery.ts`). */
const DELIVERY_CURSORS = /^channels\/[^/]+\/delivered\/$/;
/** Earlier instances remembered: far more than an object restarts within a lease's lifetime. */
const OWNERS_KEPT = 32;

export interface RecoveryScope {
  /** Who holds a lease now (undefined: nobody, or it expired). */
  leaseHolder(key: string): Promise<string | undefined>;
  /** Set in a session object: the one session it may recover. */
  onlySession?: string;
}

/** Loads the owners of earlier instances; call before the host is built. */
export async function loadEarlierOwners(storage: DurableObjectStorageLike): Promise<Set<string>> {
  return new Set((await storage.get<string[]>(OWNERS_KEY)) ?? []);
}

/** `driver` with recovery's start-up scans narrowed, remembering this instance's lease owners. */
export function scopeRecovery(driver: StorageDriver, storage: DurableObjectStorageLike, earlier: Set<string>, scope: RecoveryScope): StorageDriver {
  const mine = new Set<string>();
  const remember = (owner: string): void => {
    if (mine.has(owner)) return;
    mine.add(owner);
    const owners = [...earlier, ...mine].slice(-OWNERS_KEPT);
    void storage.put(OWNERS_KEY, owners).catch(() => {});
  };
  const recoverable = async (sessionId: string): Promise<boolean> => {
    const holder = await scope.leaseHolder(`turns/${sessionId}`);
    return holder === undefined || earlier.has(holder);
  };
  return {
    ...driver,
    async list(prefix) {
      const only = scope.onlySession;
      if (prefix === "eval-runs/" && only !== undefined) return [];
      // Channel delivery resumes at start for every session with a cursor: here only for its own.
      if (only !== undefined && DELIVERY_CURSORS.test(prefix)) return (await driver.list(prefix)).filter((key) => key === `${prefix}${only}`);
      if (prefix !== "active/") return driver.list(prefix);
      const candidates =
        scope.onlySession === undefined
          ? await driver.list(prefix)
          : (await driver.get(`active/${scope.onlySession}`)) === undefined
            ? []
            : [`active/${scope.onlySession}`];
      const kept: string[] = [];
      for (const key of candidates) if (await recoverable(key.slice("active/".length))) kept.push(key);
      return kept;
    },
    acquireLease(key, owner, ttlMs) {
      if (key.startsWith("turns/")) remember(owner);
      return driver.acquireLease(key, owner, ttlMs);
    },
  };
}

/**
 * Frees the turn leases earlier instances of this object held: they are dead, and their leases
 * would otherwise keep the session shut (and recovery waiting) until they expire.
 */
export async function releaseEarlierLeases(
  earlier: Set<string>,
  leases: Array<{ key: string; holder(key: string): Promise<string | undefined>; release(key: string, owner: string): Promise<void> }>,
): Promise<void> {
  for (const { key, holder, release } of leases) {
    const owner = await holder(key);
    if (owner !== undefined && earlier.has(owner)) await release(key, owner);
  }
}

