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
import { afterAll, beforeAll } from "vitest";
import { createRemoteStorage } from "../adapters/cloudflare/remote-storage.ts";
import { type BundledWorker, bundleFixtureWorker, startWorker } from "./_miniflare.ts";
import { testStorageDriver } from "./_storage-tests.ts";

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

testStorageDriver("durable-object (workerd, through the coordinator's protocol)", async () => {
  const name = `f${++fixtures}`;
  const driver = createRemoteStorage(
    (wire, signal) =>
      mf.dispatchFetch(`http://localhost/__conformance/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(wire),
        ...(signal ? { signal } : {}),
      }) as unknown as Promise<Response>,
    "hello",
  );
  return { driver, cleanup: () => driver.close() };
});
