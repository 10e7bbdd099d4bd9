/**
 * One turn at a time per session across every process sharing the store: while a process runs a
 * session's turn it holds the storage lease `turns/<sessionId>` (owner: that process's id),
 * renewed while the turn runs (docs/design/storage.md "Leases", docs/design/processes.md).
 * Another process admitting a message meanwhile forwards it to the holder, or gets 409
 * `session_busy`. The active marker names the owner, so recovery can release the lease of a
 * process that crashed.
 * @module
 */
import type { LeaseRelease, StorageDriver } from "../../base/storage/types.ts";
import { turnLeaseKey as leaseKey } from "../../base/storage/keys.ts";

/** How long a lease outlives a process that stopped renewing it. */
export const TURN_LEASE_TTL_MS = 30_000;


export class TurnLeases {
  readonly #storage: StorageDriver;
  /** This process's owner id. */
  readonly owner: string;
  /** How long a lease lives without renewal; the recovery sweep runs this often. */
  readonly ttlMs: number;

  constructor(storage: StorageDriver, owner: string, ttlMs = TURN_LEASE_TTL_MS) {
    this.#storage = storage;
    this.owner = owner;
    this.ttlMs = ttlMs;
  }

  /** Takes (or renews) the session's turn lease; false while another process holds it. */
  take(sessionId: string, owner = this.owner): Promise<boolean> {
    return this.#storage.acquireLease(leaseKey(sessionId), owner, this.ttlMs);
  }

  /**
   * Renews the lease every third of its ttl until the returned function is called. When a renewal
   * finds the lease held by someone else (this process stalled past the ttl and a neighbour's
   * recovery took the session over), `onLost` runs once and renewing stops: the turn must stop
   * writing, its end has been recorded by the recovery. `stillOurs` double-checks a renewal that
   * succeeded (the session's active marker still names this process).
   */
  keep(sessionId: string, onLost: () => void = () => {}, stillOurs: () => Promise<boolean> = async () => true): () => void {
    let stopped = false;
    const timer = setInterval(() => {
      // A lease released by a recovery and renewed here would look held: the marker says whose it is.
      this.#storage.acquireLease(leaseKey(sessionId), this.owner, this.ttlMs).then(
        async (held) => held && (await stillOurs()),
      ).then(
        (held) => {
          if (held || stopped) return;
          stopped = true;
          clearInterval(timer);
          onLost();
        },
        // A store that refuses the renewal now may take the next one; expiry decides otherwise.
        () => {},
      );
    }, this.ttlMs / 3);
    (timer as { unref?: () => void }).unref?.();
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }

  /**
   * This process's release of the session's lease as a write of another commit, where the store
   * applies it in the same transaction (`releasesInCommit`); undefined where it does not.
   */
  releaseWrite(sessionId: string): LeaseRelease | undefined {
    return this.#storage.capabilities.releasesInCommit === true ? { key: leaseKey(sessionId), owner: this.owner } : undefined;
  }

  /** Releases this process's lease on the session, or (recovery) the lease of `owner`. */
  async release(sessionId: string, owner = this.owner): Promise<void> {
    await this.#storage.releaseLease(leaseKey(sessionId), owner).catch(() => {});
  }
}
