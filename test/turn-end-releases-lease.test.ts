/**
 * A turn's end gives the session's turn lease back and drops its active marker in its own commit
 * where the store can (`releasesInCommit`), one commit group a turn fewer; elsewhere both follow
 * it as before; and a follow-up admitted while the end is in flight keeps the lease it takes
 * (docs/design/speed.md "The lease goes with the turn's end").
 */
import { join } from "node:path";
import { expect, test } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { activeKey, turnLeaseKey } from "../src/base/storage/keys.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { CommitBatch, StorageDriver } from "../src/base/storage/types.ts";
import { describeHost, eventsWhen, expectContiguous, helloOptions, postJson, project, quietLogger } from "./_harness.ts";
import { scratchDir } from "./_cli-io.ts";

const base = "/hello";

interface Seen {
  op: "commit" | "releaseLease" | "acquireLease";
  types: string[];
  batch?: CommitBatch;
  key?: string;
}

/**
 * Applies every write in call order, one after another (as every driver does for one caller),
 * and records them. `hold` keeps a commit back for a while before it is applied (the ones after
 * it wait); `onCommit` runs on the store right before a commit is applied.
 */
function recordingStore(
  inner: StorageDriver,
  options: { releasesInCommit?: boolean; hold?: (types: string[]) => number; onCommit?: (types: string[], batch: CommitBatch) => Promise<void> } = {},
): { driver: StorageDriver; seen: Seen[] } {
  const seen: Seen[] = [];
  let tail: Promise<unknown> = Promise.resolve();
  const capabilities = { ...inner.capabilities, ...(options.releasesInCommit === undefined ? {} : { releasesInCommit: options.releasesInCommit }) };
  const inOrder = <T>(run: () => Promise<T>): Promise<T> => {
    const result = tail.then(run, run);
    tail = result.catch(() => {});
    return result;
  };
  const driver = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "capabilities") return capabilities;
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property === "commit") {
        return (batch: CommitBatch) => {
          const types = (batch.appends ?? []).flatMap((append) => append.lines.map((line) => (JSON.parse(line) as { type?: string }).type ?? "?"));
          seen.push({ op: "commit", types, batch });
          return inOrder(async () => {
            const ms = options.hold?.(types) ?? 0;
            if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
            await options.onCommit?.(types, batch);
            return target.commit(batch);
          });
        };
      }
      if (property === "acquireLease" || property === "releaseLease") {
        return (key: string, ...rest: unknown[]) => {
          seen.push({ op: property, types: [], key });
          return inOrder(() => (value as (...args: unknown[]) => Promise<unknown>).call(target, key, ...rest));
        };
      }
      return value;
    },
  });
  return { driver, seen };
}

async function create(host: { fetch: (path: string, init?: RequestInit) => Promise<Response> }, message: string): Promise<{ sessionId: string; continuationToken: string }> {
  const created = await host.fetch(`${base}/v1/session`, postJson({ message }));
  expect(created.status).toBe(200);
  return (await created.json()) as { sessionId: string; continuationToken: string };
}

let sqlite: { inner: StorageDriver; store: ReturnType<typeof recordingStore> };

describeHost(
  "the lease goes with the turn's end (sqlite)",
  () => {
    const inner = createSqliteStorage({ path: join(scratchDir("turn-end-lease").dir, "state.db") });
    sqlite = { inner, store: recordingStore(inner) };
    return helloOptions({ agents: [{ slug: "hello", project: project(), storage: sqlite.store.driver }], logger: quietLogger });
  },
  (target) => {
    test("the resting commit releases the lease and drops the marker; no release is sent after it", async () => {
      const host = target();
      const { sessionId } = await create(host, "/reply hello");
      const events = await eventsWhen(host, base, sessionId, (all) => all.at(-1)?.type === "session.waiting");
      expectContiguous(events);
      const resting = sqlite.store.seen.find((one) => one.op === "commit" && one.types.includes("session.waiting"))!;
      expect(resting.types).toEqual(["turn.completed", "session.waiting"]);
      expect(resting.batch!.releases).toEqual([{ key: turnLeaseKey(sessionId), owner: expect.any(String) }]);
      expect(resting.batch!.records).toContainEqual({ key: activeKey(sessionId), value: null });
      expect(sqlite.store.seen.filter((one) => one.op === "releaseLease" && one.key === turnLeaseKey(sessionId))).toEqual([]);
      expect(await sqlite.inner.get(activeKey(sessionId))).toBeUndefined();
      // Free for any other process sharing the file.
      expect(await sqlite.inner.acquireLease(turnLeaseKey(sessionId), "another-process", 60_000)).toBe(true);
    });
  },
);

let plain: ReturnType<typeof recordingStore>;
let plainInner: StorageDriver;

describeHost(
  "a store without releasesInCommit",
  () => {
    plainInner = createMemoryStorage();
    plain = recordingStore(plainInner, { releasesInCommit: false });
    return helloOptions({ agents: [{ slug: "hello", project: project(), storage: plain.driver }], logger: quietLogger });
  },
  (target) => {
    test("gets no releases in a commit, and the lease and marker after the resting commit", async () => {
      const host = target();
      const { sessionId } = await create(host, "/reply hello");
      await eventsWhen(host, base, sessionId, (all) => all.at(-1)?.type === "session.waiting");
      expect(plain.seen.filter((one) => one.batch?.releases !== undefined)).toEqual([]);
      const restingAt = plain.seen.findIndex((one) => one.op === "commit" && one.types.includes("session.waiting"));
      const releaseAt = plain.seen.findIndex((one) => one.op === "releaseLease" && one.key === turnLeaseKey(sessionId));
      expect(releaseAt).toBeGreaterThan(restingAt);
      await expect.poll(() => plainInner.get(activeKey(sessionId))).toBeUndefined();
      expect(await plainInner.acquireLease(turnLeaseKey(sessionId), "another-process", 60_000)).toBe(true);
    });
  },
);

let held: ReturnType<typeof recordingStore>;
let heldInner: StorageDriver;
/** Whether the lease was free to another owner when the second turn's start was applied. */
let freeAtSecondStart: boolean[] = [];

describeHost(
  "a follow-up admitted while the turn's end is in flight",
  () => {
    heldInner = createMemoryStorage();
    freeAtSecondStart = [];
    let restings = 0;
    held = recordingStore(heldInner, {
      // The first turn's resting commit is held, so the follow-up is admitted while it is in flight.
      hold: (types) => (types.includes("session.waiting") && restings++ === 0 ? 150 : 0),
      onCommit: async (types, batch) => {
        if (!types.includes("turn.started") || types.includes("session.started")) return;
        const sessionId = batch.appends![0]!.log.split("/")[1]!;
        const probe = await heldInner.acquireLease(turnLeaseKey(sessionId), "probe", 60_000);
        freeAtSecondStart.push(probe);
        if (probe) await heldInner.releaseLease(turnLeaseKey(sessionId), "probe");
      },
    });
    return helloOptions({ agents: [{ slug: "hello", project: project(), storage: held.driver }], logger: quietLogger });
  },
  (target) => {
    test("keeps the lease it takes: the end's release is applied before the follow-up's take", async () => {
      const host = target();
      const first = await create(host, "/reply one");
      // Sent as soon as the first turn's end is in flight (its resting commit is held).
      await expect.poll(() => held.seen.some((one) => one.op === "commit" && one.types.includes("session.waiting")), { timeout: 5000 }).toBe(true);
      const response = await host.fetch(`${base}/v1/session/${first.sessionId}`, postJson({ continuationToken: first.continuationToken, message: "/reply two" }));
      expect(response.status).toBe(200);
      const events = await eventsWhen(host, base, first.sessionId, (all) => all.filter((event) => event.type === "session.waiting").length === 2);
      expectContiguous(events);
      expect(events.filter((event) => event.type === "turn.completed")).toHaveLength(2);
      const resting = held.seen.find((one) => one.op === "commit" && one.types.includes("session.waiting"))!;
      expect(resting.batch!.releases).toEqual([{ key: turnLeaseKey(first.sessionId), owner: expect.any(String) }]);
      const take = held.seen.findLastIndex((one) => one.op === "acquireLease" && one.key === turnLeaseKey(first.sessionId));
      expect(take).toBeGreaterThan(held.seen.indexOf(resting));
      // While the follow-up's turn started, no other owner could take the session.
      expect(freeAtSecondStart).toEqual([false]);
    });
  },
);

test("the event log says when an append reaches the driver at once (the lease may then go with it)", async () => {
  const { EventLog } = await import("../src/engine/sessions/event-log.ts");
  const log = new EventLog(createMemoryStorage(), () => Date.now());
  expect(log.sendsAtOnce("s1")).toBe(false);
  await log.append("s1", [{ type: "session.waiting", data: {} }]);
  expect(log.sendsAtOnce("s1")).toBe(true);
  // Another process may have written since: the next append first reads the length.
  await new Promise((resolve) => setImmediate(resolve));
  log.forget("s1");
  expect(log.sendsAtOnce("s1")).toBe(false);
  const appended = log.append("s1", [{ type: "session.waiting", data: {} }]);
  expect(log.sendsAtOnce("s1")).toBe(false);
  expect((await appended).map((event) => event.index)).toEqual([1]);
  expect(log.sendsAtOnce("s1")).toBe(true);
});
