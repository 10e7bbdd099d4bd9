/**
 * The in-memory storage driver: the default for tests and for hosts that need no persistence.
 * Everything lives in process memory and is gone when the process exits.
 * @module
 */

import { assertKey, assertPrefix, LogConflictError, type StorageDriver } from "./types.ts";

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
  const logs = new Map<string, string[]>();
  const leases = new Map<string, Lease>();

  return {
    name: "memory",

    async get(key) {
      assertKey(key);
      return records.get(key);
    },
    async set(key, value) {
      assertKey(key);
      records.set(key, value);
    },
    async delete(key) {
      assertKey(key);
      records.delete(key);
    },
    async list(prefix) {
      assertPrefix(prefix);
      return [...records.keys()].filter((key) => key.startsWith(prefix)).sort();
    },

    async append(log, lines, expectedIndex) {
      assertKey(log);
      assertLines(lines);
      const existing = logs.get(log);
      const index = existing?.length ?? 0;
      if (expectedIndex !== undefined && expectedIndex !== index) {
        throw new LogConflictError(log, expectedIndex, index);
      }
      if (lines.length === 0) return index;
      if (existing) existing.push(...lines);
      else logs.set(log, [...lines]);
      return index;
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
      if (typeof owner !== "string" || owner === "") throw new Error("[agent-serve] [storage] lease owner must be a non-empty string");
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

function assertLines(lines: string[]): void {
  for (const line of lines) {
    if (typeof line !== "string" || line.includes("\n")) {
      throw new Error("[agent-serve] [storage] a log line must be a string without a newline");
    }
  }
}
