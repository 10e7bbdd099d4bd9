/**
 * The storage port's conformance suite: every driver runs the same tests
 * (`testStorageDriver("memory", factory)`), so they cannot drift apart.
 * @module
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LogConflictError, RecordConflictError, type StorageDriver, updateRecord } from "../src/entries/storage.ts";

export interface StorageFixture {
  driver: StorageDriver;
  /**
   * Opens another driver instance on the same store, as another process would (sqlite: the same
   * file; Redis: the same database and prefix). Absent where there is no such thing (memory).
   */
  reopen?: () => StorageDriver;
  cleanup(): Promise<void>;
}

/** Lines and batches of a `read`. */
export async function readAll(lines: AsyncIterable<string[]>): Promise<{ lines: string[]; batches: string[][] }> {
  const batches: string[][] = [];
  for await (const batch of lines) batches.push(batch);
  return { lines: batches.flat(), batches };
}

/** Rejects when `promise` has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it resolves true; rejects after `ms`. */
export async function pollUntil(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const lineRange = (from: number, to: number, tag = "e"): string[] =>
  Array.from({ length: to - from }, (_, i) => JSON.stringify({ type: tag, index: from + i }));

const INVALID_KEYS = ["../x", "a//b", "a/../b", "", "%2e%2e", "/abs", "a/", "./a", "a\\b", "a b", "a\nb"];

export function testStorageDriver(name: string, factory: () => Promise<StorageFixture>): void {
  describe(`storage conformance: ${name}`, () => {
    let fixture: StorageFixture;
    let storage: StorageDriver;

    beforeEach(async () => {
      fixture = await factory();
      storage = fixture.driver;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    describe("records", () => {
      it("round-trips values byte for byte and answers undefined for a missing key", async () => {
        expect(await storage.get("sessions/s1")).toBeUndefined();
        const values = ['{"id":"s1","n":1}', "123", "true", "", "naïve ☃ 𝄞", '{"line":"a\\nb"}', "two\nlines"];
        for (const [i, value] of values.entries()) await storage.set(`values/v${i}`, value);
        for (const [i, value] of values.entries()) expect(await storage.get(`values/v${i}`)).toBe(value);
      });

      it("overwrites a value", async () => {
        await storage.set("sessions/s1", "first");
        await storage.set("sessions/s1", "second");
        expect(await storage.get("sessions/s1")).toBe("second");
        expect(await storage.list("sessions/")).toEqual(["sessions/s1"]);
      });

      it("deletes a value, and deleting a missing key is fine", async () => {
        await storage.set("sessions/s1", "x");
        await storage.delete("sessions/s1");
        expect(await storage.get("sessions/s1")).toBeUndefined();
        await storage.delete("sessions/s1");
        await storage.delete("never/was/there");
        expect(await storage.list("")).toEqual([]);
      });

      it("lists keys sorted, isolated by prefix, without logs", async () => {
        // Not under `sessions/`: on Workers that listing is the coordinator's mirror of session records only.
        for (const key of ["topics/b", "topics2/c", "topics/a/x", "topics/a", "other/d", "topics/a.b"]) {
          await storage.set(key, key);
        }
        await storage.append("topics/log", ["{}"]);
        await storage.acquireLease("topics/a", "owner-1", 60_000);
        expect(await storage.list("topics/")).toEqual(["topics/a", "topics/a.b", "topics/a/x", "topics/b"]);
        expect(await storage.list("topics2/")).toEqual(["topics2/c"]);
        expect(await storage.list("topics/a/")).toEqual(["topics/a/x"]);
        expect(await storage.list("topics/a")).toEqual(["topics/a", "topics/a.b", "topics/a/x"]);
        expect(await storage.list("missing/")).toEqual([]);
        expect(await storage.list("")).toEqual([
          "other/d",
          "topics/a",
          "topics/a.b",
          "topics/a/x",
          "topics/b",
          "topics2/c",
        ]);
      });

      it("rejects invalid keys and prefixes", async () => {
        for (const key of INVALID_KEYS) {
          await expect(storage.get(key), key).rejects.toThrow(/invalid key/);
          await expect(storage.set(key, "x"), key).rejects.toThrow(/invalid key/);
          await expect(storage.delete(key), key).rejects.toThrow(/invalid key/);
        }
        await expect(storage.list("../")).rejects.toThrow(/invalid key/);
        await expect(storage.list("a//")).rejects.toThrow(/invalid key/);
        expect(await storage.list("")).toEqual([]);
      });
    });

    describe("logs", () => {
      it("appends with contiguous indexes from 0", async () => {
        expect(await storage.length("sessions/s1/events")).toBe(0);
        expect(await storage.hasLog("sessions/s1/events")).toBe(false);
        expect(await storage.append("sessions/s1/events", lineRange(0, 2))).toBe(0);
        expect(await storage.append("sessions/s1/events", lineRange(2, 5))).toBe(2);
        expect(await storage.append("sessions/s1/events", lineRange(5, 6))).toBe(5);
        expect(await storage.length("sessions/s1/events")).toBe(6);
        expect(await storage.hasLog("sessions/s1/events")).toBe(true);
        expect((await readAll(storage.read("sessions/s1/events"))).lines).toEqual(lineRange(0, 6));
        // Logs are separate from each other and from records with the same name.
        expect(await storage.length("sessions/s2/events")).toBe(0);
        expect(await storage.get("sessions/s1/events")).toBeUndefined();
      });

      it("lands 200 concurrent appends exactly once, in call order", async () => {
        const calls = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? [`{"call":${i},"part":0}`, `{"call":${i},"part":1}`] : [`{"call":${i}}`]));
        const indexes = await Promise.all(calls.map((lines) => storage.append("sessions/s1/events", lines)));
        let expected = 0;
        for (const [i, lines] of calls.entries()) {
          expect(indexes[i]).toBe(expected);
          expected += lines.length;
        }
        expect(await storage.length("sessions/s1/events")).toBe(expected);
        expect((await readAll(storage.read("sessions/s1/events"))).lines).toEqual(calls.flat());
      });

      it("rejects a stale expectedIndex with LogConflictError and writes nothing", async () => {
        await storage.append("sessions/s1/events", lineRange(0, 3));
        const error = await storage.append("sessions/s1/events", ["stale"], 2).catch((e: unknown) => e);
        expect(LogConflictError.isError(error)).toBe(true);
        expect(error).toMatchObject({ log: "sessions/s1/events", expectedIndex: 2, actualIndex: 3 });
        expect(await storage.length("sessions/s1/events")).toBe(3);
        expect(await storage.append("sessions/s1/events", ["fresh"], 3)).toBe(3);

        // Two writers that both believe the log is at 4: the first call wins, the second writes nothing.
        const [first, second] = await Promise.allSettled([
          storage.append("sessions/s1/events", ["writer-a"], 4),
          storage.append("sessions/s1/events", ["writer-b"], 4),
        ]);
        expect(first).toEqual({ status: "fulfilled", value: 4 });
        expect(second.status).toBe("rejected");
        expect(LogConflictError.isError(second.status === "rejected" ? second.reason : undefined)).toBe(true);
        expect((await readAll(storage.read("sessions/s1/events"))).lines).toEqual([...lineRange(0, 3), "fresh", "writer-a"]);

        // expectedIndex on a log that does not exist yet: only 0 is right.
        await expect(storage.append("sessions/s2/events", ["x"], 1)).rejects.toSatisfy(LogConflictError.isError);
        expect(await storage.hasLog("sessions/s2/events")).toBe(false);
        expect(await storage.append("sessions/s2/events", ["x"], 0)).toBe(0);
      });

      it("reads ranges, past the end, and missing logs", async () => {
        await storage.append("log", lineRange(0, 10));
        expect((await readAll(storage.read("log", 3, 7))).lines).toEqual(lineRange(3, 7));
        expect((await readAll(storage.read("log", 8))).lines).toEqual(lineRange(8, 10));
        expect((await readAll(storage.read("log", 0, 100))).lines).toEqual(lineRange(0, 10));
        expect((await readAll(storage.read("log", 5, 5))).batches).toEqual([]);
        expect((await readAll(storage.read("log", 7, 3))).batches).toEqual([]);
        expect((await readAll(storage.read("log", 10))).batches).toEqual([]);
        expect((await readAll(storage.read("log", 25))).batches).toEqual([]);
        expect((await readAll(storage.read("missing/log"))).batches).toEqual([]);
      });

      it("takes the default end of a read when read is called", async () => {
        await storage.append("log", lineRange(0, 3));
        const before = storage.read("log");
        const appended = storage.append("log", lineRange(3, 5));
        const explicit = storage.read("log", 1, 4);
        expect(await appended).toBe(3);
        expect((await readAll(before)).lines).toEqual(lineRange(0, 3));
        expect((await readAll(explicit)).lines).toEqual(lineRange(1, 4));
        expect((await readAll(storage.read("log"))).lines).toEqual(lineRange(0, 5));
      });

      it("reads 10,000 lines back in batches of at most 1024", async () => {
        for (let start = 0; start < 10_000; start += 500) {
          expect(await storage.append("big", lineRange(start, start + 500))).toBe(start);
        }
        const { lines, batches } = await readAll(storage.read("big"));
        expect(lines).toEqual(lineRange(0, 10_000));
        expect(batches.length).toBeGreaterThanOrEqual(10);
        for (const batch of batches) {
          expect(batch.length).toBeGreaterThan(0);
          expect(batch.length).toBeLessThanOrEqual(1024);
        }
        expect((await readAll(storage.read("big", 1023, 1026))).lines).toEqual(lineRange(1023, 1026));
        expect((await readAll(storage.read("big", 2048, 2049))).lines).toEqual(lineRange(2048, 2049));
        expect((await readAll(storage.read("big", 9_998))).lines).toEqual(lineRange(9_998, 10_000));
        const middle = await readAll(storage.read("big", 4_000, 7_000));
        expect(middle.lines).toEqual(lineRange(4_000, 7_000));
        expect(Math.max(...middle.batches.map((b) => b.length))).toBeLessThanOrEqual(1024);
      });

      it("stops early when the reader stops", async () => {
        await storage.append("big", lineRange(0, 3_000));
        const seen: string[] = [];
        for await (const batch of storage.read("big")) {
          seen.push(...batch);
          break;
        }
        expect(seen).toEqual(lineRange(0, seen.length));
        expect(seen.length).toBeGreaterThan(0);
        expect(await storage.append("big", ["after"])).toBe(3_000);
      });

      it("deletes a log; a later append starts again at 0", async () => {
        await storage.append("sessions/s1/events", lineRange(0, 4));
        await storage.deleteLog("sessions/s1/events");
        expect(await storage.hasLog("sessions/s1/events")).toBe(false);
        expect(await storage.length("sessions/s1/events")).toBe(0);
        expect((await readAll(storage.read("sessions/s1/events"))).batches).toEqual([]);
        expect(await storage.append("sessions/s1/events", ["again"])).toBe(0);
        expect((await readAll(storage.read("sessions/s1/events"))).lines).toEqual(["again"]);
        await storage.deleteLog("never/existed");
        expect(await storage.hasLog("never/existed")).toBe(false);
      });

      it("orders deleteLog after earlier appends and before later ones", async () => {
        const before = storage.append("log", ["old-1", "old-2"]);
        const deleted = storage.deleteLog("log");
        const after = storage.append("log", ["new"]);
        expect(await before).toBe(0);
        await deleted;
        expect(await after).toBe(0);
        expect((await readAll(storage.read("log"))).lines).toEqual(["new"]);
      });

      it("rejects lines with a newline, invalid log names, and writes nothing for no lines", async () => {
        await expect(storage.append("log", ["ok", "a\nb"])).rejects.toThrow(/newline/);
        expect(await storage.length("log")).toBe(0);
        expect(await storage.append("log", [])).toBe(0);
        expect(await storage.hasLog("log")).toBe(false);
        await storage.append("log", ["a"]);
        expect(await storage.append("log", [])).toBe(1);
        for (const key of INVALID_KEYS) {
          await expect(storage.append(key, ["x"]), key).rejects.toThrow(/invalid key/);
          await expect(storage.length(key), key).rejects.toThrow(/invalid key/);
          await expect(storage.hasLog(key), key).rejects.toThrow(/invalid key/);
          await expect(storage.deleteLog(key), key).rejects.toThrow(/invalid key/);
          await expect(readAll(storage.read(key)), key).rejects.toThrow(/invalid key/);
        }
      });

      it("waits for pending appends on close", async () => {
        const pending = Array.from({ length: 50 }, (_, i) => storage.append(`logs/l${i % 5}`, [`{"i":${i}}`]));
        await storage.close();
        expect((await Promise.all(pending)).sort((a, b) => a - b)).toEqual(
          Array.from({ length: 50 }, (_, i) => Math.floor(i / 5)),
        );
      });
    });

    describe("commit", () => {
      it("applies records, deletes and appends to several logs together", async () => {
        await storage.set("gone", "x");
        await storage.append("a", ["a0"]);
        const firsts = await storage.commit({
          records: [
            { key: "r1", value: "one" },
            { key: "gone", value: null },
          ],
          appends: [
            { log: "a", lines: ["a1", "a2"], expectedIndex: 1 },
            { log: "b", lines: ["b0"] },
            { log: "a", lines: ["a3"] },
          ],
        });
        expect(firsts).toEqual([1, 0, 3]);
        expect(await storage.get("r1")).toBe("one");
        expect(await storage.get("gone")).toBeUndefined();
        expect((await readAll(storage.read("a"))).lines).toEqual(["a0", "a1", "a2", "a3"]);
        expect((await readAll(storage.read("b"))).lines).toEqual(["b0"]);
      });

      it("writes nothing when one expected index or value is stale", async () => {
        await storage.set("r", "v1");
        await storage.append("a", ["a0"]);
        const staleIndex = storage.commit({ records: [{ key: "r", value: "v2" }], appends: [{ log: "b", lines: ["b0"] }, { log: "a", lines: ["x"], expectedIndex: 0 }] });
        await expect(staleIndex).rejects.toSatisfy(LogConflictError.isError);
        const staleValue = storage.commit({ records: [{ key: "r", value: "v3", expected: "v0" }], appends: [{ log: "a", lines: ["y"] }] });
        await expect(staleValue).rejects.toSatisfy(RecordConflictError.isError);
        const absent = storage.commit({ records: [{ key: "r", value: "v4", expected: null }] });
        await expect(absent).rejects.toSatisfy(RecordConflictError.isError);
        expect(await storage.get("r")).toBe("v1");
        expect(await storage.hasLog("b")).toBe(false);
        expect((await readAll(storage.read("a"))).lines).toEqual(["a0"]);
        // A matching compare-and-set goes through, also for a key that must be absent.
        await storage.commit({ records: [{ key: "r", value: "v5", expected: "v1" }, { key: "new", value: "n", expected: null }] });
        expect(await storage.get("r")).toBe("v5");
        expect(await storage.get("new")).toBe("n");
      });

      it("validates every key and line before writing anything", async () => {
        await expect(storage.commit({ records: [{ key: "ok", value: "v" }, { key: "../x", value: "v" }] })).rejects.toThrow(/invalid key/);
        await expect(storage.commit({ records: [{ key: "ok", value: "v" }], appends: [{ log: "l", lines: ["a\nb"] }] })).rejects.toThrow(/newline/);
        expect(await storage.get("ok")).toBeUndefined();
        expect(await storage.hasLog("l")).toBe(false);
      });

      it("keeps concurrent commits apart: a conflict in one does not undo the others", async () => {
        await storage.append("a", ["a0"]);
        const results = await Promise.allSettled([
          storage.commit({ appends: [{ log: "a", lines: ["first"], expectedIndex: 1 }] }),
          storage.commit({ appends: [{ log: "a", lines: ["loser"], expectedIndex: 1 }], records: [{ key: "loser", value: "x" }] }),
          storage.commit({ appends: [{ log: "c", lines: ["c0"] }], records: [{ key: "winner", value: "y" }] }),
        ]);
        expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
        expect((await readAll(storage.read("a"))).lines).toEqual(["a0", "first"]);
        expect(await storage.get("loser")).toBeUndefined();
        expect(await storage.get("winner")).toBe("y");
      });

      it("updates a record atomically under concurrent updaters", async () => {
        await storage.set("counter", "0");
        await Promise.all(Array.from({ length: 20 }, () => updateRecord(storage, "counter", (v) => String(Number(v) + 1))));
        expect(await storage.get("counter")).toBe("20");
        expect(await updateRecord(storage, "counter", () => undefined)).toBe("20");
        expect(await updateRecord(storage, "counter", () => null)).toBeUndefined();
        expect(await storage.get("counter")).toBeUndefined();
      });

      it("lists entries with their values by prefix, sorted", async () => {
        for (const key of ["s/b", "s/a", "t/c", "s/a/x"]) await storage.set(key, `v:${key}`);
        expect(await storage.entries("s/")).toEqual([
          ["s/a", "v:s/a"],
          ["s/a/x", "v:s/a/x"],
          ["s/b", "v:s/b"],
        ]);
        expect((await storage.entries("")).map(([key]) => key)).toEqual(["s/a", "s/a/x", "s/b", "t/c"]);
        await expect(storage.entries("../")).rejects.toThrow(/invalid key/);
      });

      it("pages through entries by prefix: bounded, after a key, in key order, no gap or repeat", async () => {
        const keys = Array.from({ length: 25 }, (_, i) => `p/${String(i).padStart(3, "0")}`);
        for (const key of [...keys].reverse()) await storage.set(key, `v:${key}`);
        for (const key of ["o/x", "p0", "q/y", "p/0/deeper"]) await storage.set(key, "other");
        const expected = [...keys.slice(0, 1), "p/0/deeper", ...keys.slice(1)].sort();
        expect(expected).toHaveLength(26);
        const seen: string[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 10; pages++) {
          const page = await storage.entriesPage("p/", { limit: 7, ...(after === undefined ? {} : { after }) });
          expect(page.length).toBeLessThanOrEqual(7);
          for (const [key, value] of page) expect(value).toBe(key === "p/0/deeper" ? "other" : `v:${key}`);
          seen.push(...page.map(([key]) => key));
          if (page.length < 7) break;
          after = page.at(-1)![0];
        }
        expect(seen).toEqual(expected);
        // A key written between pages shows up when it sorts after the cursor, never twice.
        const first = await storage.entriesPage("p/", { limit: 2 });
        await storage.set("p/000a", "late");
        await storage.delete("p/001");
        const next = await storage.entriesPage("p/", { limit: 3, after: first.at(-1)![0] });
        expect(first.map(([key]) => key)).toEqual(["p/0/deeper", "p/000"]);
        expect(next.map(([key]) => key)).toEqual(["p/000a", "p/002", "p/003"]);
        // `after` before the prefix starts at the prefix; past it, nothing.
        expect((await storage.entriesPage("p/", { limit: 1, after: "a" })).map(([key]) => key)).toEqual(["p/0/deeper"]);
        expect(await storage.entriesPage("p/", { limit: 5, after: "p/zzz" })).toEqual([]);
        expect((await storage.entriesPage("", { limit: 2 })).map(([key]) => key)).toEqual(["o/x", "p/0/deeper"]);
        expect(await storage.entriesPage("none/", { limit: 3 })).toEqual([]);
        await expect(storage.entriesPage("../", { limit: 1 })).rejects.toThrow(/invalid key/);
        await expect(storage.entriesPage("p/", { limit: 0 })).rejects.toThrow(/limit/);
        await expect(storage.entriesPage("p/", { limit: 1.5 })).rejects.toThrow(/limit/);
      });
    });

    describe("follow", () => {
      it("delivers committed lines in order to the log's followers only, until unsubscribed", async () => {
        expect(["process", "shared"]).toContain(storage.capabilities.follow);
        await storage.append("a", ["before"]);
        const seen: Array<[number, string[]]> = [];
        const other: string[] = [];
        const stop = storage.follow("a", (first, lines) => seen.push([first, [...lines]]));
        const stopOther = storage.follow("b", (_, lines) => other.push(...lines));
        await Promise.all([storage.append("a", ["a1", "a2"]), storage.commit({ appends: [{ log: "a", lines: ["a3"] }] })]);
        await expect(storage.append("a", ["bad"], 0)).rejects.toSatisfy(LogConflictError.isError);
        await pollUntil(async () => seen.flatMap(([, lines]) => lines).length === 3, 5_000, "followed lines");
        expect(seen.flatMap(([first, lines]) => lines.map((line, i) => [first + i, line]))).toEqual([
          [1, "a1"],
          [2, "a2"],
          [3, "a3"],
        ]);
        stop();
        await storage.append("a", ["after"]);
        expect(seen.flatMap(([, lines]) => lines)).not.toContain("after");
        expect(other).toEqual([]);
        stopOther();
      });

      it("shows a follower a line only once a read sees it too", async () => {
        const checks: Array<Promise<boolean>> = [];
        const stop = storage.follow("a", (first, lines) => {
          checks.push(storage.length("a").then((length) => length >= first + lines.length));
        });
        await Promise.all(Array.from({ length: 10 }, (_, i) => storage.append("a", [`l${i}`])));
        stop();
        expect(checks).toHaveLength(10);
        expect(await Promise.all(checks)).toEqual(checks.map(() => true));
      });
    });

    describe("across instances", () => {
      it("keeps what the capabilities promise for another instance on the same store", async () => {
        const { sharedLeases, follow } = storage.capabilities;
        if (!fixture.reopen) {
          // Only a store one instance can open may keep leases and followers to itself.
          expect({ sharedLeases, follow }).toEqual({ sharedLeases: false, follow: "process" });
          return;
        }
        const other = fixture.reopen();
        try {
          await storage.set("shared/r", "v");
          expect(await other.get("shared/r")).toBe("v");
          if (sharedLeases) {
            expect(await storage.acquireLease("turns/s1", "owner-a", 60_000)).toBe(true);
            expect(await other.acquireLease("turns/s1", "owner-b", 60_000)).toBe(false);
            await storage.releaseLease("turns/s1", "owner-a");
            expect(await other.acquireLease("turns/s1", "owner-b", 60_000)).toBe(true);
          }
          if (follow === "shared") {
            const seen: Array<[number, string]> = [];
            const stop = other.follow("shared/log", (first, lines) => lines.forEach((line, i) => seen.push([first + i, line])));
            await other.length("shared/log");
            await Promise.all([storage.append("shared/log", ["l0", "l1"]), storage.commit({ appends: [{ log: "shared/log", lines: ["l2"] }] })]);
            await pollUntil(async () => seen.length === 3, 5_000, "lines followed on the other instance");
            expect(seen).toEqual([[0, "l0"], [1, "l1"], [2, "l2"]]);
            stop();
          }
        } finally {
          await other.close();
        }
      });
    });

    describe("leases", () => {
      it("acquires, renews for the same owner, refuses another owner, releases for the owner only", async () => {
        expect(await storage.acquireLease("sessions/s1", "owner-a", 60_000)).toBe(true);
        expect(await storage.acquireLease("sessions/s1", "owner-a", 60_000)).toBe(true);
        expect(await storage.acquireLease("sessions/s1", "owner-b", 60_000)).toBe(false);
        // Leases are per key.
        expect(await storage.acquireLease("sessions/s2", "owner-b", 60_000)).toBe(true);
        await storage.releaseLease("sessions/s1", "owner-b");
        expect(await storage.acquireLease("sessions/s1", "owner-b", 60_000)).toBe(false);
        await storage.releaseLease("sessions/s1", "owner-a");
        expect(await storage.acquireLease("sessions/s1", "owner-b", 60_000)).toBe(true);
        expect(await storage.acquireLease("sessions/s1", "owner-a", 60_000)).toBe(false);
        await storage.releaseLease("never/held", "owner-a");
      });

      it("releases a commit's leases with its writes, for their owner only, and keeps them when the commit is refused", async () => {
        if (storage.capabilities.releasesInCommit !== true) {
          // Without the capability the core never sends `releases`: nothing to hold the driver to.
          expect(storage.capabilities.releasesInCommit ?? false).toBe(false);
          return;
        }
        expect(await storage.acquireLease("turns/s1", "owner-a", 60_000)).toBe(true);
        expect(await storage.acquireLease("turns/s2", "owner-b", 60_000)).toBe(true);
        await storage.append("sessions/s1/events", ["e0"]);
        // Refused (a stale index): the lease stays held, nothing is written.
        await expect(
          storage.commit({ records: [{ key: "active/s1", value: null }], appends: [{ log: "sessions/s1/events", lines: ["e1"], expectedIndex: 0 }], releases: [{ key: "turns/s1", owner: "owner-a" }] }),
        ).rejects.toThrow(LogConflictError);
        expect(await storage.acquireLease("turns/s1", "owner-c", 60_000)).toBe(false);
        // Applied: the records, the lines and the release together; another owner's lease is kept.
        await storage.set("active/s1", "owner-a");
        expect(
          await storage.commit({
            records: [{ key: "active/s1", value: null }],
            appends: [{ log: "sessions/s1/events", lines: ["e1"], expectedIndex: 1 }],
            releases: [
              { key: "turns/s1", owner: "owner-a" },
              { key: "turns/s2", owner: "owner-a" },
            ],
          }),
        ).toEqual([1]);
        expect(await storage.get("active/s1")).toBeUndefined();
        expect((await readAll(storage.read("sessions/s1/events"))).lines).toEqual(["e0", "e1"]);
        expect(await storage.acquireLease("turns/s1", "owner-c", 60_000)).toBe(true);
        expect(await storage.acquireLease("turns/s2", "owner-c", 60_000)).toBe(false);
        await expect(storage.commit({ releases: [{ key: "../x", owner: "owner-a" }] })).rejects.toThrow(/invalid key/);
      });

      it("renewal moves the expiry", async () => {
        // A ttl of 0 is expired at once; renewing it with a long ttl must shut other owners out.
        expect(await storage.acquireLease("sessions/s1", "owner-a", 0)).toBe(true);
        expect(await storage.acquireLease("sessions/s1", "owner-a", 60_000)).toBe(true);
        expect(await storage.acquireLease("sessions/s1", "owner-b", 60_000)).toBe(false);
      });

      it("lets another owner take over an expired lease, not before", async () => {
        expect(await storage.acquireLease("sessions/s1", "owner-a", 0)).toBe(true);
        expect(await storage.acquireLease("sessions/s1", "owner-b", 60_000)).toBe(true);
        expect(await storage.acquireLease("sessions/s1", "owner-a", 60_000)).toBe(false);

        const ttl = 1_000;
        const start = Date.now();
        expect(await storage.acquireLease("sessions/s2", "owner-a", ttl)).toBe(true);
        expect(await storage.acquireLease("sessions/s2", "owner-b", ttl)).toBe(false);
        await pollUntil(() => storage.acquireLease("sessions/s2", "owner-b", 60_000), ttl + 5_000, "lease expiry");
        expect(Date.now() - start).toBeGreaterThanOrEqual(ttl);
        expect(await storage.acquireLease("sessions/s2", "owner-a", ttl)).toBe(false);
      });

      it("rejects invalid lease keys and empty owners", async () => {
        for (const key of INVALID_KEYS) {
          await expect(storage.acquireLease(key, "owner-a", 1_000), key).rejects.toThrow(/invalid key/);
          await expect(storage.releaseLease(key, "owner-a"), key).rejects.toThrow(/invalid key/);
        }
        await expect(storage.acquireLease("sessions/s1", "", 1_000)).rejects.toThrow(/owner/);
      });
    });
  });
}
