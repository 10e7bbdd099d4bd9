/**
 * The storage driver for many host processes on one Redis: records as strings with a sorted-set
 * index, logs as streams, commits as one Lua script, leases as keys with a Redis expiry, and live
 * follow across processes through blocking `XREAD`s. See docs/design/storage.md, "Redis driver".
 *
 * @example
 * import { createRedisStorage } from "agent-serve/storage/redis";
 * const storage = createRedisStorage({ url: "redis://127.0.0.1:6379/0", prefix: "myapp:" });
 * await storage.commit({ records: [{ key: "sessions/s1/record", value: "{}" }], appends: [{ log: "sessions/s1/events", lines: ["{}"] }] });
 * await storage.close();
 * @module
 */
import type { RedisOptions } from "ioredis";
import { assertBatch, assertKey, assertLeaseOwner, assertPage, assertPrefix, type CommitBatch, type StorageDriver } from "../../src/base/storage/types.ts";
import { RedisConnection } from "./connection.ts";
import { RedisFollowers } from "./follow.ts";
import {
  ACQUIRE_LEASE_SCRIPT,
  COMMIT_SCRIPT,
  commitArgs,
  commitResult,
  ENTRIES_SCRIPT,
  entryId,
  KeyLayout,
  ENTRIES_PAGE_SCRIPT,
  lexPageRange,
  lexRange,
  RELEASE_LEASE_SCRIPT,
} from "./scripts.ts";

export interface RedisStorageOptions {
  /** `redis://[user:pass@]host:port[/db]`, or `rediss://…` for TLS. */
  url: string;
  /**
   * Put before every key, so several hosts (or the agents of one multi-agent host) can share one
   * Redis database without seeing each other's data. @default "agent-serve:"
   */
  prefix?: string;
  /** Further ioredis options (timeouts, TLS certificates); the driver's own settings win where they matter. */
  redis?: RedisOptions;
}

/** Lines per batch yielded by `read`, the same bound every driver uses. */
const READ_BATCH = 1024;

/**
 * Creates the driver. The Redis client is loaded and connected in the background; commands made
 * before the connection is up wait for it, in order. Commands made while an established
 * connection is down reject with `StorageUnavailableError` until it is back.
 */
export function createRedisStorage(options: RedisStorageOptions): StorageDriver {
  const layout = new KeyLayout(options.prefix ?? "agent-serve:");
  const conn = RedisConnection.open({ url: options.url, ...(options.redis ? { options: options.redis } : {}) }, describe(options.url));
  const followers = new RedisFollowers(conn, layout);
  const pending = new Set<Promise<unknown>>();
  let closed = false;

  /** A write: sent in call order, and waited for by `close`. */
  function write<T>(command: Parameters<RedisConnection["send"]>[0]): Promise<T> {
    if (closed) return Promise.reject(new Error("[agent-serve] [storage] the redis store is closed"));
    const sent = conn.send(command) as Promise<T>;
    pending.add(sent);
    const forget = () => pending.delete(sent);
    sent.then(forget, forget);
    return sent;
  }

  function commit(batch: CommitBatch): Promise<number[]> {
    const { keys, args } = commitArgs(layout, batch);
    return write<unknown>((client) => client.eval(COMMIT_SCRIPT, keys.length, ...keys, ...args)).then((reply) => {
      const firsts = commitResult(batch, reply);
      // Followers in this process hear at once; the blocking read delivers the same lines to
      // everyone else (and here it is dropped by index).
      (batch.appends ?? []).forEach(({ log, lines }, i) => followers.publish(log, firsts[i]!, lines));
      return firsts;
    });
  }

  return {
    name: "redis",
    capabilities: { durable: true, follow: "shared", sharedLeases: true },

    async commit(batch) {
      assertBatch(batch);
      return commit(copyBatch(batch));
    },
    follow(log, listener) {
      assertKey(log);
      return followers.add(log, listener);
    },
    async entries(prefix) {
      assertPrefix(prefix);
      const [from, to] = lexRange(prefix);
      const flat = (await conn.send((client) => client.eval(ENTRIES_SCRIPT, 1, layout.recordIndex, layout.record(""), from, to))) as string[];
      const out: Array<[string, string]> = [];
      for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
      return out;
    },
    async entriesPage(prefix, page) {
      assertPrefix(prefix);
      assertPage(page);
      const [from, to] = lexPageRange(prefix, page.after);
      const flat = (await conn.send((client) => client.eval(ENTRIES_PAGE_SCRIPT, 1, layout.recordIndex, layout.record(""), from, to, page.limit))) as string[];
      const out: Array<[string, string]> = [];
      for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
      return out;
    },

    async get(key) {
      assertKey(key);
      return (await conn.send((client) => client.get(layout.record(key)))) ?? undefined;
    },
    async set(key, value) {
      const batch = { records: [{ key, value }] };
      assertBatch(batch);
      await commit(batch);
    },
    async delete(key) {
      assertKey(key);
      await commit({ records: [{ key, value: null }] });
    },
    async list(prefix) {
      assertPrefix(prefix);
      const [from, to] = lexRange(prefix);
      return conn.send((client) => client.zrangebylex(layout.recordIndex, from, to));
    },

    async append(log, lines, expectedIndex) {
      const batch = { appends: [{ log, lines: [...lines], ...(expectedIndex === undefined ? {} : { expectedIndex }) }] };
      assertBatch(batch);
      const [first] = await commit(batch);
      return first!;
    },
    async length(log) {
      assertKey(log);
      return conn.send((client) => client.xlen(layout.log(log)));
    },
    read(log, from = 0, to) {
      // The end is asked for now, not at the first `next()`: later appends are not part of this read.
      let end: Promise<number>;
      try {
        assertKey(log);
        end = to === undefined ? conn.send((client) => client.xlen(layout.log(log))) : Promise.resolve(to);
      } catch (error) {
        end = Promise.reject(error);
      }
      end.catch(() => {});
      return batches(conn, layout.log(log), Math.max(0, from), end);
    },
    async deleteLog(log) {
      assertKey(log);
      await write((client) => client.del(layout.log(log)));
    },
    async hasLog(log) {
      assertKey(log);
      return (await conn.send((client) => client.exists(layout.log(log)))) === 1;
    },

    async acquireLease(key, owner, ttlMs) {
      assertKey(key);
      assertLeaseOwner(owner);
      const ttl = Math.max(0, Math.ceil(ttlMs));
      return (await write<number>((client) => client.eval(ACQUIRE_LEASE_SCRIPT, 1, layout.lease(key), owner, ttl))) === 1;
    },
    async releaseLease(key, owner) {
      assertKey(key);
      await write((client) => client.eval(RELEASE_LEASE_SCRIPT, 1, layout.lease(key), owner));
    },

    async close() {
      if (closed) return;
      closed = true;
      await followers.close();
      await Promise.allSettled(pending);
      await conn.close("quit");
    },
  };
}

// --- internals ---

/** `host:port` of a Redis URL for messages, without credentials. */
function describe(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "6379"}`;
  } catch {
    return "server";
  }
}

/** The commit keeps its own copy: a caller mutating its arrays after the call changes nothing. */
function copyBatch(batch: CommitBatch): CommitBatch {
  return {
    ...(batch.records ? { records: batch.records.map((write) => ({ ...write })) } : {}),
    ...(batch.appends ? { appends: batch.appends.map((append) => ({ ...append, lines: [...append.lines] })) } : {}),
  };
}

async function* batches(conn: RedisConnection, stream: string, from: number, end: Promise<number>): AsyncGenerator<string[]> {
  const stop = await end;
  for (let start = from; start < stop; start += READ_BATCH) {
    const last = Math.min(start + READ_BATCH, stop) - 1;
    const entries = await conn.send((client) => client.xrange(stream, entryId(start), entryId(last)));
    // Past the end of the log, or a log deleted meanwhile: the read ends early.
    if (entries.length === 0) return;
    yield entries.map(([, fields]) => fields[1] ?? "");
    if (entries.length < last - start + 1) return;
  }
}
