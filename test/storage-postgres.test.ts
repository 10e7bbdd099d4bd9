/**
 * The Postgres driver against a real `postgres` server (docs/design/storage.md, "Postgres
 * driver"): the conformance suite, then what only a shared database shows — migrations raced by
 * several starting processes, a follower in another process, leases and commits contended by
 * several driver instances, the server stopping and crashing, and `close`.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStorage } from "../adapters/_storage.ts";
import { UsageError } from "../cli/io.ts";
import { parseStorageUrl } from "../cli/storage-url.ts";
import { createPostgresStorage, type PostgresStorageOptions } from "../drivers/postgres/index.ts";
import { SCHEMA_VERSION } from "../drivers/postgres/schema.ts";
import { LogConflictError, StorageUnavailableError, type StorageDriver, updateRecord } from "../src/entries/storage.ts";
import { type PostgresServer, POSTGRES_BIN, POSTGRES_MISSING, startPostgresServer } from "./_postgres-server.ts";
import { lineRange, pollUntil, readAll, testStorageDriver, within } from "./_storage-tests.ts";

const FOLLOWER = fileURLToPath(new URL("./fixtures/postgres-follower.ts", import.meta.url));
const LAZY_LOAD = fileURLToPath(new URL("./fixtures/postgres-lazy-load.ts", import.meta.url));

describe("--storage postgres://", () => {
  it("parses the database, schema and namespace, and refuses what it cannot use", () => {
    expect(parseStorageUrl("postgres://u:p@db.internal:5433/app")).toEqual({ kind: "postgres", url: "postgres://u:p@db.internal:5433/app" });
    expect(parseStorageUrl("postgresql://db/app?sslmode=require&schema=prod&namespace=eu")).toEqual({
      kind: "postgres",
      url: "postgresql://db/app?sslmode=require",
      schema: "prod",
      namespace: "eu",
    });
    for (const [url, why] of [
      ["postgres://", "no host"],
      ["postgres://h:1", "no database"],
      ["postgres://h/db?schema=Bad-Name", "lower-case identifier"],
      ["postgres://h/db?namespace=", "empty namespace"],
    ] as const) {
      expect(() => parseStorageUrl(url), url).toThrow(UsageError);
      expect(() => parseStorageUrl(url), url).toThrow(why);
    }
    expect(() => parseStorageUrl("postgres://user:secret@h")).toThrow(/user:\*\*\*@h/);
  });

  it("loads the Postgres client only when a Postgres store is opened, and reports an unreachable one as unavailable", async () => {
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

describe.skipIf(!POSTGRES_BIN)(`postgres store${POSTGRES_MISSING}`, () => {
  let server: PostgresServer;
  let admin: postgres.Sql;
  let n = 0;
  const open: StorageDriver[] = [];
  const driver = (options: Partial<PostgresStorageOptions> = {}) => {
    const storage = createPostgresStorage({ url: server.url, namespace: `t${n}`, ...options });
    open.push(storage);
    return storage;
  };

  beforeAll(async () => {
    // Synced as in production: the crash below must keep every acknowledged write.
    server = await startPostgresServer({ fsync: true });
    admin = postgres(server.url, { max: 1, onnotice: () => {} });
  }, 60_000);
  afterEach(async () => {
    await Promise.all(open.splice(0).map((storage) => storage.close()));
    n++;
  });
  afterAll(async () => {
    await admin?.end();
    await server?.close();
  });

  testStorageDriver("postgres", async () => {
    const namespace = `c${++n}`;
    const storage = createPostgresStorage({ url: server.url, namespace });
    return { driver: storage, reopen: () => createPostgresStorage({ url: server.url, namespace }), cleanup: () => storage.close() };
  });

  it("creates its schema once when eight processes start at the same time, and refuses a newer one", async () => {
    const schema = `race${n}`;
    const instances = Array.from({ length: 8 }, () => driver({ schema }));
    await Promise.all(instances.map((storage, i) => storage.set(`k/${i}`, String(i))));
    expect(await instances[0]!.list("k/")).toHaveLength(8);
    expect(await admin`SELECT version FROM ${admin(schema)}.schema_migrations ORDER BY version`).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })),
    );
    await admin`INSERT INTO ${admin(schema)}.schema_migrations (version) VALUES (${SCHEMA_VERSION + 1})`;
    const newer = driver({ schema });
    await expect(newer.get("k/0")).rejects.toThrow(/newer than this agent-serve knows/);
  });

  it("is durable and shared: another instance sees the data, another namespace or schema does not", async () => {
    const a = driver();
    expect(a.capabilities).toEqual({ durable: true, follow: "shared", sharedLeases: true });
    await a.commit({ records: [{ key: "sessions/s1", value: "one" }], appends: [{ log: "sessions/s1/events", lines: lineRange(0, 3) }] });
    const b = driver();
    expect(await b.get("sessions/s1")).toBe("one");
    expect((await readAll(b.read("sessions/s1/events"))).lines).toEqual(lineRange(0, 3));
    for (const other of [driver({ namespace: `other${n}` }), driver({ schema: `other${n}` })]) {
      expect(await other.list("")).toEqual([]);
      expect(await other.length("sessions/s1/events")).toBe(0);
    }
    expect(await admin`SELECT key, value FROM agent_serve.records WHERE ns = ${`t${n}`}`).toEqual([{ key: "sessions/s1", value: "one" }]);
  });

  it("gives each agent of a multi-agent host its own namespace, as sqlite gives it its own file", async () => {
    const choice = parseStorageUrl(`${server.url}?namespace=m${n}`);
    const input = { stateRoot: "/unused", cwd: "/" };
    const single = openStorage(choice, { ...input, mode: "single", slug: "hello" });
    const hello = openStorage(choice, { ...input, mode: "multi", slug: "hello" });
    const other = openStorage(choice, { ...input, mode: "multi", slug: "other" });
    open.push(single, hello, other);
    await Promise.all([single, hello, other].map((storage, i) => storage.set("sessions/s1", `v${i}`)));
    const rows = await admin`SELECT ns, value FROM agent_serve.records WHERE ns LIKE ${`m${n}%`} ORDER BY ns`;
    expect(rows).toEqual([
      { ns: `m${n}`, value: "v0" },
      { ns: `m${n}/hello`, value: "v1" },
      { ns: `m${n}/other`, value: "v2" },
    ]);
    expect(await hello.entries("")).toEqual([["sessions/s1", "v1"]]);
  });

  it("lists 10,000 sessions in one indexed range scan", async () => {
    const storage = driver();
    const records = Array.from({ length: 10_000 }, (_, i) => ({ key: `sessions/s${String(i).padStart(5, "0")}`, value: `{"i":${i}}` }));
    await storage.commit({ records: [...records, { key: "other/x", value: "x" }, { key: "sessions2/y", value: "y" }] });
    const entries = await storage.entries("sessions/");
    expect(entries).toHaveLength(10_000);
    expect(entries[0]).toEqual(["sessions/s00000", '{"i":0}']);
    expect(entries.at(-1)).toEqual(["sessions/s09999", '{"i":9999}']);
    expect((await storage.list("sessions/")).length).toBe(10_000);
    // The planner's choice for a narrow prefix: the primary key's range, not a table scan.
    await admin`ANALYZE agent_serve.records`;
    const plan = await admin.unsafe(`EXPLAIN SELECT key FROM agent_serve.records WHERE ns = 't${n}' AND key >= 'sessions/s0001' AND key < 'sessions/s0001\x7f' ORDER BY key`);
    expect(plan.map((row) => Object.values(row)[0]).join("\n")).toMatch(/Index (Only )?Scan using records_pkey/);
  });

  it("a follower in another process sees every line appended here, gapless and in index order", async () => {
    const writerA = driver();
    const writerB = driver();
    await writerA.append("sessions/s1/events", lineRange(0, 100));
    const total = 400;
    const child = spawn(process.execPath, [FOLLOWER, server.url, `t${n}`, "sessions/s1/events", String(total)], { stdio: ["ignore", "pipe", "pipe"] });
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
    const appends: Array<Promise<number>> = [];
    for (let i = 0; i < total; ) {
      const size = 1 + (i % 3);
      const lines = Array.from({ length: Math.min(size, total - i) }, (_, k) => `line ${i + k}`);
      appends.push((i % 2 === 0 ? writerA : writerB).append("sessions/s1/events", lines));
      i += lines.length;
    }
    await Promise.all(appends);
    expect(await within(exited, 15_000, `the follower process to exit: ${stderr}`)).toBe(0);
    const delivered = messages.filter((m) => m.lines);
    const indexed = delivered.flatMap(({ first, lines }) => lines!.map((line, k) => [first! + k, line] as const));
    expect(indexed.map(([index]) => index)).toEqual(Array.from({ length: total }, (_, k) => 100 + k));
    const stored = (await readAll(writerA.read("sessions/s1/events", 100))).lines;
    expect(indexed.map(([, line]) => line)).toEqual(stored);
    expect(messages.at(-1)).toEqual({ closed: true });
  });

  it("hands a same-process follower every line of 50 concurrent writers, in order, whichever commits went in groups", async () => {
    const storage = driver();
    for (let round = 0; round < 5; round++) {
      const log = `busy/${round}`;
      const seen: number[] = [];
      storage.follow(log, (first, lines) => lines.forEach((_, k) => seen.push(first + k)));
      // Reads between the commits send waiting groups early, so several are in flight at once.
      await Promise.all(Array.from({ length: 50 }, async (_, w) => {
        for (let i = 0; i < 20; i++) {
          const committed = storage.commit({ records: [{ key: `w/${w}`, value: String(i) }], appends: [{ log, lines: [`${w}:${i}`] }] });
          if (w % 5 === 0) await storage.get(`w/${w}`);
          await committed;
        }
      }));
      await pollUntil(async () => seen.length >= 1_000, 5_000, `every line of round ${round} (have ${seen.length})`);
      expect(seen).toEqual(Array.from({ length: 1_000 }, (_, k) => k));
    }
  });

  it("notifies with small payloads whatever the lines, and reads the lines from the table", async () => {
    const writer = driver();
    const reader = driver();
    const payloads: string[] = [];
    const listening = await admin.listen("agent_serve:agent_serve", (payload) => payloads.push(payload));
    const seen: string[] = [];
    reader.follow("big", (_, lines) => seen.push(...lines));
    await reader.length("big");
    const huge = "x".repeat(20_000);
    await writer.append("big", [huge, huge]);
    await pollUntil(async () => seen.length === 2, 5_000, "the big lines");
    expect(seen).toEqual([huge, huge]);
    expect(payloads.map((payload) => JSON.parse(payload))).toContainEqual([`t${n}`, "big", 0, 2, expect.any(String)]);
    expect(Math.max(...payloads.map((payload) => payload.length))).toBeLessThan(600);
    await listening.unlisten();
  });

  it("instances contend for a lease: one holds it, the other takes it when released or expired on the database's clock", async () => {
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
    const [lease] = await admin`SELECT expires_at > clock_timestamp() AS live FROM agent_serve.leases WHERE ns = ${`t${n}`} AND key = 'turns/s2'`;
    expect(lease).toEqual({ live: true });
    await pollUntil(() => b.acquireLease("turns/s2", "owner-b", 60_000), 5_000, "lease expiry");
    expect(await a.acquireLease("turns/s2", "owner-a", 60_000)).toBe(false);
  });

  it("keeps commits atomic when instances race: one winner per index, no torn commit, no lost update", async () => {
    const [a, b] = [driver(), driver()];
    await a.set("counter", "0");
    await Promise.all([a, b].flatMap((storage) => Array.from({ length: 25 }, () => updateRecord(storage, "counter", (v) => String(Number(v) + 1)))));
    expect(await a.get("counter")).toBe("50");
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

  it("commits touching the same records and logs in opposite orders never deadlock", async () => {
    const [a, b] = [driver(), driver()];
    const forward = { records: [{ key: "x", value: "a" }, { key: "y", value: "a" }], appends: [{ log: "p", lines: ["a"] }, { log: "q", lines: ["a"] }] };
    const backward = { records: [{ key: "y", value: "b" }, { key: "x", value: "b" }], appends: [{ log: "q", lines: ["b"] }, { log: "p", lines: ["b"] }] };
    const started = Date.now();
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a.commit(forward) : b.commit(backward))));
    // A deadlock would cost Postgres's deadlock_timeout (1 s) before one side is rolled back.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await a.length("p")).toBe(40);
    expect(await a.length("q")).toBe(40);
  });

  it("keeps call order and loses no update on a database whose default isolation is SERIALIZABLE", async () => {
    const database = `serial${n}`;
    await admin.unsafe(`CREATE DATABASE ${database}`);
    await admin.unsafe(`ALTER DATABASE ${database} SET default_transaction_isolation = 'serializable'`);
    const url = server.url.replace(/\/postgres$/, `/${database}`);
    const [a, b] = [driver({ url }), driver({ url })];
    await a.set("counter", "0");
    const appends = (storage: StorageDriver, name: string) => Array.from({ length: 100 }, (_, i) => storage.append("log", [`${name}${i}`]));
    const [fromA, fromB] = await Promise.all([Promise.all(appends(a, "a")), Promise.all(appends(b, "b"))]);
    // Each instance's appends took indexes in the order they were called.
    for (const indexes of [fromA, fromB]) expect(indexes).toEqual([...indexes].sort((x, y) => x - y));
    const lines = (await readAll(a.read("log"))).lines;
    expect(lines.filter((line) => line.startsWith("a"))).toEqual(Array.from({ length: 100 }, (_, i) => `a${i}`));
    expect(lines).toHaveLength(200);
    await Promise.all([a, b].flatMap((storage) => Array.from({ length: 20 }, () => updateRecord(storage, "counter", (v) => String(Number(v) + 1)))));
    expect(await b.get("counter")).toBe("40");
  });

  it("sends a commit again when Postgres rolled it back to break a deadlock with another writer", async () => {
    const storage = driver();
    const ns = `t${n}`;
    await storage.commit({ records: [{ key: "x", value: "0" }, { key: "y", value: "0" }] });
    const deadlocks = async () => Number((await admin`SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`)[0]!["deadlocks"]);
    const before = await deadlocks();
    // A writer outside the driver takes y, then x: the commit takes x, then waits for y.
    const outside = await admin.reserve();
    try {
      await outside`BEGIN`;
      // Postgres rolls back whichever backend runs its deadlock check first; the outside writer's
      // check is put far off so the commit is always the one rolled back, however loaded the machine.
      await outside`SET LOCAL deadlock_timeout = '60s'`;
      await outside`SELECT 1 FROM agent_serve.records WHERE ns = ${ns} AND key = 'y' FOR UPDATE`;
      const committed = storage.commit({ records: [{ key: "x", value: "1" }, { key: "y", value: "1" }] });
      // The admin client's one connection is reserved above, so a second client watches the locks.
      const watcher = postgres(server.url, { max: 1, onnotice: () => {} });
      try {
        const blockedOnLock = async () =>
          (await watcher`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)[0]!["n"] > 0;
        await pollUntil(blockedOnLock, 10_000, "the commit waiting for y");
      } finally {
        await watcher.end();
      }
      await outside`SELECT 1 FROM agent_serve.records WHERE ns = ${ns} AND key = 'x' FOR UPDATE`;
      await outside`COMMIT`;
      expect(await within(committed, 10_000, "the commit sent again")).toEqual([]);
    } finally {
      outside.release();
    }
    // At least the one deadlock this test caused; the statistics flush on their own schedule, so a
    // deadlock of an earlier test in the same database may be counted here too.
    expect(await deadlocks()).toBeGreaterThanOrEqual(before + 1);
    expect(await storage.entries("")).toEqual([["x", "1"], ["y", "1"]]);
  });

  it("answers StorageUnavailableError while the server is down, reconnects, and the follower resumes gapless", async () => {
    const storage = driver();
    const seen: Array<[number, string]> = [];
    storage.follow("log", (first, lines) => lines.forEach((line, k) => seen.push([first + k, line])));
    await storage.append("log", ["before"]);
    await pollUntil(async () => seen.length === 1, 5_000, "the first line");
    await server.stop();
    const attempts: Array<Promise<unknown>> = [storage.get("k"), storage.append("log", ["lost"]), storage.acquireLease("l", "o", 1_000), readAll(storage.read("log"))];
    for (const attempt of attempts) {
      await expect(within(attempt, 10_000, "a refusal")).rejects.toSatisfy(StorageUnavailableError.isError);
    }
    await server.start();
    await pollUntil(() => storage.get("k").then(() => true, () => false), 10_000, "the reconnect");
    // Another process appends meanwhile; this one then appends again.
    const other = driver();
    await other.append("log", ["from another instance"]);
    expect(await storage.append("log", ["after"])).toBe(2);
    await pollUntil(async () => seen.length === 3, 10_000, "lines after the reconnect");
    expect(seen).toEqual([[0, "before"], [1, "from another instance"], [2, "after"]]);
  }, 60_000);

  it("loses no acknowledged line when the server crashes during appends", async () => {
    const storage = driver();
    const acknowledged: number[] = [];
    let stop = false;
    const writing = (async () => {
      for (let i = 0; !stop; i++) {
        try {
          acknowledged.push(await storage.append("crash", [`l${i}`]));
        } catch (error) {
          expect(StorageUnavailableError.isError(error), String(error)).toBe(true);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    })();
    await pollUntil(async () => acknowledged.length >= 50, 10_000, "appends before the crash");
    await server.crash();
    const before = acknowledged.length;
    await server.start();
    await pollUntil(async () => acknowledged.length >= before + 20, 20_000, "appends after the recovery");
    stop = true;
    await writing;
    const lines = (await readAll(storage.read("crash"))).lines;
    // Every acknowledged index holds a line, and the log has no hole.
    expect(lines.length).toBeGreaterThanOrEqual(acknowledged.length);
    for (const index of acknowledged) expect(lines[index]).toMatch(/^l\d+$/);
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
  }, 60_000);

  it("closes at once with a LISTEN in place and waits for writes sent before", async () => {
    const storage = createPostgresStorage({ url: server.url, namespace: `t${n}` });
    storage.follow("log", () => {});
    await storage.length("log");
    const writes = Array.from({ length: 20 }, (_, i) => storage.append("log", [`l${i}`]));
    const started = Date.now();
    await within(storage.close(), 5_000, "close");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await Promise.all(writes)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    await expect(storage.get("k")).rejects.toThrow(/closed/);
  });
});
