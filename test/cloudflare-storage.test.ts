/**
 * The storage conformance suite on real Durable Object storage: each fixture gets a coordinator
 * object of its own in workerd (miniflare), reached through the storage protocol by the same
 * remote driver a session object uses, so this covers the Durable Object driver, the protocol and
 * the remote driver's ordering and shared follow together.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRemoteStorage, type StorageTransport } from "../adapters/cloudflare/remote-storage.ts";
import { type BundledWorker, bundleFixtureWorker, startWorker } from "./_miniflare.ts";
import { pollUntil, testStorageDriver } from "./_storage-tests.ts";

let bundle: BundledWorker;
let persist: string;
let mf: Miniflare;
let fixtures = 0;

beforeAll(async () => {
  bundle = await bundleFixtureWorker();
  persist = await mkdtemp(join(tmpdir(), "agent-serve-cf-store-"));
  mf = await startWorker(bundle, persist);
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await bundle?.cleanup();
  if (persist) await rm(persist, { recursive: true, force: true });
});

const transport =
  (name: string): StorageTransport =>
  (wire, signal) =>
    mf.dispatchFetch(`http://localhost/__conformance/${name}`, {
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
