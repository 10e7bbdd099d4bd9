/**
 * What the faster commit path must not cost (docs/design/speed.md): a step's end, sent behind its
 * streamed deltas without waiting for them, is never stored when one of them failed; and a batch
 * encoded once for every live follower reaches each of them whole and in order. On the durable
 * default store (sqlite, `synchronous=FULL`) over real HTTP.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { StorageUnavailableError } from "../src/base/storage/errors.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/index.ts";
import { eventually, postJson, project, quietLogger, readEventsUntil, type TestEvent } from "./_harness.ts";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(wrap: (storage: StorageDriver) => StorageDriver = (s) => s): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agent-serve-speed-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const storage = wrap(createSqliteStorage({ path: join(dir, "state.db") }));
  const host = createHost({ agents: [{ slug: "a", project: project(), storage }], logger: quietLogger });
  cleanups.push(() => host.close());
  const server = await serveNode(host, { port: 0, silent: true });
  cleanups.push(() => server.close(true));
  return `${server.url}/a`;
}

/**
 * Fails, once and 100 ms late, the commit that carries a `message.appended` event whose line
 * contains `text`; nothing of it is written.
 */
function failingDelta(text: string): { wrap: (storage: StorageDriver) => StorageDriver; failed: () => boolean } {
  let failed = false;
  const wrap = (inner: StorageDriver): StorageDriver =>
    new Proxy(inner, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== "commit" || typeof value !== "function") return value;
        return (batch: Parameters<StorageDriver["commit"]>[0]) => {
          const lines = (batch.appends ?? []).flatMap((append) => append.lines);
          if (!failed && lines.some((line) => line.includes('"type":"message.appended"') && line.includes(text))) {
            failed = true;
            // Late, as a commit failing in the disk's sync: the model's stream has ended by then.
            return new Promise((_, reject) => setTimeout(() => reject(new StorageUnavailableError("[agent-serve] [storage] the store cannot take writes (EIO)")), 100));
          }
          return (value as StorageDriver["commit"]).call(target, batch);
        };
      },
    });
  return { wrap, failed: () => failed };
}

async function events(base: string, sessionId: string): Promise<TestEvent[]> {
  const response = await fetch(`${base}/v1/session/${sessionId}/events`);
  expect(response.status).toBe(200);
  return (await response.text()).trim().split("\n").map((line) => JSON.parse(line) as TestEvent);
}

test("a step whose last streamed delta failed to commit never stores its end: the turn fails, indexes stay contiguous", async () => {
  // The step's last delta fails: its end is all that would come after it.
  const fault = failingDelta("omega");
  const base = await serve(fault.wrap);
  const created = await fetch(`${base}/v1/session`, postJson({ message: `/reply ${"a reply in small deltas ".repeat(6)}omega` }));
  expect(created.status).toBe(200);
  const { sessionId } = (await created.json()) as { sessionId: string };
  const log = await eventually(async () => {
    const all = await events(base, sessionId);
    return all.at(-1)?.type === "session.waiting" ? all : undefined;
  }, 10_000, "the turn to settle");
  expect(fault.failed()).toBe(true);
  expect(log.map((event) => event.index)).toEqual(log.map((_, i) => i));
  const types = log.map((event) => event.type);
  expect(types).toContain("turn.failed");
  expect(types).not.toContain("message.completed");
  expect(types).not.toContain("step.completed");
  expect(types).not.toContain("turn.completed");
});

test("live followers of one session each receive every event once, in order, from where they started", async () => {
  const base = await serve();
  const created = await fetch(`${base}/v1/session`, postJson({ message: "hi" }));
  const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
  const first = await readEventsUntil(await fetch(`${base}/v1/session/${sessionId}/stream`), (event) => event.type === "session.waiting");
  const end = first.at(-1)!.index + 1;
  // Three followers: two from the current end, one replaying from the start.
  const streams = await Promise.all([end, end, 0].map((from) => fetch(`${base}/v1/session/${sessionId}/stream?startIndex=${from}`)));
  const followUp = await fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: `/reply ${"many small deltas ".repeat(10)}` }));
  expect(followUp.status).toBe(200);
  const seen = await Promise.all(
    streams.map((stream) => readEventsUntil(stream, (event) => event.type === "session.waiting" && event.index >= end, 10_000)),
  );
  const all = await events(base, sessionId);
  expect(seen[0]).toEqual(all.slice(end));
  expect(seen[1]).toEqual(all.slice(end));
  expect(seen[2]).toEqual(all);
  expect(all.filter((event) => event.type === "message.appended").length).toBeGreaterThan(3);
});
