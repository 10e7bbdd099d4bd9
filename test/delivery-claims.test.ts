/** Once-only delivery claims (ctx.host.deliveries) over the storage port's leases. */
import { afterEach, expect, test, vi } from "vitest";
import { createDeliveryClaims } from "../src/features/channels/packs/delivery-claims.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";

afterEach(() => vi.useRealTimers());

test("a delivery is handled once: claimed, accepted, then a duplicate for the dedupe window", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  const claims = createDeliveryClaims(createMemoryStorage());
  const claim = await claims.claim("github", "d-1", { keepMs: 60 * 60_000 });
  expect(claim).not.toBeNull();
  // While it is being handled, a second copy is not handled in parallel.
  expect(await claims.claim("github", "d-1")).toBeNull();
  await claim!.accept();
  vi.setSystemTime(Date.now() + 59 * 60_000);
  expect(await claims.claim("github", "d-1")).toBeNull();
  // Another channel's deliveries are its own.
  expect(await claims.claim("github-other", "d-1")).not.toBeNull();
  vi.setSystemTime(Date.now() + 2 * 60_000);
  expect(await claims.claim("github", "d-1")).not.toBeNull();
});

test("a released claim is handled again at once; one whose process died frees itself after a minute", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  const claims = createDeliveryClaims(createMemoryStorage());
  const failed = await claims.claim("slack", "m_C1_1.2");
  await failed!.release();
  const crashed = await claims.claim("slack", "m_C1_1.2");
  expect(crashed).not.toBeNull();
  // Neither accepted nor released, as when the process dies mid-delivery.
  vi.setSystemTime(Date.now() + 30_000);
  expect(await claims.claim("slack", "m_C1_1.2")).toBeNull();
  vi.setSystemTime(Date.now() + 31_000);
  expect(await claims.claim("slack", "m_C1_1.2")).not.toBeNull();
});

test("ids that are not storage-key shaped are refused before touching storage", async () => {
  const claims = createDeliveryClaims(createMemoryStorage());
  for (const id of ["", "..", "a/b", "x".repeat(201), "sp ace"]) {
    await expect(claims.claim("github", id)).rejects.toThrow(/delivery ids/);
  }
});
