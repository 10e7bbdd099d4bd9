/**
 * A fork at a parked approval decides it on its own (docs/guide/forking.md "At a parked
 * approval"): the fork holds its own copy of the waiting call, listed and decided apart from the
 * source's, whatever the source decided; a cut after the decision cuts back instead (the call is
 * never run twice by a copy); a fork with a message preempts its parked turn; the fork's call
 * survives a restart. Real loopback servers, on memory and sqlite stores.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createPostgresStorage } from "../drivers/postgres/index.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { dangerTool } from "./_danger-tool.ts";
import { type TestEvent, eventually, fetchEvents, helloOptions, postJson, project } from "./_harness.ts";
import { type PostgresServer, POSTGRES_BIN, POSTGRES_MISSING, startPostgresServer } from "./_postgres-server.ts";

const { tools, runs } = dangerTool("Deletes things");

let dir: string;
const open: Array<{ host: AgentHost; server: NodeServer }> = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fork-parked-"));
});
afterEach(async () => {
  for (const { host, server } of open.splice(0)) {
    await host.close();
    await server.close(true);
  }
  rmSync(dir, { recursive: true, force: true });
});

async function start(storage: StorageDriver): Promise<string> {
  const host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage }] }));
  const server = await serveNode(host, { port: 0, silent: true });
  open.push({ host, server });
  return `${server.url}/hello`;
}

/** What one client does against one base URL. */
function api(base: string) {
  const a = {
    async create(message: string): Promise<string> {
      const response = await fetch(`${base}/v1/session`, postJson({ message }));
      expect(response.status).toBe(200);
      return ((await response.json()) as { sessionId: string }).sessionId;
    },
    async fork(sessionId: string, atIndex: number, message?: string): Promise<string> {
      const response = await fetch(`${base}/v1/session/${sessionId}/fork`, postJson({ atIndex, ...(message === undefined ? {} : { message }) }));
      expect(response.status).toBe(200);
      return ((await response.json()) as { sessionId: string }).sessionId;
    },
    events: (sessionId: string): Promise<TestEvent[]> => fetchEvents(base, sessionId),
    async pending(sessionId: string): Promise<Array<{ callId: string; toolName: string; input: unknown; turnId: string }>> {
      const response = await fetch(`${base}/v1/session/${sessionId}/approvals`);
      expect(response.status).toBe(200);
      return ((await response.json()) as { approvals: Array<{ callId: string; toolName: string; input: unknown; turnId: string }> }).approvals;
    },
    decide: (sessionId: string, callId: string, decision: "approve" | "deny"): Promise<Response> =>
      fetch(`${base}/v1/session/${sessionId}/approvals/${callId}`, postJson({ decision })),
    async status(sessionId: string): Promise<string | undefined> {
      const { sessions } = (await (await fetch(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string }> };
      return sessions.find((s) => s.sessionId === sessionId)?.status;
    },
    until: (sessionId: string, done: (events: TestEvent[]) => boolean, what: string): Promise<TestEvent[]> =>
      eventually(async () => {
        const events = await a.events(sessionId);
        return done(events) ? events : undefined;
      }, 10_000, what),
    /** Parks `danger` in a new session; the index of its `action.approval_requested`, and the call. */
    async park(what: string): Promise<{ sessionId: string; callId: string; at: number }> {
      const sessionId = await a.create(`/tool danger {"what":"${what}"}\n/reply done with ${what}`);
      const events = await a.until(sessionId, (all) => all.some((e) => e.type === "action.approval_requested"), "a parked call");
      const asked = events.find((e) => e.type === "action.approval_requested")!;
      return { sessionId, callId: asked.data["callId"] as string, at: asked.index };
    },
    rested: (sessionId: string): Promise<TestEvent[]> => a.until(sessionId, (all) => all.at(-1)?.type === "session.waiting", "session.waiting"),
  };
  return a;
}

const decisions = (events: TestEvent[]): unknown[] => events.filter((e) => e.type === "action.approval_resolved").map((e) => e.data["decision"]);
const results = (events: TestEvent[]): unknown[] => events.filter((e) => e.type === "action.result").map((e) => e.data["output"]);

let pg: PostgresServer | undefined;
beforeAll(async () => {
  if (POSTGRES_BIN) pg = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await pg?.close();
});

let namespaces = 0;
const stores: Array<[string, () => StorageDriver, boolean]> = [
  ["memory", () => createMemoryStorage(), true],
  ["sqlite", () => createSqliteStorage({ path: join(dir, "state.db") }), true],
  // Several processes' store: the fork's parked turn is found by the lease sweep as well.
  [`postgres${POSTGRES_MISSING}`, () => createPostgresStorage({ url: pg!.url, namespace: `forkparked${Date.now()}${++namespaces}` }), POSTGRES_BIN !== undefined],
];

for (const [kind, makeStorage, available] of stores) {
  describe.skipIf(!available)(`a fork at a parked approval [${kind}]`, () => {
    it("holds its own copy of the call: the source approves, the fork denies, each runs its own way", async () => {
      const c = api(await start(makeStorage()));
      const source = await c.park("prod");
      const fork = await c.fork(source.sessionId, source.at);

      // Both list the call, each its own.
      const [sourceCall] = await c.pending(source.sessionId);
      expect(await c.pending(fork)).toEqual([{ ...sourceCall, requestedAt: expect.any(String) }]);
      expect(await c.status(fork)).toBe("running");
      const forkEvents = await c.events(fork);
      expect(forkEvents.map((e) => e.type).slice(-2)).toEqual(["action.approval_requested", "session.forked"]);
      expect(forkEvents.some((e) => e.type === "turn.failed")).toBe(false);

      expect((await c.decide(source.sessionId, source.callId, "approve")).status).toBe(200);
      const sourceDone = await c.rested(source.sessionId);
      expect(runs).toEqual(["prod"]);
      // The source's decision left the fork's call waiting.
      expect((await c.pending(fork)).map((call) => call.callId)).toEqual([source.callId]);

      expect((await c.decide(fork, source.callId, "deny")).status).toBe(200);
      const forkDone = await c.rested(fork);
      expect(runs).toEqual(["prod"]);
      expect(decisions(sourceDone)).toEqual(["approve"]);
      expect(results(sourceDone)).toEqual(["deleted prod"]);
      expect(decisions(forkDone)).toEqual(["deny"]);
      expect(results(forkDone)).toEqual(["denied"]);
      expect(forkDone.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("done with prod");
      expect(forkDone.slice(-2).map((e) => e.type)).toEqual(["turn.completed", "session.waiting"]);
      // Each decided once: a second decision on either is refused.
      expect((await c.decide(fork, source.callId, "approve")).status).toBe(409);
      expect((await c.decide(source.sessionId, source.callId, "deny")).status).toBe(409);
    });

    it("forked after the source decided, the copy is still pending and may be decided the other way", async () => {
      const c = api(await start(makeStorage()));
      const source = await c.park("staging");
      expect((await c.decide(source.sessionId, source.callId, "deny")).status).toBe(200);
      await c.rested(source.sessionId);
      expect(runs).toEqual([]);

      const fork = await c.fork(source.sessionId, source.at);
      expect((await c.pending(fork)).map((call) => call.callId)).toEqual([source.callId]);
      expect((await c.decide(fork, source.callId, "approve")).status).toBe(200);
      const forkDone = await c.rested(fork);
      expect(results(forkDone)).toEqual(["deleted staging"]);
      expect(runs).toEqual(["staging"]);
      // The source is untouched: still denied, nothing pending.
      expect(results(await c.events(source.sessionId))).toEqual(["denied"]);
      expect(await c.pending(source.sessionId)).toEqual([]);
    });

    it("a cut after the decision is not parked: the fork cuts back before the step, so the call never runs twice", async () => {
      const c = api(await start(makeStorage()));
      const source = await c.park("logs");
      expect((await c.decide(source.sessionId, source.callId, "approve")).status).toBe(200);
      const done = await c.rested(source.sessionId);
      const resolvedAt = done.find((e) => e.type === "action.approval_resolved")!.index;
      const fork = await c.fork(source.sessionId, resolvedAt);
      const events = await c.events(fork);
      expect(events.slice(resolvedAt + 1).map((e) => [e.type, e.data])).toEqual([
        ["turn.failed", { message: "the session was forked inside this turn" }],
        ["session.forked", { sourceSessionId: source.sessionId, atIndex: resolvedAt }],
        ["session.waiting", {}],
      ]);
      expect(await c.pending(fork)).toEqual([]);
      expect(await c.status(fork)).toBe("idle");
      expect(runs).toEqual(["logs"]);
    });

    it("a fork with a message preempts its parked turn: the copy closes and the message runs", async () => {
      const c = api(await start(makeStorage()));
      const source = await c.park("cache");
      const fork = await c.fork(source.sessionId, source.at, "/reply never mind");
      const events = await c.rested(fork);
      const after = events.slice(source.at + 1);
      expect(after.map((e) => e.type)).toEqual(expect.arrayContaining(["session.forked", "action.result", "turn.failed", "message.received", "turn.started", "turn.completed"]));
      expect(after.find((e) => e.type === "turn.failed")!.data).toEqual({ message: "turn interrupted" });
      expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("never mind");
      expect(await c.pending(fork)).toEqual([]);
      expect((await c.decide(fork, source.callId, "approve")).status).toBe(409);
      // The source still waits for its own decision.
      expect((await c.pending(source.sessionId)).map((call) => call.callId)).toEqual([source.callId]);
      expect(runs).toEqual([]);
    });
  });
}

it("a fork's parked call survives a restart on sqlite and is decided there", async () => {
  const path = join(dir, "restart.db");
  const first = api(await start(createSqliteStorage({ path })));
  const source = await first.park("db");
  const fork = await first.fork(source.sessionId, source.at);
  const { host, server } = open.pop()!;
  await host.close();
  await server.close(true);

  const second = api(await start(createSqliteStorage({ path })));
  expect((await second.pending(fork)).map((call) => call.callId)).toEqual([source.callId]);
  expect((await second.decide(fork, source.callId, "approve")).status).toBe(200);
  expect(results(await second.rested(fork))).toEqual(["deleted db"]);
  expect((await second.pending(source.sessionId)).map((call) => call.callId)).toEqual([source.callId]);
  expect(runs).toEqual(["db"]);
});
