/**
 * Many hosts on one store behave as one host (docs/design/processes.md): three hosts, each standing
 * for a process, over one shared memory driver instance and over a real Redis (one driver, that is
 * one connection set, per host). Admission, stop, the turn-slot cap, live streams and recovery
 * hold whichever host a request reaches.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisStorage } from "../drivers/redis/index.ts";
import { randomId } from "../src/base/ids.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHost } from "../src/host/types.ts";
import { allEvents, eventually, postJson, project, quietLogger, readEvents, severable, type HostUnderTest, type TestEvent } from "./_harness.ts";
import { type RedisServer, REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";
import { sharedStore } from "./_shared-store.ts";

const base = "/hello";
const LEASE_TTL_MS = 1_000;
const open: AgentHost[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((host) => host.close()));
});

function hostOn(storage: StorageDriver, definition: ProjectDefinition = project()): AgentHost {
  const host = createHost({ agents: [{ slug: "hello", project: definition, storage }], logger: quietLogger, drainTimeoutMs: 50, dev: true, leaseTtlMs: LEASE_TTL_MS });
  open.push(host);
  return host;
}

/** Opens one more driver on the store under test: what a new process sharing it would open. */
type OpenStore = () => StorageDriver;
let redis: RedisServer | undefined;
beforeAll(async () => {
  if (REDIS_SERVER) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});

const stores: Array<{ name: string; missing: boolean; store: () => OpenStore }> = [
  {
    name: "one shared memory driver",
    missing: false,
    store: () => {
      const shared = sharedStore(createMemoryStorage());
      return () => shared;
    },
  },
  {
    name: `redis${REDIS_MISSING}`,
    missing: !REDIS_SERVER,
    store: () => {
      const prefix = `t${randomId(8)}:`;
      return () => createRedisStorage({ url: redis!.url, prefix });
    },
  },
];

for (const { name, missing, store: newStore } of stores) {
  describe.skipIf(missing)(`on ${name}`, () => {
  function threeHosts(definition?: ProjectDefinition): { a: AgentHost; b: AgentHost; c: AgentHost } {
    const openStore = newStore();
    return { a: hostOn(openStore(), definition), b: hostOn(openStore(), definition), c: hostOn(openStore(), definition) };
  }

  const target = (host: AgentHost): HostUnderTest => ({ kind: "in-process", host, fetch: (path, init) => host.request(path, init) });
  const events = (host: AgentHost, sessionId: string): Promise<TestEvent[]> => allEvents(target(host), base, sessionId);

  async function create(host: AgentHost, message: string): Promise<{ sessionId: string; continuationToken: string }> {
    const response = await host.request(`${base}/v1/session`, postJson({ message }));
    expect(response.status).toBe(200);
    return (await response.json()) as { sessionId: string; continuationToken: string };
  }

  const until = (host: AgentHost, sessionId: string, done: (all: TestEvent[]) => boolean, timeoutMs = 5_000): Promise<TestEvent[]> =>
    eventually(async () => {
      const all = await events(host, sessionId);
      return done(all) ? all : undefined;
    }, timeoutMs, `events of ${sessionId}`);

  const has = (type: string) => (all: TestEvent[]): boolean => all.some((e) => e.type === type);
  const count = (all: TestEvent[], type: string): number => all.filter((e) => e.type === type).length;

  describe("three hosts on one store", () => {
    it("streams a turn run on A live from B, gapless from startIndex", async () => {
      const { a, b } = threeHosts();
      const { sessionId } = await create(a, "/sleep 300\nhello");
      const fromStart = await b.request(`${base}/v1/session/${sessionId}/stream`);
      const fromTwo = await b.request(`${base}/v1/session/${sessionId}/stream?startIndex=2`);
      const [all, tail] = await Promise.all([
        readEvents(fromStart, (e) => e.type === "session.waiting"),
        readEvents(fromTwo, (e) => e.type === "session.waiting"),
      ]);
      expect(all.map((e) => e.index)).toEqual(all.map((_, i) => i));
      expect(all.find((e) => e.type === "message.completed")?.data).toMatchObject({ text: "echo: hello" });
      expect(tail).toEqual(all.slice(2));
    });

    it("preempts from B a turn running on A: A interrupts it and runs B's message, with no session.waiting in between", async () => {
      const { a, b } = threeHosts();
      const { sessionId, continuationToken } = await create(a, "/sleep 20000\nslow");
      await until(b, sessionId, has("step.started"));
      const listed = (await (await b.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string }> };
      expect(listed.sessions.find((s) => s.sessionId === sessionId)?.status).toBe("running");

      const response = await b.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "from b" }));
      expect(response.status).toBe(200);
      const { continuationToken: rotated } = (await response.json()) as { continuationToken: string };
      expect(rotated).not.toBe(continuationToken);
      const all = await until(b, sessionId, (e) => count(e, "session.waiting") === 1);
      const types = all.map((e) => e.type);
      expect(all.find((e) => e.type === "turn.failed")?.data).toEqual({ message: "turn interrupted" });
      expect(types.indexOf("session.waiting")).toBe(types.length - 1);
      expect(all.filter((e) => e.type === "message.completed").map((e) => e.data["text"])).toEqual(["echo: from b"]);
      // The rotated token is the current one everywhere.
      const row = await eventually(async () => {
        const r = await b.request(`${base}/v1/sessions`);
        const { sessions } = (await r.json()) as { sessions: Array<{ sessionId: string; continuationToken: string; status: string }> };
        const found = sessions.find((s) => s.sessionId === sessionId);
        return found?.status === "idle" ? found : undefined;
      });
      expect(row.continuationToken).toBe(rotated);
    });

    it("runs a session's turns on A, then B, then A again: each continues from where the log ends", async () => {
      const { a, b } = threeHosts();
      const created = await create(a, "first");
      const { sessionId } = created;
      let { continuationToken } = created;
      await until(a, sessionId, (e) => count(e, "session.waiting") === 1);
      for (const [host, message, waits] of [[b, "second", 2], [a, "third", 3], [b, "fourth", 4]] as const) {
        const response = await host.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message }));
        expect(response.status).toBe(200);
        ({ continuationToken } = (await response.json()) as { continuationToken: string });
        await until(host, sessionId, (e) => count(e, "session.waiting") === waits);
      }
      const all = await events(a, sessionId);
      expect(all.map((e) => e.index)).toEqual(all.map((_, i) => i));
      expect(all.filter((e) => e.type === "message.completed").map((e) => e.data["text"])).toEqual(["echo: first", "echo: second", "echo: third", "echo: fourth"]);
    });

    it("coalesces on C follow-ups to a turn running on A into one turn", async () => {
      const { a, c } = threeHosts();
      const key = { channel: "chat", continuationToken: "thread-1" };
      // Long enough that both follow-ups land while it runs, on a loaded machine too.
      const { sessionId } = await a.send("/sleep 3000\nfirst", key);
      await until(c, sessionId, has("step.started"));
      expect((await c.send("second", { ...key, admission: "coalesce" })).sessionId).toBe(sessionId);
      expect((await c.send("third", { ...key, admission: "coalesce" })).sessionId).toBe(sessionId);
      const all = await until(c, sessionId, (e) => count(e, "turn.completed") === 2 && e.at(-1)?.type === "session.waiting", 15_000);
      expect(count(all, "turn.failed")).toBe(0);
      const texts = all.filter((e) => e.type === "message.completed").map((e) => e.data["text"]);
      expect(texts).toEqual(["echo: first", "echo: second\nthird"]);
      // Both were accepted at once, while the first turn still ran: one pending turn id.
      const received = all.filter((e) => e.type === "message.received");
      expect(received[1]!.turnId).toBe(received[2]!.turnId);
      expect(received[2]!.index).toBeLessThan(all.findIndex((e) => e.type === "turn.completed"));
    });

    it("stops from C a turn running on A", async () => {
      const { a, c } = threeHosts();
      const { sessionId } = await create(a, "/sleep 20000\nslow");
      await until(c, sessionId, has("step.started"));
      const stopped = await c.request(`${base}/v1/session/${sessionId}/stop`, { method: "POST" });
      expect(stopped.status).toBe(200);
      const all = await until(c, sessionId, has("session.waiting"));
      expect(all.slice(-2).map((e) => [e.type, e.data])).toEqual([
        ["turn.failed", { message: "turn interrupted" }],
        ["session.waiting", {}],
      ]);
    });

    it("deletes from B a session whose turn runs on A: stopped there, then 404 everywhere", async () => {
      const { a, b } = threeHosts();
      const { sessionId } = await create(a, "/sleep 20000\nslow");
      await until(b, sessionId, has("step.started"));
      expect((await b.request(`${base}/v1/session/${sessionId}`, { method: "DELETE" })).status).toBe(200);
      expect((await a.request(`${base}/v1/session/${sessionId}/events`)).status).toBe(404);
    });

    it("holds maxRunningTurns across hosts as one FIFO with turn.queued positions", async () => {
      const capped = project({ agent: { concurrency: { maxRunningTurns: 1 } } });
      const { a, b, c } = threeHosts(capped);
      // It runs on while the other two queue behind it and the list is read, on a loaded machine too.
      const first = await create(a, "/sleep 3000\none");
      await until(a, first.sessionId, has("turn.started"));
      const second = await create(b, "/sleep 100\ntwo");
      await until(b, second.sessionId, has("turn.queued"));
      const third = await create(c, "three");
      const queued = await until(c, third.sessionId, has("turn.queued"));
      expect((await events(b, second.sessionId)).find((e) => e.type === "turn.queued")?.data).toEqual({ position: 1 });
      expect(queued.find((e) => e.type === "turn.queued")?.data).toEqual({ position: 2 });
      const listed = (await (await a.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string }> };
      expect(listed.sessions.find((s) => s.sessionId === third.sessionId)?.status).toBe("queued");

      const logs = await Promise.all(
        [[a, first], [b, second], [c, third]].map(([host, s]) => until(host as AgentHost, (s as { sessionId: string }).sessionId, has("session.waiting"), 10_000)),
      );
      // One at a time, in the order they joined: each turn starts after the previous one ended.
      const spans = logs.map((log) => ({
        started: Date.parse(log.find((e) => e.type === "turn.started")!.at),
        ended: Date.parse(log.find((e) => e.type === "turn.completed")!.at),
      }));
      expect(spans[1]!.started).toBeGreaterThanOrEqual(spans[0]!.ended);
      expect(spans[2]!.started).toBeGreaterThanOrEqual(spans[1]!.ended);
    });
  });

  describe("recovery by lease", () => {
    it("fails only a crashed host's turn, within the lease time, never a live neighbour's", async () => {
      const openStore = newStore();
      const dying = severable(openStore());
      const a = hostOn(dying.driver);
      const b = hostOn(openStore());
      const c = hostOn(openStore());
      const onA = await create(a, "/sleep 20000\non a");
      const onB = await create(b, "/sleep 3000\non b");
      await until(c, onA.sessionId, has("step.started"));
      await until(c, onB.sessionId, has("step.started"));
      const before = await events(c, onA.sessionId);
      dying.sever();

      const after = await until(c, onA.sessionId, has("session.waiting"), 5 * LEASE_TTL_MS);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.slice(before.length).map((e) => [e.type, e.data])).toEqual([
        ["turn.failed", { message: "host restarted" }],
        ["session.waiting", {}],
      ]);
      // B renews its lease: its turn is never taken for a crashed one's, and completes.
      const onBDone = await until(c, onB.sessionId, has("session.waiting"), 10_000);
      expect(count(onBDone, "turn.failed")).toBe(0);
      expect(count(onBDone, "turn.completed")).toBe(1);
      // The session takes follow-ups again, from any host.
      const follow = await c.request(`${base}/v1/session/${onA.sessionId}`, postJson({ continuationToken: onA.continuationToken, message: "again" }));
      expect(follow.status).toBe(200);
      const done = await until(b, onA.sessionId, (e) => count(e, "session.waiting") === 2);
      expect(done.filter((e) => e.type === "message.completed").at(-1)?.data["text"]).toBe("echo: again");
    });

    it("a follow-up that reaches a session of a crashed host recovers it at once once its lease expired", async () => {
      const openStore = newStore();
      const dying = severable(openStore());
      const a = hostOn(dying.driver);
      const onA = await create(a, "/sleep 20000\non a");
      await until(a, onA.sessionId, has("step.started"));
      dying.sever();
      // A host that starts later than the crash and before the next sweep.
      const b = createHost({ agents: [{ slug: "hello", project: project(), storage: openStore() }], logger: quietLogger, drainTimeoutMs: 50, dev: true, leaseTtlMs: 60_000 });
      open.push(b);
      await b.ready();
      await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS + 100));
      const follow = await b.request(`${base}/v1/session/${onA.sessionId}`, postJson({ continuationToken: onA.continuationToken, message: "after" }));
      expect(follow.status).toBe(200);
      const all = await until(b, onA.sessionId, (e) => count(e, "session.waiting") === 2);
      expect(all.filter((e) => e.type === "turn.failed").map((e) => e.data)).toEqual([{ message: "host restarted" }]);
    });

    it("a host whose turn lease went to another owner stops that turn and writes nothing more for it", async () => {
      const store = newStore()();
      const a = hostOn(store);
      // Without the lease check this turn would complete, and write its end, within the wait below.
      const { sessionId } = await create(a, "/sleep 1000\nstalled");
      await until(a, sessionId, has("step.started"));
      const owner = (await store.get(`active/${sessionId}`))!;
      // What a neighbour's recovery does when this host stalls past the ttl: the lease changes hands.
      await store.releaseLease(`turns/${sessionId}`, owner);
      expect(await store.acquireLease(`turns/${sessionId}`, "neighbour", 60_000)).toBe(true);
      const before = await events(a, sessionId);
      await new Promise((resolve) => setTimeout(resolve, 1_000 + 2 * LEASE_TTL_MS));
      expect(await events(a, sessionId)).toEqual(before);
      // The host let go of the session: it is not busy here, and the lease stays the neighbour's.
      const listed = (await (await a.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string }> };
      expect(listed.sessions.find((s) => s.sessionId === sessionId)?.status).toBe("running");
      expect(await store.acquireLease(`turns/${sessionId}`, owner, 60_000)).toBe(false);
    });

    it("frees the turn slots a crashed host held, so queued turns elsewhere run", async () => {
      const capped = project({ agent: { concurrency: { maxRunningTurns: 1 } } });
      const openStore = newStore();
      const dying = severable(openStore());
      const a = hostOn(dying.driver, capped);
      const b = hostOn(openStore(), capped);
      const onA = await create(a, "/sleep 20000\nhog");
      await until(b, onA.sessionId, has("step.started"));
      const onB = await create(b, "waits");
      await until(b, onB.sessionId, has("turn.queued"));
      dying.sever();
      const done = await until(b, onB.sessionId, has("session.waiting"), 10_000);
      expect(count(done, "turn.completed")).toBe(1);
    });
  });
  });
}
