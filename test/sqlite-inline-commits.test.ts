/**
 * The sqlite driver commits a lone small group on the event loop's own connection and hands
 * groups with company to its writer thread (docs/design/speed.md "A lone commit runs inline"):
 * when each is chosen, that the two kinds of group keep one total order and are durable, and that
 * a new session's lease shares its create's group.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { serveNode } from "../adapters/node.ts";
import { inlinePolicy } from "../drivers/sqlite/inline-policy.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { WriteOp } from "../drivers/sqlite/schema.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/index.ts";
import { postJson, project, quietLogger, readEventsUntil } from "./_harness.ts";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempRoot(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agent-serve-inline-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const ops = (n: number): WriteOp[] => Array.from({ length: n }, (_, i) => ({ kind: "deleteLog", log: `l${i}` }));

test("a group of up to four writes goes inline once the writer has had small groups for a while and while commits are fast; a larger one, a follow-on, or any while the disk syncs slowly, goes to the thread", () => {
  let now = 0;
  const policy = inlinePolicy(() => now);
  /** Where a run of `n` lone small groups, each taking `ms`, leaves the next one. */
  const lone = (n: number, ms: number) => {
    for (let i = 0; i < n; i++) {
      policy.inline(ops(1), false);
      policy.took(ms);
    }
    return policy.inline(ops(1), false);
  };
  // A fresh driver: the first small groups go to the thread, then commits come inline at once,
  // and the first commits' times (a new file growing, cold caches) are not counted.
  for (let i = 0; i < 7; i++) expect(policy.inline(ops(1), false)).toBe(false);
  expect(lone(15, 8)).toBe(true);
  expect(policy.inline(ops(4), false)).toBe(true);
  // A small group that queued behind the thread's reply stays on the thread, but is no company.
  expect(policy.inline(ops(2), true)).toBe(false);
  expect(policy.inline(ops(1), false)).toBe(true);
  // Company: a big group; the run of small ones starts over.
  expect(policy.inline(ops(5), false)).toBe(false);
  for (let i = 0; i < 7; i++) expect(policy.inline(ops(2), false)).toBe(false);
  expect(policy.inline(ops(2), false)).toBe(true);
  // One slow commit alone (SQLite's WAL checkpoint) is not counted, however slow...
  expect(lone(4, 0.2)).toBe(true);
  policy.took(9);
  expect(lone(1, 0.9)).toBe(true);
  policy.took(9);
  expect(lone(1, 0.9)).toBe(true);
  // ...a disk that keeps syncing slowly moves commits to the thread.
  now = 1000;
  expect(lone(3, 5)).toBe(false);
  // Middling syncs leave them on the thread (no flapping between the two connections), and so
  // do fast ones for 2 s after the move...
  expect(lone(20, 1)).toBe(false);
  now = 2500;
  expect(lone(10, 0.3)).toBe(false);
  // ...then fast ones, measured on the thread, bring them back, and middling ones keep them.
  now = 3000;
  expect(lone(1, 0.3)).toBe(true);
  expect(lone(20, 1)).toBe(true);
});

test("lone commits and bursts on one log keep one order across inline and threaded groups, and survive a reopen", async () => {
  const path = join(await tempRoot(), "state.db");
  const storage = createSqliteStorage({ path, inlineCommits: true });
  const log = "sessions/s1/events";
  const seen: string[] = [];
  const unfollow = storage.follow(log, (_first, lines) => seen.push(...lines));
  let next = 0;
  const expected: string[] = [];
  for (let round = 0; round < 20; round++) {
    // A lone append: the writer is idle, so it commits inline.
    const lone = `lone-${round}`;
    expected.push(lone);
    expect(await storage.append(log, [lone], next)).toBe(next);
    next += 1;
    // A burst made in one synchronous run, with records: one group of company, on the thread.
    const burst = Array.from({ length: 12 }, (_, i) => `burst-${round}-${i}`);
    const sent = burst.map((line, i) => storage.commit({ records: [{ key: `k/${round}/${i}`, value: line }], appends: [{ log, lines: [line], expectedIndex: next + i }] }));
    expected.push(...burst);
    next += burst.length;
    // And a lone one sent while the burst is still in flight: it waits behind it.
    const behind = `behind-${round}`;
    expected.push(behind);
    const last = storage.append(log, [behind], next);
    next += 1;
    await Promise.all([...sent, last]);
  }
  unfollow();
  expect(seen).toEqual(expected);
  await storage.close();

  const reopened = createSqliteStorage({ path, inlineCommits: true });
  cleanups.push(() => reopened.close());
  const stored: string[] = [];
  for await (const batch of reopened.read(log)) stored.push(...batch);
  expect(stored).toEqual(expected);
  expect(await reopened.get("k/19/11")).toBe("burst-19-11");
});

test("a new session's turn lease is sent in the same synchronous run as its create's commit, so they share one transaction", async () => {
  const calls: Array<{ what: string; run: number }> = [];
  let run = 0;
  let marked = false;
  // Counts synchronous runs: the counter moves once the current run's microtasks have started.
  const note = (what: string) => {
    calls.push({ what, run });
    if (!marked) {
      marked = true;
      queueMicrotask(() => {
        run += 1;
        marked = false;
      });
    }
  };
  const wrap = (inner: StorageDriver): StorageDriver =>
    new Proxy(inner, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function") return value;
        if (property === "acquireLease") return (...args: unknown[]) => (note("lease"), (value as (...a: unknown[]) => unknown).apply(target, args));
        if (property === "commit")
          return (batch: Parameters<StorageDriver["commit"]>[0]) => {
            if ((batch.appends ?? []).some((append) => append.lines.some((line) => line.includes('"type":"session.started"')))) note("create");
            return (value as StorageDriver["commit"]).call(target, batch);
          };
        return value;
      },
    });
  const storage = wrap(createSqliteStorage({ path: join(await tempRoot(), "state.db") }));
  const host = createHost({ agents: [{ slug: "a", project: project(), storage }], logger: quietLogger });
  cleanups.push(() => host.close());
  const server = await serveNode(host, { port: 0, silent: true });
  cleanups.push(() => server.close(true));

  const created = await fetch(`${server.url}/a/v1/session`, postJson({ message: "hi" }));
  expect(created.status).toBe(200);
  const { sessionId } = (await created.json()) as { sessionId: string };
  const lease = calls.find((call) => call.what === "lease");
  const create = calls.find((call) => call.what === "create");
  expect(lease).toBeDefined();
  expect(create).toBeDefined();
  expect(calls.indexOf(lease!)).toBeLessThan(calls.indexOf(create!));
  expect(lease!.run).toBe(create!.run);
  const stream = await fetch(`${server.url}/a/v1/session/${sessionId}/stream`);
  const events = await readEventsUntil(stream, (event) => event.type === "session.waiting", 10_000);
  expect(events.map((event) => event.type)).toContain("turn.completed");
});
