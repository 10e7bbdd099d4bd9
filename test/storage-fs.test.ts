import { spawn } from "node:child_process";
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStorage, type FsStorageOptions } from "../drivers/fs/index.ts";
import type { StorageDriver } from "../src/storage/index.ts";
import { lineRange, pollUntil, readAll, testStorageDriver, within } from "./_storage-tests.ts";

const DRIVER_ENTRY = fileURLToPath(new URL("../drivers/fs/index.ts", import.meta.url));

function fsFactory(options: Omit<FsStorageOptions, "root"> = {}) {
  return async () => {
    const root = await mkdtemp(join(tmpdir(), "agent-serve-fs-"));
    const driver = createFsStorage({ root, ...options });
    return {
      driver,
      cleanup: async () => {
        await driver.close();
        await rm(root, { recursive: true, force: true });
      },
    };
  };
}

testStorageDriver("fs", fsFactory());
testStorageDriver("fs (fsync never, 2 open logs)", fsFactory({ fsync: "never", maxOpenLogs: 2 }));

describe("fs driver", () => {
  let root: string;
  const drivers: StorageDriver[] = [];
  const open = (options: Omit<FsStorageOptions, "root"> = {}) => {
    const driver = createFsStorage({ root, ...options });
    drivers.push(driver);
    return driver;
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "agent-serve-fs-"));
  });
  afterEach(async () => {
    await Promise.all(drivers.splice(0).map((driver) => driver.close()));
    await rm(root, { recursive: true, force: true });
  });

  it("lays records, logs and leases out as documented, with no temp files left", async () => {
    const storage = open();
    await storage.set("sessions/s1", '{"id":"s1"}');
    await storage.set("sessions/s1", '{"id":"s1","v":2}');
    await storage.append("sessions/s1/events", ['{"a":1}', '{"b":2}']);
    await storage.acquireLease("sessions/s1", "owner-a", 60_000);
    expect(await readFile(join(root, "sessions/s1.json"), "utf8")).toBe('{"id":"s1","v":2}');
    expect(await readFile(join(root, "sessions/s1/events.ndjson"), "utf8")).toBe('{"a":1}\n{"b":2}\n');
    const lock: unknown = JSON.parse(await readFile(join(root, ".leases/sessions__s1.lock"), "utf8"));
    expect(lock).toMatchObject({ owner: "owner-a", expiresAt: expect.any(Number) });
    expect((await readdir(join(root, "sessions"))).sort()).toEqual(["s1", "s1.json"]);
    expect(await readdir(join(root, ".leases"))).toEqual(["sessions__s1.lock"]);
  });

  it("ignores stray temp files when listing", async () => {
    const storage = open();
    await storage.set("sessions/s1", "x");
    await writeFile(join(root, "sessions/.s2.json.123.1.tmp"), "half");
    await writeFile(join(root, "sessions/notes.txt"), "not a record");
    expect(await storage.list("sessions/")).toEqual(["sessions/s1"]);
  });

  it("sees the same data after a restart", async () => {
    const first = open();
    await first.set("sessions/s1", "record");
    await first.append("sessions/s1/events", lineRange(0, 1_500));
    await first.acquireLease("sessions/s1", "owner-a", 60_000);
    await first.close();

    const second = open();
    expect(await second.get("sessions/s1")).toBe("record");
    expect(await second.list("sessions/")).toEqual(["sessions/s1"]);
    expect(await second.length("sessions/s1/events")).toBe(1_500);
    expect((await readAll(second.read("sessions/s1/events", 1_100, 1_200))).lines).toEqual(lineRange(1_100, 1_200));
    expect(await second.append("sessions/s1/events", ["next"])).toBe(1_500);
    expect(await second.acquireLease("sessions/s1", "owner-b", 60_000)).toBe(false);
    expect(await second.acquireLease("sessions/s1", "owner-a", 60_000)).toBe(true);
    await expect(first.append("sessions/s1/events", ["late"])).rejects.toThrow(/closed/);
  });

  it("truncates a torn last line away when the log is opened", async () => {
    const first = open();
    await first.append("sessions/s1/events", lineRange(0, 3));
    await first.close();
    const path = join(root, "sessions/s1/events.ndjson");
    await appendFile(path, '{"type":"e","ind');

    const second = open();
    expect(await second.length("sessions/s1/events")).toBe(3);
    expect((await readAll(second.read("sessions/s1/events"))).lines).toEqual(lineRange(0, 3));
    expect(await second.append("sessions/s1/events", lineRange(3, 4))).toBe(3);
    expect(await readFile(path, "utf8")).toBe(`${lineRange(0, 4).join("\n")}\n`);
    expect((await readAll(second.read("sessions/s1/events"))).lines).toEqual(lineRange(0, 4));
  });

  it("continues a log another driver instance appended to or deleted", async () => {
    const a = open();
    const b = open();
    expect(await a.append("log", ["a0", "a1"])).toBe(0);
    expect(await b.append("log", ["b2", "b3", "b4"])).toBe(2);
    expect(await a.length("log")).toBe(5);
    expect(await a.append("log", ["a5"], 5)).toBe(5);
    expect((await readAll(b.read("log"))).lines).toEqual(["a0", "a1", "b2", "b3", "b4", "a5"]);
    await b.deleteLog("log");
    expect(await a.hasLog("log")).toBe(false);
    expect(await a.append("log", ["fresh"])).toBe(0);
    expect((await readAll(b.read("log"))).lines).toEqual(["fresh"]);
  });

  it("keeps every log right when more logs are used than stay open", async () => {
    const storage = open({ maxOpenLogs: 3 });
    const logs = Array.from({ length: 20 }, (_, i) => `sessions/s${i}/events`);
    for (let round = 0; round < 5; round++) {
      const indexes = await Promise.all(logs.map((log) => storage.append(log, [`{"round":${round},"log":"${log}"}`])));
      expect(indexes).toEqual(logs.map(() => round));
    }
    for (const log of logs) {
      expect((await readAll(storage.read(log))).lines).toEqual(
        Array.from({ length: 5 }, (_, round) => `{"round":${round},"log":"${log}"}`),
      );
    }
  });

  it("reads a 100,000-line log back intact, also after a reopen", async () => {
    const storage = open({ fsync: "never" });
    const line = (i: number) => JSON.stringify({ type: "message.appended", index: i, delta: "x".repeat(i % 200) });
    for (let start = 0; start < 100_000; start += 2_000) {
      const lines = Array.from({ length: 2_000 }, (_, i) => line(start + i));
      expect(await storage.append("sessions/big/events", lines)).toBe(start);
    }
    const check = async (driver: StorageDriver) => {
      let count = 0;
      let largest = 0;
      for await (const batch of driver.read("sessions/big/events")) {
        largest = Math.max(largest, batch.length);
        for (const text of batch) {
          if (text !== line(count)) throw new Error(`line ${count} differs: ${text.slice(0, 80)}`);
          count++;
        }
      }
      expect(count).toBe(100_000);
      expect(largest).toBeLessThanOrEqual(1024);
      expect((await readAll(driver.read("sessions/big/events", 54_321, 54_324))).lines).toEqual(
        [54_321, 54_322, 54_323].map(line),
      );
      expect((await readAll(driver.read("sessions/big/events", 99_990))).lines).toHaveLength(10);
    };
    await check(storage);
    await storage.close();
    const reopened = open();
    expect(await reopened.length("sessions/big/events")).toBe(100_000);
    await check(reopened);
  });

  it("refuses a lease taken by another process until it expires", async () => {
    const ttl = 2_000;
    const start = Date.now();
    const script = `
      const { createFsStorage } = await import(${JSON.stringify(DRIVER_ENTRY)});
      const storage = createFsStorage({ root: ${JSON.stringify(root)} });
      const say = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
      say({ acquired: await storage.acquireLease("sessions/s1", "child", ${ttl}) });
      for await (const _ of process.stdin) {
        say({ acquired: await storage.acquireLease("sessions/s1", "child", ${ttl}) });
        break;
      }
      await storage.close();
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const nextMessage = async () => {
      const next = await within(lines.next(), 15_000, `child output (stderr: ${stderr})`);
      if (next.done) throw new Error(`child ended early: ${stderr}`);
      return JSON.parse(next.value) as unknown;
    };
    try {
      expect(await nextMessage()).toEqual({ acquired: true });
      const parent = open();
      expect(await parent.acquireLease("sessions/s1", "parent", 60_000)).toBe(false);
      await pollUntil(() => parent.acquireLease("sessions/s1", "parent", 60_000), ttl + 10_000, "the child's lease to expire");
      expect(Date.now() - start).toBeGreaterThanOrEqual(ttl);
      child.stdin.write("again\n");
      expect(await nextMessage()).toEqual({ acquired: false });
      expect(await within(exited, 10_000, "child exit")).toBe(0);
    } finally {
      child.kill();
    }
  });
});
