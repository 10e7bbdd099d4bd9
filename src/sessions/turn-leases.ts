/**
 * One turn at a time per session across every process sharing the store: a running turn holds the
 * storage lease `turns/<sessionId>` with its turn id as owner, renewed while it runs
 * (docs/design/storage.md, "Leases"). Another process admitting a message meanwhile gets 409
 * `session_busy`. Recovery, which knows the crashed turn's id from the active marker, releases it.
 * @module
 */
import type { StorageDriver } from "../storage/types.ts";

/** How long a lease outlives a process that stopped renewing it. */
const TURN_LEASE_TTL_MS = 30_000;

const leaseKey = (sessionId: string): string => `turns/${sessionId}`;

export class TurnLeases {
  readonly #storage: StorageDriver;
  readonly #ttlMs: number;

  constructor(storage: StorageDriver, ttlMs = TURN_LEASE_TTL_MS) {
    this.#storage = storage;
    this.#ttlMs = ttlMs;
  }

  /** Takes the session's turn lease for `turnId`; false while another turn (anywhere) holds it. */
  take(sessionId: string, turnId: string): Promise<boolean> {
    return this.#storage.acquireLease(leaseKey(sessionId), turnId, this.#ttlMs);
  }

  /** Renews the lease until the returned function is called. */
  keep(sessionId: string, turnId: string): () => void {
    const timer = setInterval(() => {
      this.#storage.acquireLease(leaseKey(sessionId), turnId, this.#ttlMs).catch(() => {});
    }, this.#ttlMs / 3);
    (timer as { unref?: () => void }).unref?.();
    return () => clearInterval(timer);
  }

  async release(sessionId: string, turnId: string): Promise<void> {
    await this.#storage.releaseLease(leaseKey(sessionId), turnId).catch(() => {});
  }
}
