import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openNodeSqlite } from "../drivers/sqlite/database.ts";
import { createSqliteStorage, type OpenSqlite, type SqliteStorageOptions } from "../drivers/sqlite/index.ts";
import { LogConflictError, StorageUnavailableError, type StorageDriver } from "../src/entries/storage.ts";
import { lineRange, readAll, testStorageDriver } from "./_storage-tests.ts";

const sqliteFactory = (options: Omit<SqliteStorageOptions, "path"> = {}) => async () => {
  const root = await mkdtemp(join(tmpdir(), "agent-serve-sqlite-"));
  const driver = createSqliteStorage({ path: join(root, "state.db"), ...options });
  return {
    driver,
    reopen: () => createSqliteStorage({ path: join(root, "state.db"), ...options }),
    cleanup: async () => {
      await driver.close();
      await rm(root, { recursive: true, force: true });
    },
  };
};

testStorageDriver("sqlite (writer thread, lone commits inline: the default)", sqliteFactory());
testStorageDriver("sqlite (inline writer, as with a custom binding)", sqliteFactory({ writerThread: false }));
testStorageDriver("sqlite (writer thread only)", sqliteFactory({ inlineCommits: false }));

describe("sqlite driver", () => {
  let root: string;
  const drivers: StorageDriver[] = [];
  const open = (options: Omit<SqliteStorageOptions, "path"> = {}) => {
    const driver = createSqliteStorage({ path: join(root, "state.db"), ...options });
    drivers.push(driver);
    return driver;
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "agent-serve-sqlite-"));
  });
  afterEach(async () => {
    await Promise.all(drivers.splice(0).map((driver) => driver.close()));
    await rm(root, { recursive: true, force: true });
  });

  it("keeps one WAL database file with everything in it, and sees it all after a reopen", async () => {
    const first = open();
    expect(first.capabilities).toEqual({ durable: true, follow: "process", sharedLeases: true, releasesInCommit: true });
    await first.set("sessions/s1/record", "record");
    await first.append("sessions/s1/events", lineRange(0, 1_500));
    await first.acquireLease("turns/s1", "owner-a", 60_000);
    await first.close();
    expect((await readdir(root)).filter((name) => !name.startsWith("state.db"))).toEqual([]);

    const second = open();
    expect(await second.get("sessions/s1/record")).toBe("record");
    expect(await second.length("sessions/s1/events")).toBe(1_500);
    expect((await readAll(second.read("sessions/s1/events", 1_100, 1_200))).lines).toEqual(lineRange(1_100, 1_200));
    expect(await second.append("sessions/s1/events", ["next"])).toBe(1_500);
    expect(await second.acquireLease("turns/s1", "owner-b", 60_000)).toBe(false);
    await expect(first.append("sessions/s1/events", ["late"])).rejects.toThrow(/closed/);
  });

  it("lets two handles on one file (two processes) append to one log with contiguous indexes", async () => {
    const a = open();
    const b = open();
    expect(await a.append("log", ["a0", "a1"])).toBe(0);
    expect(await b.append("log", ["b2"])).toBe(2);
    await expect(a.append("log", ["stale"], 2)).rejects.toSatisfy(LogConflictError.isError);
    expect(await a.append("log", ["a3"], 3)).toBe(3);
    expect((await readAll(b.read("log"))).lines).toEqual(["a0", "a1", "b2", "a3"]);
    expect(await a.acquireLease("k", "owner-a", 60_000)).toBe(true);
    expect(await b.acquireLease("k", "owner-b", 60_000)).toBe(false);
  });

  it("raises StorageUnavailableError when the store is full, and writes nothing of that commit", async () => {
    const storage = open({ maxBytes: 64 * 1024 });
    await storage.set("small", "x");
    const big = "y".repeat(8_000);
    let error: unknown;
    for (let i = 0; i < 100 && error === undefined; i++) {
      error = await storage.commit({ records: [{ key: `r${i}`, value: big }], appends: [{ log: `l${i}`, lines: [big] }] }).then(() => undefined, (e: unknown) => e);
    }
    expect(error, String(error)).toSatisfy(StorageUnavailableError.isError);
    expect(String((error as Error).message)).toMatch(/full/i);
    expect(await storage.get("small")).toBe("x");
    // The failed commit left neither its record nor its log line.
    const records = (await storage.list("r")).length;
    let logs = 0;
    for (let i = 0; i < 100; i++) if (await storage.hasLog(`l${i}`)) logs++;
    expect(logs).toBe(records);
  });

  it("serves reads from a read-only store and answers every write with StorageUnavailableError", async () => {
    const writer = open();
    await writer.set("sessions/s1/record", "kept");
    await writer.append("sessions/s1/events", ["e0"]);
    await writer.close();
    const reader = open({ readOnly: true });
    expect(await reader.get("sessions/s1/record")).toBe("kept");
    expect((await readAll(reader.read("sessions/s1/events"))).lines).toEqual(["e0"]);
    for (const write of [reader.set("x", "y"), reader.append("l", ["z"]), reader.commit({ records: [{ key: "a", value: "b" }] }), reader.acquireLease("k", "o", 1_000)]) {
      await expect(write).rejects.toSatisfy(StorageUnavailableError.isError);
    }
  });

  it("opens a database it cannot write read-only instead of refusing to start", async () => {
    const writer = open();
    await writer.set("k", "v");
    await writer.close();
    // A read-only file system: the binding refuses writable opens the way SQLite does on EROFS.
    const readOnlyDisk: OpenSqlite = (path, options) => {
      if (!options.readOnly) throw Object.assign(new Error("attempt to write a readonly database"), { errcode: 8 });
      return openNodeSqlite(path, options);
    };
    const storage = open({ open: readOnlyDisk });
    expect(await storage.get("k")).toBe("v");
    await expect(storage.set("k", "w")).rejects.toSatisfy(StorageUnavailableError.isError);
  });

  it("commits writes that arrive together as one transaction (group commit)", async () => {
    const storage = open();
    await storage.set("warm", "up");
    const walFrames = async () => Math.floor((await stat(join(root, "state.db-wal"))).size / (4096 + 24));
    const before = await walFrames();
    await Promise.all(Array.from({ length: 200 }, (_, i) => storage.append(`sessions/s${i}/events`, [`{"i":${i}}`])));
    for (let i = 0; i < 200; i += 37) expect((await readAll(storage.read(`sessions/s${i}/events`))).lines).toEqual([`{"i":${i}}`]);
    // 200 one-line commits as separate transactions would add at least 200 WAL commit frames.
    expect((await walFrames()) - before).toBeLessThan(50);
  });
});

