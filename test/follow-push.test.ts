/**
 * The pushed follower of the HTTP streams (src/base/events/follow-push.ts): the stored lines then
 * the live ones, contiguous, with appends racing the replay, a client that stops reading, a
 * missed publication read back from storage, a driver's own follow, and errors.
 */
import { describe, expect, it } from "vitest";
import { followLogPush, type PushSink } from "../src/base/events/follow-push.ts";
import type { FollowableLog, LogListener } from "../src/base/events/follow.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { eventually } from "./_harness.ts";

const LOG = "s1";
const logOf = (storage: StorageDriver, subscribe?: (listener: LogListener) => LogListener): FollowableLog => ({
  length: (id) => storage.length(id),
  read: (id, from, to) => storage.read(id, from, to),
  subscribe: (id, listener) => storage.follow(id, subscribe ? subscribe(listener) : listener),
});
const lines = (from: number, count: number): string[] => Array.from({ length: count }, (_, i) => `line ${from + i}`);

/** A sink that records what it gets; `accept` decides what it answers. */
function recorder(accept: () => boolean = () => true): PushSink & { got: string[]; firsts: number[]; errors: unknown[] } {
  const got: string[] = [];
  const firsts: number[] = [];
  const errors: unknown[] = [];
  let next: number | undefined;
  return {
    got,
    firsts,
    errors,
    lines(first, batch) {
      // Every batch starts where the last one ended: nothing skipped, nothing repeated.
      if (next !== undefined) expect(first).toBe(next);
      next = first + batch.length;
      firsts.push(first);
      got.push(...batch);
      return accept();
    },
    error(error) {
      errors.push(error);
    },
  };
}

describe("followLogPush", () => {
  it("delivers the stored lines, then the live ones, each once and in order, while appends race the replay", async () => {
    const storage = createMemoryStorage();
    for (let i = 0; i < 3000; i += 500) await storage.append(LOG, lines(i, 500));
    const sink = recorder();
    const follower = followLogPush(logOf(storage), LOG, 0, sink);
    for (let i = 3000; i < 3500; i += 7) await storage.append(LOG, lines(i, Math.min(7, 3500 - i)));
    await eventually(async () => (sink.got.length >= 3500 ? true : undefined));
    expect(sink.got).toEqual(lines(0, 3500));
    follower.stop();
    await storage.append(LOG, ["after stop"]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sink.got).toHaveLength(3500);
    expect(sink.errors).toEqual([]);
  });

  it("starts at an index, and holds back while the sink is full, then goes on from where it stopped", async () => {
    const storage = createMemoryStorage();
    await storage.append(LOG, lines(0, 10));
    let open = false;
    const sink = recorder(() => open);
    const follower = followLogPush(logOf(storage), LOG, 4, sink);
    await eventually(async () => (sink.got.length > 0 ? true : undefined));
    expect(sink.got).toEqual(lines(4, 6));
    await storage.append(LOG, lines(10, 3));
    await storage.append(LOG, lines(13, 2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sink.got).toEqual(lines(4, 6));
    open = true;
    follower.resume();
    await eventually(async () => (sink.got.length === 11 ? true : undefined));
    // What waited went out as one batch.
    expect(sink.firsts).toEqual([4, 10]);
    expect(sink.got).toEqual(lines(4, 11));
    follower.stop();
  });

  it("holds a long replay back for a client that does not read", async () => {
    const storage = createMemoryStorage();
    for (let i = 0; i < 5000; i += 1000) await storage.append(LOG, lines(i, 1000));
    let open = false;
    const sink = recorder(() => open);
    const follower = followLogPush(logOf(storage), LOG, 0, sink);
    await eventually(async () => (sink.got.length > 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sink.got.length).toBeLessThan(5000);
    open = true;
    follower.resume();
    await eventually(async () => (sink.got.length === 5000 ? true : undefined));
    expect(sink.got).toEqual(lines(0, 5000));
    follower.stop();
  });

  it("reads back from storage lines whose publication it missed", async () => {
    const storage = createMemoryStorage();
    await storage.append(LOG, lines(0, 2));
    let dropped = 0;
    const sink = recorder();
    const follower = followLogPush(
      logOf(storage, (listener) => (first, batch) => {
        if (first === 2 && dropped++ === 0) return; // the publication of lines 2..4 never arrives
        listener(first, batch);
      }),
      LOG,
      0,
      sink,
    );
    await eventually(async () => (sink.got.length === 2 ? true : undefined));
    await storage.append(LOG, lines(2, 3));
    await storage.append(LOG, lines(5, 2));
    await eventually(async () => (sink.got.length === 7 ? true : undefined));
    expect(sink.got).toEqual(lines(0, 7));
    expect(dropped).toBe(1);
    follower.stop();
  });

  it("pumps a driver's own follow into the sink, and reports a failed read", async () => {
    const sink = recorder();
    const driverFollow: FollowableLog = {
      length: async () => 0,
      read: async function* () {},
      subscribe: () => () => {},
      async *follow(_id, options) {
        yield { first: options.from, lines: ["a", "b"] };
        yield { first: options.from + 2, lines: ["c"] };
      },
    };
    const follower = followLogPush(driverFollow, LOG, 5, sink);
    await eventually(async () => (sink.got.length === 3 ? true : undefined));
    expect(sink.firsts).toEqual([5, 7]);
    follower.stop();

    const failing = recorder();
    followLogPush({ length: async () => 3, read: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("disk gone")) }) }), subscribe: () => () => {} }, LOG, 0, failing);
    await eventually(async () => (failing.errors.length > 0 ? true : undefined));
    expect(String(failing.errors[0])).toMatch(/disk gone/);
  });
});
