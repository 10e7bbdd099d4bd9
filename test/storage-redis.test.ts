/**
 * The Redis driver against a real `redis-server` (docs/design/storage.md, "Redis driver"): the
 * conformance suite, then what only a shared store shows — a follower in another process, leases
 * and commits contended by several driver instances, connection loss, and `close`.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseStorageUrl } from "../cli/storage-url.ts";
import { UsageError } from "../cli/io.ts";
import { openStorage } from "../adapters/_storage.ts";
import { createRedisStorage, type RedisStorageOptions } from "../drivers/redis/index.ts";
import { LogConflictError, StorageUnavailableError, type StorageDriver, updateRecord } from "../src/entries/storage.ts";
import { type RedisServer, REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";
import { lineRange, pollUntil, readAll, testStorageDriver, within } from "./_storage-tests.ts";

const FOLLOWER = fileURLToPath(new URL("./fixtures/redis-follower.ts", import.meta.url));
const LAZY_LOAD = fileURLToPath(new URL("./fixtures/redis-lazy-load.ts", import.meta.url));

describe("--storage redis://", () => {
  it("parses host, port, database and key prefix, and refuses what it cannot use", () => {
    expect(parseStorageUrl("redis://127.0.0.1:6380")).toEqual({ kind: "redis", url: "redis://127.0.0.1:6380" });
    expect(parseStorageUrl("rediss://u:p@cache.example:6380/2?prefix=app:")).toEqual({ kind: "redis", url: "rediss://u:p@cache.example:6380/2", prefix: "app:" });
    for (const [url, why] of [
      ["redis://", "no host"],
      ["redis://h:1/x", "database must be a number"],
      ["redis://h:1/0?db=1", "unknown option db"],
      ["redis://h:1/0?prefix=", "empty prefix"],
    ] as const) {
      expect(() => parseStorageUrl(url), url).toThrow(UsageError);
      expect(() => parseStorageUrl(url), url).toThrow(why);
    }
    expect(() => parseStorageUrl("redis://user:secret@h:1/x")).toThrow(/user:\*\*\*@h/);
  });

  it("loads the Redis client only when a Redis store is opened, and reports an unreachable one as unavailable", async () => {
    const root = mkdtempSync(join(tmpdir(), "agent-serve-lazy-"));
    try {
      const child = spawnSync(process.execPath, [LAZY_LOAD, root], { encoding: "utf8", timeout: 30_000 });
      expect(child.status, child.stderr).toBe(0);
      expect(JSON.parse(child.stdout)).toEqual({ before: false, after: true, error: "StorageUnavailableError" });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!REDIS_SERVER)(`redis store${REDIS_MISSING}`, () => {
  let server: RedisServer;
  let admin: Redis;
  let n = 0;
  const open: StorageDriver[] = [];
  const driver = (options: Partial<RedisStorageOptions> = {}) => {
    const storage = createRedisStorage({ url: server.url, prefix: `t${n}:`, ...options });
    open.push(storage);
    return storage;
  };

  /** Clients of the test's server blocked in a command (the follower's XREAD). */
  const blockedClients = async (): Promise<number> => {
    const list = (await admin.client("LIST")) as string;
    return list.split("\n").filter((line) => / flags=\S*b/.test(line) && / cmd=xread/.test(line)).length;
  };

  /** Clients connected to the test's server, the admin's own connection included. */
  const connectedClients = async (): Promise<number> => {
    const list = (await admin.client("LIST")) as string;
    return list.split("\n").filter((line) => line.trim() !== "").length;
  };

  beforeAll(async () => {
    // Persisted, so a restart of the server (connection loss below) keeps what was written.
    server = await startRedisServer({ fsync: "everysec" });
    admin = new Redis(server.url);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((storage) => storage.close()));
    n++;
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.close();
  });

  testStorageDriver("redis", async () => {
    const prefix = `c${++n}:`;
    const storage = createRedisStorage({ url: server.url, prefix });
    return { driver: storage, reopen: () => createRedisStorage({ url: server.url, prefix }), cleanup: () => storage.close() };
  });

  it("is durable and shared: another instance sees the data, another prefix does not", async () => {
    const a = driver();
    expect(a.capabilities).toEqual({ durable: true, follow: "shared", sharedLeases: true });
    await a.commit({ records: [{ key: "sessions/s1", value: "one" }], appends: [{ log: "sessions/s1/events", lines: lineRange(0, 3) }] });
    const b = driver();
    expect(await b.get("sessions/s1")).toBe("one");
    expect((await readAll(b.read("sessions/s1/events"))).lines).toEqual(lineRange(0, 3));
    const other = driver({ prefix: `other${n}:` });
    expect(await other.list("")).toEqual([]);
    expect(await other.length("sessions/s1/events")).toBe(0);
    expect(await admin.exists(`t${n}:r:sessions/s1`, `t${n}:l:sessions/s1/events`)).toBe(2);
  });

  it("gives each agent of a multi-agent host its own key prefix, as sqlite gives it its own file", async () => {
    const choice = parseStorageUrl(`${server.url}/0?prefix=m${n}:`);
    const input = { stateRoot: "/unused", cwd: "/" };
    const single = openStorage(choice, { ...input, mode: "single", slug: "hello" });
    const hello = openStorage(choice, { ...input, mode: "multi", slug: "hello" });
    const other = openStorage(choice, { ...input, mode: "multi", slug: "other" });
    open.push(single, hello, other);
    await Promise.all([single, hello, other].map((storage, i) => storage.set("sessions/s1", `v${i}`)));
    expect(await admin.mget(`m${n}:r:sessions/s1`, `m${n}:hello:r:sessions/s1`, `m${n}:other:r:sessions/s1`)).toEqual(["v0", "v1", "v2"]);
    expect(await hello.entries("")).toEqual([["sessions/s1", "v1"]]);
  });

  it("lists 10,000 sessions from the index, without scanning the keyspace", async () => {
    const storage = driver();
    const records = Array.from({ length: 10_000 }, (_, i) => ({ key: `sessions/s${String(i).padStart(5, "0")}`, value: `{"i":${i}}` }));
    await storage.commit({ records: [...records, { key: "other/x", value: "x" }, { key: "sessions2/y", value: "y" }] });
    await admin.config("RESETSTAT");
    const entries = await storage.entries("sessions/");
    expect(entries).toHaveLength(10_000);
    expect(entries[0]).toEqual(["sessions/s00000", '{"i":0}']);
    expect(entries.at(-1)).toEqual(["sessions/s09999", '{"i":9999}']);
    expect((await storage.list("sessions/")).length).toBe(10_000);
    const stats = (await admin.info("commandstats")) as string;
    expect(stats).not.toMatch(/cmdstat_(scan|keys):/);
    expect(stats).toMatch(/cmdstat_zrangebylex:/);
  });

  it("a follower in another process sees every line appended here, gapless and in index order", async () => {
    const writerA = driver();
    const writerB = driver();
    await writerA.append("sessions/s1/events", lineRange(0, 100));
    const total = 400;
    const child = spawn(process.execPath, [FOLLOWER, server.url, `t${n}:`, "sessions/s1/events", String(total)], { stdio: ["ignore", "pipe", "pipe"] });
    const messages: Array<{ ready?: true; closed?: true; first?: number; lines?: string[] }> = [];
    let stderr = "";
    let buffered = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const parts = buffered.split("\n");
      buffered = parts.pop()!;
      for (const part of parts) if (part) messages.push(JSON.parse(part));
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await pollUntil(async () => messages.some((m) => m.ready), 10_000, `the follower process to start: ${stderr}`);
    // Two writers (two processes' worth of connections) append at once, in batches of 1 to 3 lines.
    const appends: Array<Promise<number>> = [];
    for (let i = 0; i < total; ) {
      const size = 1 + (i % 3);
      const lines = Array.from({ length: Math.min(size, total - i) }, (_, k) => `line ${i + k}`);
      appends.push((i % 2 === 0 ? writerA : writerB).append("sessions/s1/events", lines));
      i += lines.length;
    }
    await Promise.all(appends);
    // It closes its store when it has everything, and the process then exits on its own.
    expect(await within(exited, 15_000, `the follower process to exit: ${stderr}`)).toBe(0);
    const delivered = messages.filter((m) => m.lines);
    const indexed = delivered.flatMap(({ first, lines }) => lines!.map((line, k) => [first! + k, line] as const));
    expect(indexed.map(([index]) => index)).toEqual(Array.from({ length: total }, (_, k) => 100 + k));
    const stored = (await readAll(writerA.read("sessions/s1/events", 100))).lines;
    expect(indexed.map(([, line]) => line)).toEqual(stored);
    expect(messages.at(-1)).toEqual({ closed: true });
  });

  it("a follower on another instance sees commits from this one, and a second log is followed alongside", async () => {
    const writer = driver();
    const reader = driver();
    const seen: Array<[number, string]> = [];
    const other: string[] = [];
    reader.follow("a", (first, lines) => lines.forEach((line, k) => seen.push([first + k, line])));
    await reader.length("a");
    await writer.commit({ appends: [{ log: "a", lines: ["a0", "a1"] }] });
    await pollUntil(async () => seen.length === 2, 5_000, "first lines");
    // A follower added while the blocking read waits on "a" is taken into it at once.
    reader.follow("b", (_, lines) => other.push(...lines));
    await reader.length("b");
    await writer.commit({ appends: [{ log: "b", lines: ["b0"] }, { log: "a", lines: ["a2"] }] });
    await pollUntil(async () => seen.length === 3 && other.length === 1, 2_000, "lines of both logs");
    expect(seen).toEqual([[0, "a0"], [1, "a1"], [2, "a2"]]);
    expect(other).toEqual(["b0"]);
  });

  it("two instances contend for a lease: one holds it, the other takes it when released or expired", async () => {
    const instances = Array.from({ length: 4 }, () => driver());
    for (let round = 0; round < 5; round++) {
      const won = await Promise.all(instances.map((storage, i) => storage.acquireLease("turns/s1", `owner-${i}`, 60_000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const holder = won.indexOf(true);
      expect(await instances[(holder + 1) % 4]!.acquireLease("turns/s1", `owner-${(holder + 1) % 4}`, 60_000)).toBe(false);
      await instances[holder]!.releaseLease("turns/s1", `owner-${holder}`);
    }
    const [a, b] = instances as [StorageDriver, StorageDriver];
    expect(await a.acquireLease("turns/s2", "owner-a", 300)).toBe(true);
    expect(await b.acquireLease("turns/s2", "owner-b", 300)).toBe(false);
    // The expiry is Redis's own (a key with a TTL), not the clock of either process.
    expect(await admin.pttl(`t${n}:lease:turns/s2`)).toBeGreaterThan(0);
    await pollUntil(() => b.acquireLease("turns/s2", "owner-b", 60_000), 5_000, "lease expiry");
    expect(await a.acquireLease("turns/s2", "owner-a", 60_000)).toBe(false);
  });

  it("keeps commits atomic when instances race: one winner per index, no torn commit, no lost update", async () => {
    const [a, b] = [driver(), driver()];
    await a.set("counter", "0");
    await Promise.all([a, b].flatMap((storage) => Array.from({ length: 25 }, () => updateRecord(storage, "counter", (v) => String(Number(v) + 1)))));
    expect(await a.get("counter")).toBe("50");

    // Each writer appends at the index it last saw together with a record naming itself: a loser
    // writes neither.
    const writer = async (storage: StorageDriver, name: string) => {
      let wins = 0;
      for (let i = 0; i < 30; i++) {
        const at = await storage.length("log");
        try {
          await storage.commit({ records: [{ key: `wins/${name}/${at}`, value: name }], appends: [{ log: "log", lines: [`${name}@${at}`], expectedIndex: at }] });
          wins++;
        } catch (error) {
          expect(LogConflictError.isError(error), String(error)).toBe(true);
        }
      }
      return wins;
    };
    const [winsA, winsB] = await Promise.all([writer(a, "a"), writer(b, "b")]);
    const lines = (await readAll(a.read("log"))).lines;
    expect(lines).toHaveLength(winsA + winsB);
    expect(lines).toEqual(lines.map((line, i) => line.replace(/@\d+$/, `@${i}`)));
    expect(await a.list("wins/a/")).toHaveLength(winsA);
    expect(await a.list("wins/b/")).toHaveLength(winsB);
  });

  it("answers StorageUnavailableError while Redis is down, reconnects, and the follower resumes gapless", async () => {
    const storage = driver();
    const seen: Array<[number, string]> = [];
    storage.follow("log", (first, lines) => lines.forEach((line, k) => seen.push([first + k, line])));
    await storage.append("log", ["before"]);
    await pollUntil(async () => seen.length === 1, 5_000, "the first line");
    await server.stop();
    const attempts: Array<Promise<unknown>> = [storage.get("k"), storage.append("log", ["lost"]), storage.acquireLease("l", "o", 1_000), readAll(storage.read("log"))];
    for (const attempt of attempts) {
      await expect(within(attempt, 5_000, "a refusal")).rejects.toSatisfy(StorageUnavailableError.isError);
    }
    await server.start();
    await pollUntil(() => storage.get("k").then(() => true, () => false), 10_000, "the reconnect");
    // Another process appends meanwhile; this one then appends again.
    const other = driver();
    await other.append("log", ["from another instance"]);
    expect(await storage.append("log", ["after"])).toBe(2);
    await pollUntil(async () => seen.length === 3, 5_000, "lines after the reconnect");
    expect(seen).toEqual([[0, "before"], [1, "from another instance"], [2, "after"]]);
  });

  it("closes at once with a blocking read in progress and waits for writes sent before", async () => {
    // The follower's XREAD blocks for a second at most (drivers/redis/follow.ts). Every XREAD the
    // server starts is seen here through MONITOR, on the server's clock, so the test knows when the
    // one in progress would end by itself: a close that waited for it ends after that moment.
    const monitor = await admin.monitor();
    const xreads: number[] = [];
    monitor.on("monitor", (time: string, args: string[]) => {
      if (String(args[0]).toLowerCase() === "xread") xreads.push(Number(time) * 1_000);
    });
    try {
      const storage = createRedisStorage({ url: server.url, prefix: `t${n}:` });
      storage.follow("followed", () => {});
      // A fresh XREAD has just started: the one close must not wait for.
      await pollUntil(async () => xreads.length >= 2, 10_000, "the follower's blocking read");
      const seen = xreads.length;
      await pollUntil(async () => xreads.length > seen, 10_000, "a fresh blocking read");
      expect(await blockedClients()).toBe(1);
      // Writes to another log: one to the followed log would end the blocking read at once.
      const writes = Array.from({ length: 20 }, (_, i) => storage.append("other", [`l${i}`]));
      const closing = Date.now();
      await within(storage.close(), 5_000, "close");
      const closedAt = Date.now();
      // The read in progress when close was called: the last one the server started before then.
      const blockedSince = Math.max(...xreads.filter((at) => at <= closing));
      expect(closedAt, "close waited for the blocking read to time out").toBeLessThan(blockedSince + 1_000);
      expect(await Promise.all(writes)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      await expect(storage.get("k")).rejects.toThrow(/closed/);
      // The blocked connection is gone, not left to time out on the server.
      await pollUntil(async () => (await blockedClients()) === 0, 5_000, "the blocked connection to close");
    } finally {
      monitor.disconnect();
    }
  });

  it("closes at once while reconnecting to a Redis that is down, and stays closed when it is back", async () => {
    const storage = createRedisStorage({ url: server.url, prefix: `t${n}:`, redis: { retryStrategy: () => 50 } });
    storage.follow("log", () => {});
    await storage.append("log", ["before"]);
    await pollUntil(async () => (await blockedClients()) === 1, 10_000, "the follower's blocking read");
    expect(await connectedClients()).toBe(3); // the admin, the store, the follower's blocking read
    await server.stop();
    await expect(within(storage.get("k"), 5_000, "a refusal")).rejects.toSatisfy(StorageUnavailableError.isError);
    const started = Date.now();
    await within(storage.close(), 2_000, "close while reconnecting");
    expect(Date.now() - started).toBeLessThan(1_000);
    await server.start();
    await pollUntil(() => admin.ping().then(() => true, () => false), 10_000, "the admin's reconnect");
    // A store still reconnecting every 50 ms would be back well within this; a closed one never is.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await connectedClients()).toBe(1);
  });
});
