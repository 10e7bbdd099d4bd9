/**
 * The storage conformance suite on real Durable Object storage: each fixture gets a coordinator
 * object of its own in workerd (miniflare), reached through the storage protocol by the same
 * remote driver a session object uses, so this covers the Durable Object driver, the protocol and
 * the remote driver's ordering and shared follow together.
 */
import { describe, expect, it } from "vitest";
import { createRemoteStorage } from "../drivers/durable-object/remote-storage.ts";
import type { StorageTransport } from "../drivers/durable-object/storage-wire.ts";
import { fixtureWorkerForFile } from "./_miniflare.ts";
import { pollUntil, testStorageDriver } from "./_storage-tests.ts";

const workerd = fixtureWorkerForFile("agent-serve-cf-store-");
let fixtures = 0;

const transport =
  (name: string): StorageTransport =>
  (wire, signal) =>
    workerd.mf.dispatchFetch(`http://localhost/__conformance/${name}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(wire),
      ...(signal ? { signal } : {}),
    }) as unknown as Promise<Response>;

testStorageDriver("durable-object (workerd, through the coordinator's protocol)", async () => {
  const name = `f${++fixtures}`;
  const driver = createRemoteStorage(transport(name), "hello");
  // Another session object's driver on the same coordinator.
  const fixture = { driver, reopen: () => createRemoteStorage(transport(name), "hello"), cleanup: () => driver.close() };
  return fixture;
});

describe("follow across the protocol", () => {
  it("subscribes again when a follow stream ends on its own, and hands on every line once, in order", async () => {
    const name = `f${++fixtures}`;
    let follows = 0;
    // The first follow stream ends after its ready line and one batch, as when the coordinator restarts.
    const cutting: StorageTransport = async (wire, signal) => {
      const response = await transport(name)(wire, signal);
      if (wire.follow === undefined || follows++ > 0) return response;
      const reader = response.body!.getReader();
      let lines = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value, done } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          lines += new TextDecoder().decode(value).split("\n").length - 1;
          if (lines >= 2) {
            controller.close();
            await reader.cancel();
          }
        },
      });
      return new Response(body);
    };
    const follower = createRemoteStorage(cutting, "hello");
    const writer = createRemoteStorage(transport(name), "hello");
    await writer.append("log", ["before"]);
    const seen: Array<[number, string]> = [];
    const stop = follower.follow("log", (first, lines) => lines.forEach((line, i) => seen.push([first + i, line])));
    await follower.length("log");
    await writer.append("log", ["a0"]);
    await pollUntil(async () => seen.length === 1, 5_000, "the first followed line");
    await writer.append("log", ["a1", "a2"]);
    await writer.append("log", ["a3"]);
    await pollUntil(async () => seen.length >= 4, 10_000, "the lines after the stream ended");
    await writer.append("log", ["a4"]);
    await pollUntil(async () => seen.length >= 5, 5_000, "a line on the new stream");
    expect(seen).toEqual([[1, "a0"], [2, "a1"], [3, "a2"], [4, "a3"], [5, "a4"]]);
    expect(follows).toBe(2);
    stop();
    await Promise.all([follower.close(), writer.close()]);
  });
});

describe("the coordinator's side of follow", () => {
  it("ends a follow when its follower unsubscribes, and another process's commit reaches a follower", async () => {
    const name = `f${++fixtures}`;
    const follower = createRemoteStorage(transport(name), "hello");
    const writer = createRemoteStorage(transport(name), "hello");
    const openFollows = async (): Promise<number> => {
      const response = await transport(name)({ namespace: "hello", ops: [{ op: "openFollows" }] });
      return ((await response.json()) as Array<{ value: number }>)[0]!.value;
    };
    const seen: string[] = [];
    const stop = follower.follow("sessions/s1/events", (_, lines) => seen.push(...lines));
    await follower.length("sessions/s1/events"); // held back until the follow is subscribed
    expect(await openFollows()).toBe(1);
    await writer.append("sessions/s1/events", ["from another object"]);
    await pollUntil(async () => seen.length === 1, 5_000, "the followed line");
    expect(seen).toEqual(["from another object"]);
    stop();
    await pollUntil(async () => (await openFollows()) === 0, 5_000, "the follow to end");
    await writer.append("sessions/s1/events", ["after"]);
    expect(seen).toEqual(["from another object"]);
    await Promise.all([follower.close(), writer.close()]);
  });
});

describe("the mirror op (a session object's outbox push)", () => {
  it("applies a push once, in one commit, and ignores a repeated or older one", async () => {
    const name = `f${++fixtures}`;
    const reader = createRemoteStorage(transport(name), "hello");
    const pusher = createRemoteStorage(transport(name), "hello");
    const create = { "sessions/ses_a/record": '{"v":1}', "continuations/http/tok1": "ses_a" };
    expect(await pusher.mirror("ses_a", 1, create)).toBe(true);
    expect(await pusher.mirror("ses_a", 1, create)).toBe(false);
    expect(await pusher.mirror("ses_a", 2, { "sessions/ses_a/record": null, "continuations/http/tok1": null })).toBe(true);
    // The create's push again, late: the removal stays.
    expect(await pusher.mirror("ses_a", 1, create)).toBe(false);
    expect(await reader.entries("")).toEqual([["session-mirrors/ses_a", "2"]]);
    await expect(pusher.mirror("ses_a", 0, create)).rejects.toThrow(/positive integer/);
    await Promise.all([reader.close(), pusher.close()]);
  });
});
