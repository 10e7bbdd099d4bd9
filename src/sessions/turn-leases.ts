/**
 * One turn at a time per session across every process sharing the store: while a process runs a
 * session's turn it holds the storage lease `turns/<sessionId>` (owner: that process's id),
 * renewed while the turn runs (docs/design/storage.md, "Leases"). Another process admitting a
 * message meanwhile gets 409 `session_busy`. The active marker names the owner, so recovery can
 * release the lease of a process that crashed.
 * @module
 */
import type { StorageDriver } from "../storage/types.ts";

/** How long a lease outlives a process that stopped renewing it. */
const TURN_LEASE_TTL_MS = 30_000;

const leaseKey = (sessionId: string): string => `turns/${sessionId}`;

export class TurnLeases {
  readonly #storage: StorageDriver;
  readonly #ttlMs: number;
  /** This process's owner id. */
  readonly owner: string;

  constructor(storage: StorageDriver, owner: string, ttlMs = TURN_LEASE_TTL_MS) {
    this.#storage = storage;
    this.owner = owner;
    this.#ttlMs = ttlMs;
  }

  /** Takes (or renews) the session's turn lease; false while another process holds it. */
  take(sessionId: string): Promise<boolean> {
    return this.#storage.acquireLease(leaseKey(sessionId), this.owner, this.#ttlMs);
  }

  /** Renews the lease until the returned function is called. */
  keep(sessionId: string): () => void {
    const timer = setInterval(() => {
      this.#storage.acquireLease(leaseKey(sessionId), this.owner, this.#ttlMs).catch(() => {});
    }, this.#ttlMs / 3);
    (timer as { unref?: () => void }).unref?.();
    return () => clearInterval(timer);
  }

  /** Releases this process's lease on the session, or (recovery) the lease of `owner`. */
  async release(sessionId: string, owner = this.owner): Promise<void> {
    await this.#storage.releaseLease(leaseKey(sessionId), owner).catch(() => {});
  }
}
