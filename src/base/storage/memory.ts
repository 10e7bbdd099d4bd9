/**
 * The in-memory storage driver: the default for tests and for hosts that need no persistence.
 * Everything lives in process memory and is gone when the process exits.
 * @module
 */

import { Followers } from "./followers.ts";
import { SortedKeys } from "./sorted-keys.ts";
import {
  assertBatch,
  assertKey,
  assertLeaseOwner,
  assertPage,
  assertPrefix,
  type CommitBatch,
  LogConflictError,
  RecordConflictError,
  type StorageDriver,
} from "./types.ts";

/** Lines per batch yielded by `read`, the same bound every driver uses. */
const READ_BATCH = 1024;

interface Lease {
  owner: string;
  expiresAt: number;
}

/**
 * Creates a driver that keeps records, logs and leases in `Map`s.
 *
 * Leases expire by `Date.now()`, so fake timers that mock the clock also move lease expiry.
 *
 * @example
 * const storage = createMemoryStorage();
 * await storage.append("sessions/s1/events", ['{"type":"turn.started"}']);
 */
export function createMemoryStorage(): StorageDriver {
  const records = new Map<string, string>();
  /** The records' keys in order, so prefix scans and pages never sort the whole store. */
  const sorted = new SortedKeys();
  const logs = new Map<string, string[]>();
  const leases = new Map<string, Lease>();
  const followers = new Followers();

  /** Checks everything first, then applies: a failed check leaves nothing half done. */
  function apply(batch: CommitBatch): number[] {
    assertBatch(batch);
    for (const write of batch.records ?? []) {
      if (write.expected !== undefined && (records.get(write.key) ?? null) !== write.expected) throw new RecordConflictError(write.key);
    }
    const planned = new Map<string, number>();
    const firsts = (batch.appends ?? []).map(({ log, lines, expectedIndex }) => {
      const index = planned.get(log) ?? logs.get(log)?.length ?? 0;
      if (expectedIndex !== undefined && expectedIndex !== index) throw new LogConflictError(log, expectedIndex, index);
      planned.set(log, index + lines.length);
      return index;
    });
    for (const write of batch.records ?? []) {
      if (write.value === null) {
        if (records.delete(write.key)) sorted.delete(write.key);
      } else {
        if (!records.has(write.key)) sorted.add(write.key);
        records.set(write.key, write.value);
      }
    }
    for (const { log, lines } of batch.appends ?? []) {
      if (lines.length === 0) continue;
      const existing = logs.get(log);
      if (existing) existing.push(...lines);
      else logs.set(log, [...lines]);
    }
    for (const { key, owner } of batch.releases ?? []) if (leases.get(key)?.owner === owner) leases.delete(key);
    (batch.appends ?? []).forEach(({ log, lines }, i) => followers.publish(log, firsts[i]!, lines));
    return firsts;
  }

  /** Keys under `prefix` from `after` (exclusive) or the prefix's start, at most `limit`. */
  function keysUnder(prefix: string, after: string | undefined, limit = Number.POSITIVE_INFINITY): string[] {
    const out: string[] = [];
    if (limit < 1) return out;
    const exclusive = after !== undefined && after >= prefix;
    for (const key of sorted.from(exclusive ? after : prefix, exclusive)) {
      if (!key.startsWith(prefix)) break;
      out.push(key);
      if (out.length >= limit) break;
    }
    return out;
  }

  return {
    name: "memory",
    capabilities: { durable: false, follow: "process", sharedLeases: false, releasesInCommit: true },

    async commit(batch) {
      return apply(batch);
    },
    follow(log, listener) {
      assertKey(log);
      return followers.add(log, listener);
    },
    async entries(prefix) {
      assertPrefix(prefix);
      return keysUnder(prefix, undefined).map((key) => [key, records.get(key)!]);
    },
    async entriesPage(prefix, page) {
      assertPrefix(prefix);
      assertPage(page);
      return keysUnder(prefix, page.after, page.limit).map((key) => [key, records.get(key)!]);
    },

    async get(key) {
      assertKey(key);
      return records.get(key);
    },
    async set(key, value) {
      apply({ records: [{ key, value }] });
    },
    async delete(key) {
      apply({ records: [{ key, value: null }] });
    },
    async list(prefix) {
      assertPrefix(prefix);
      return keysUnder(prefix, undefined);
    },

    async append(log, lines, expectedIndex) {
      return apply({ appends: [{ log, lines, ...(expectedIndex === undefined ? {} : { expectedIndex }) }] })[0]!;
    },
    async length(log) {
      assertKey(log);
      return logs.get(log)?.length ?? 0;
    },
    read(log, from = 0, to) {
      // The array and its length are captured now, not at the first `next()`: lines appended
      // after the call are not part of this read, and a later `deleteLog` does not cut it short.
      let lines: string[] | undefined;
      let end = 0;
      let invalid: unknown;
      try {
        assertKey(log);
        lines = logs.get(log);
        end = Math.min(to ?? Number.POSITIVE_INFINITY, lines?.length ?? 0);
      } catch (error) {
        invalid = error;
      }
      return batches(lines, Math.max(0, from), end, invalid);
    },
    async deleteLog(log) {
      assertKey(log);
      logs.delete(log);
    },
    async hasLog(log) {
      assertKey(log);
      return (logs.get(log)?.length ?? 0) > 0;
    },

    async acquireLease(key, owner, ttlMs) {
      assertKey(key);
      assertLeaseOwner(owner);
      const now = Date.now();
      const current = leases.get(key);
      if (current && current.owner !== owner && current.expiresAt > now) return false;
      leases.set(key, { owner, expiresAt: now + ttlMs });
      return true;
    },
    async releaseLease(key, owner) {
      assertKey(key);
      if (leases.get(key)?.owner === owner) leases.delete(key);
    },

    async close() {},
  };
}

// --- internals ---

async function* batches(
  lines: string[] | undefined,
  from: number,
  end: number,
  invalid: unknown,
): AsyncGenerator<string[]> {
  if (invalid !== undefined) throw invalid;
  if (!lines) return;
  for (let start = from; start < end; start += READ_BATCH) {
    yield lines.slice(start, Math.min(start + READ_BATCH, end));
  }
}
