/**
 * The timer port's pieces: the built-in clock (one timer for the earliest arm), cron and duration
 * parsing, the reminders' due index and the lease-guarded decision helper.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { DueIndex } from "../src/features/reminders/due-index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { createClock } from "../src/features/timers/clock.ts";
import { compileCron, cronProblem } from "../src/base/cron.ts";
import { parseDuration } from "../src/base/duration.ts";
import { createExclusive } from "../src/base/storage/exclusive.ts";

const T0 = Date.parse("2026-03-02T09:00:00.000Z");

describe("the built-in clock", () => {
  afterEach(() => vi.useRealTimers());

  it("wakes once when the earliest arm is due and forgets the keys that were due", async () => {
    vi.useFakeTimers({ now: T0 });
    const woke: number[] = [];
    const clock = createClock({ onDue: () => woke.push(Date.now()) });
    clock.arm("a", T0 + 5_000);
    clock.arm("b", T0 + 1_000);
    clock.arm("c", T0 + 1_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(woke).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(woke).toEqual([T0 + 1_000]);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(woke).toEqual([T0 + 1_000, T0 + 5_000]);
    // Everything fired was forgotten: no timer is left.
    expect(vi.getTimerCount()).toBe(0);
    clock.close();
  });

  it("re-arming moves a key; disarming the earliest moves the timer to the next; past times fire at once", async () => {
    vi.useFakeTimers({ now: T0 });
    const woke: number[] = [];
    const clock = createClock({ onDue: () => woke.push(Date.now()) });
    clock.arm("a", T0 + 1_000);
    clock.arm("b", T0 + 3_000);
    clock.arm("a", T0 + 10_000);
    clock.disarm("b");
    await vi.advanceTimersByTimeAsync(9_999);
    expect(woke).toEqual([]);
    clock.arm("late", T0 - 60_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(woke).toEqual([T0 + 9_999]);
    await vi.advanceTimersByTimeAsync(1);
    expect(woke).toEqual([T0 + 9_999, T0 + 10_000]);
    clock.close();
  });

  it("long waits are taken in steps, so a jumped wall clock is noticed", async () => {
    vi.useFakeTimers({ now: T0 });
    const woke: number[] = [];
    const clock = createClock({ onDue: () => woke.push(Date.now()), maxWaitMs: 60_000 });
    clock.arm("far", T0 + 86_400_000);
    // The wall clock jumps a day ahead (a laptop resuming); the next step sees it.
    vi.setSystemTime(T0 + 86_400_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(woke).toHaveLength(1);
    clock.close();
  });

  it("close stops it for good; thousands of arms cost one timer", async () => {
    vi.useFakeTimers({ now: T0 });
    let woke = 0;
    const clock = createClock({ onDue: () => woke++ });
    for (let i = 0; i < 5_000; i++) clock.arm(`k${i}`, T0 + 1_000 + i);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
    for (let i = 0; i < 4_999; i++) clock.disarm(`k${i}`);
    // Only k4999 (due at +5999) is left.
    await vi.advanceTimersByTimeAsync(5_998);
    expect(woke).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(woke).toBe(1);
    clock.arm("x", T0 + 100_000);
    clock.close();
    clock.arm("y", T0 + 100_000);
    await vi.advanceTimersByTimeAsync(200_000);
    expect(woke).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not keep the process alive (its timer is unref'd)", () => {
    const clock = createClock({ onDue() {} });
    const before = process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    clock.arm("a", Date.now() + 60_000);
    return new Promise<void>((resolve) => {
      queueMicrotask(() => {
        expect(process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length).toBe(before);
        clock.close();
        resolve();
      });
    });
  });
});

describe("cron", () => {
  it("is UTC, 5-field, minute granular; next and previous are strict", () => {
    const weekdays = compileCron("0 9 * * 1-5");
    expect(new Date(weekdays.next(Date.parse("2026-03-06T09:00:00Z"))!).toISOString()).toBe("2026-03-09T09:00:00.000Z");
    expect(new Date(weekdays.previous(Date.parse("2026-03-06T09:00:00Z"))!).toISOString()).toBe("2026-03-05T09:00:00.000Z");
    expect(new Date(compileCron("* * * * *").next(Date.parse("2026-03-06T09:00:30Z"))!).toISOString()).toBe("2026-03-06T09:01:00.000Z");
  });

  it("names what is wrong with a bad expression", () => {
    expect(cronProblem("0 9 * * *")).toBeUndefined();
    expect(cronProblem("@daily")).toBeUndefined();
    expect(cronProblem("0 0 9 * * *")).toMatch(/exactly 5 parts/);
    expect(cronProblem("61 * * * *")).toMatch(/minute: 61/);
    expect(cronProblem("")).toBe("cron must be a 5-field cron expression string");
    expect(cronProblem(5)).toBe("cron must be a 5-field cron expression string");
    expect(cronProblem("0 0 30 2 *")).toMatch(/never fires/);
  });
});

describe("durations", () => {
  it("parses units and compounds; rejects the rest", () => {
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("20m")).toBe(1_200_000);
    expect(parseDuration("2h")).toBe(7_200_000);
    expect(parseDuration("1d")).toBe(86_400_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration(" 1h 30m ")).toBe(5_400_000);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(parseDuration("500ms")).toBe(500);
    for (const bad of ["", "20", "m", "20 minutes", "-5m", "5m!", "1e3s", 5, undefined]) expect(parseDuration(bad)).toBeUndefined();
  });
});

describe("the due index", () => {
  it("takes what is due, earliest first; moved and deleted entries are not taken at their old time", () => {
    const index = new DueIndex();
    index.set("a", 30);
    index.set("b", 10);
    index.set("c", 20);
    index.set("a", 5);
    index.set("c", 50);
    index.delete("b");
    expect(index.peek()).toBe(5);
    expect(index.takeDue(25)).toEqual(["a"]);
    expect(index.takeDue(49)).toEqual([]);
    expect(index.size).toBe(1);
    expect(index.takeDue(50)).toEqual(["c"]);
    expect(index.peek()).toBeUndefined();
  });

  it("stays ordered under many random updates", () => {
    const index = new DueIndex();
    const truth = new Map<string, number>();
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 20_000; i++) {
      const id = `r${Math.floor(random() * 2_000)}`;
      if (random() < 0.2) {
        index.delete(id);
        truth.delete(id);
      } else {
        const at = Math.floor(random() * 1_000_000);
        index.set(id, at);
        truth.set(id, at);
      }
    }
    const due = index.takeDue(500_000);
    const expected = [...truth].filter(([, at]) => at <= 500_000).sort((x, y) => x[1] - y[1]).map(([id]) => id);
    expect(due.map((id) => truth.get(id))).toEqual(expected.map((id) => truth.get(id)));
    expect(new Set(due)).toEqual(new Set(expected));
    expect(index.size).toBe(truth.size - expected.length);
  });
});

describe("lease-guarded decisions", () => {
  it("one owner at a time across hosts; a busy lease answers at once or after waiting", async () => {
    const storage = createMemoryStorage();
    const a = createExclusive(storage, "host_a");
    const b = createExclusive(storage, "host_b");
    let release!: () => void;
    const held = a("k", () => new Promise<string>((resolve) => (release = () => resolve("a"))));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await b("k", async () => "b")).toEqual({ ok: false });
    const waiting = b("k", async () => "b", { waitMs: 2_000 });
    release();
    expect(await held).toEqual({ ok: true, value: "a" });
    expect(await waiting).toEqual({ ok: true, value: "b" });
  });

  it("serializes the same owner's decisions in this process (a lease is re-entrant for its owner)", async () => {
    const exclusive = createExclusive(createMemoryStorage(), "host_a");
    const order: string[] = [];
    await Promise.all([
      exclusive("k", async () => {
        order.push("1 start");
        await new Promise((resolve) => setTimeout(resolve, 10));
        order.push("1 end");
      }),
      exclusive("k", async () => {
        order.push("2");
      }),
    ]);
    expect(order).toEqual(["1 start", "1 end", "2"]);
  });
});
