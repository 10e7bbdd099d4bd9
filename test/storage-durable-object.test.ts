/**
 * The Durable Object storage driver against the storage conformance suite, in Node over
 * `node:sqlite` through the same small shape `ctx.storage` has (`sql.exec`, `transactionSync`).
 * `test/cloudflare-storage.test.ts` runs the suite again on real Durable Object storage in workerd.
 */
import { expect, it } from "vitest";
import { createDurableObjectStorage } from "../drivers/durable-object/index.ts";
import { nodeSqlStorage } from "./_node-sql-storage.ts";
import { testStorageDriver } from "./_storage-tests.ts";

testStorageDriver("durable-object (node:sqlite)", async () => {
  const storage = nodeSqlStorage();
  const driver = createDurableObjectStorage(storage, { namespace: "hello" });
  // Another driver on the same database, as the conformance suite's cross-instance check wants.
  const fixture = { driver, reopen: () => createDurableObjectStorage(storage, { namespace: "hello" }), cleanup: () => driver.close() };
  return fixture;
});

it("keeps namespaces on one database apart", async () => {
  const storage = nodeSqlStorage();
  const a = createDurableObjectStorage(storage, { namespace: "a" });
  const b = createDurableObjectStorage(storage, { namespace: "b" });
  await a.set("sessions/s1/record", "from a");
  await a.append("sessions/s1/events", ["a0"]);
  expect(await b.get("sessions/s1/record")).toBeUndefined();
  expect(await b.list("")).toEqual([]);
  expect(await b.length("sessions/s1/events")).toBe(0);
  expect(await b.acquireLease("turns/s1", "owner-b", 60_000)).toBe(true);
  expect(await a.acquireLease("turns/s1", "owner-a", 60_000)).toBe(true);
  expect(await a.leaseHolder("turns/s1")).toBe("owner-a");
  expect(await b.leaseHolder("turns/s1")).toBe("owner-b");
  expect(await a.leaseHolder("turns/s2")).toBeUndefined();
  expect(await a.entries("sessions/")).toEqual([["sessions/s1/record", "from a"]]);
  // A conflict names the caller's key, not the namespaced one.
  await expect(a.commit({ records: [{ key: "sessions/s1/record", value: "x", expected: "stale" }] })).rejects.toMatchObject({ key: "sessions/s1/record" });
});
