/** The host over the sqlite driver: data lives on disk, survives restarts, and a session can be removed. */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/host/host.ts";
import type { CommitBatch, StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHost } from "../src/host/types.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import { allEvents, eventually, postJson, project, quietLogger, type HostUnderTest } from "./_harness.ts";

const base = "/hello";
let root: string;

const open = (): AgentHost =>
  createHost({ agents: [{ slug: "hello", project: project(), storage: createSqliteStorage({ path: join(root, "state.db") }), runtime: createLocalRuntime({ stateRoot: root }) }], logger: quietLogger, drainTimeoutMs: 50 });
const asTarget = (host: AgentHost): HostUnderTest => ({ kind: "in-process", host, fetch: (path, init) => host.request(path, init) });

async function chat(host: AgentHost, message: string): Promise<{ sessionId: string; continuationToken: string }> {
  const created = (await (await host.request(`${base}/v1/session`, postJson({ message }))).json()) as { sessionId: string; continuationToken: string };
  // Idle in the listing: the record writes that follow session.waiting have landed too.
  await eventually(async () => {
    const { sessions } = (await (await host.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string }> };
    return sessions.find((s) => s.sessionId === created.sessionId)?.status === "idle" ? true : undefined;
  });
  return created;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "agent-serve-sqlite-host-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("host on the sqlite driver", () => {
  it("keeps sessions, streams and tokens across a clean restart", async () => {
    const first = open();
    const session = await chat(first, "remember me");
    const before = await allEvents(asTarget(first), base, session.sessionId);
    await first.close();

    const second = open();
    try {
      expect(await allEvents(asTarget(second), base, session.sessionId)).toEqual(before);
      const follow = await second.request(`${base}/v1/session/${session.sessionId}`, postJson({ continuationToken: session.continuationToken, message: "again" }));
      expect(follow.status).toBe(200);
      const after = await eventually(async () => {
        const events = await allEvents(asTarget(second), base, session.sessionId);
        return events.filter((e) => e.type === "session.waiting").length === 2 ? events : undefined;
      });
      expect(after.map((e) => e.index)).toEqual(after.map((_, i) => i));
      expect(after.slice(0, before.length)).toEqual(before);
    } finally {
      await second.close();
    }
  });

  it("DELETE /v1/session/:id stops a running turn, then removes records, log and workspace: 404 everywhere", async () => {
    const host = open();
    try {
      const keep = await chat(host, "keep");
      const drop = await chat(host, "drop");
      const workspace = join(root, "workspaces", drop.sessionId);
      await eventually(async () => ((await readdir(workspace).catch(() => undefined)) ? true : undefined), 5_000, "the session workspace");
      // A running turn is stopped before the session goes.
      const followed = await host.request(`${base}/v1/session/${drop.sessionId}`, postJson({ continuationToken: drop.continuationToken, message: "/sleep 10000" }));
      expect(followed.status).toBe(200);
      const { continuationToken } = (await followed.json()) as { continuationToken: string };

      const removed = await host.request(`${base}/v1/session/${drop.sessionId}`, { method: "DELETE" });
      expect(removed.status).toBe(200);
      expect(await removed.json()).toEqual({ ok: true });

      const list = (await (await host.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string }> };
      expect(list.sessions.map((s) => s.sessionId)).toEqual([keep.sessionId]);
      for (const [path, init] of [
        [`/v1/session/${drop.sessionId}/events`, undefined],
        [`/v1/session/${drop.sessionId}/stream`, undefined],
        [`/v1/session/${drop.sessionId}`, postJson({ continuationToken, message: "x" })],
        [`/v1/session/${drop.sessionId}`, { method: "DELETE" }],
      ] as const) {
        const response = await host.request(`${base}${path}`, init);
        expect(response.status, path).toBe(404);
        expect(await response.json()).toMatchObject({ ok: false, error: "session_not_found" });
      }
      expect(await readdir(workspace).catch((error: NodeJS.ErrnoException) => error.code)).toBe("ENOENT");
      // Nothing of it is left in the store: no record, token, marker or log line.
      await host.close();
      const storage = createSqliteStorage({ path: join(root, "state.db") });
      const keys = (await storage.list("")).filter((key) => key.includes(drop.sessionId));
      expect(keys).toEqual([]);
      expect(await storage.hasLog(`sessions/${drop.sessionId}/events`)).toBe(false);
      expect(await storage.hasLog(`sessions/${drop.sessionId}/conversation`)).toBe(false);
      expect(await storage.hasLog(`sessions/${keep.sessionId}/events`)).toBe(true);
      await storage.close();
    } finally {
      await host.close();
    }
  });
});

describe("one turn at a time per session across processes (turn lease)", () => {
  it("forwards a follow-up and a stop that reach a second host on the same file to the host running the turn", async () => {
    const a = open();
    const b = open();
    try {
      const created = await a.request(`${base}/v1/session`, postJson({ message: "/sleep 20000" }));
      const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
      await eventually(async () => ((await allEvents(asTarget(a), base, sessionId)).some((e) => e.type === "turn.started") ? true : undefined));
      // B does not run a second turn beside A's: A preempts its own turn for B's message (the
      // sqlite driver's follow is process-local, so the request reaches A by polling).
      const preempt = await b.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "/sleep 20000\nfrom b" }));
      expect(preempt.status).toBe(200);
      const { continuationToken: rotated } = (await preempt.json()) as { continuationToken: string };
      const running = await eventually(async () => {
        const events = await allEvents(asTarget(b), base, sessionId);
        return events.filter((e) => e.type === "turn.started").length === 2 ? events : undefined;
      }, 10_000);
      const types = running.map((e) => e.type);
      expect(types.indexOf("turn.failed")).toBeLessThan(types.lastIndexOf("turn.started"));
      expect(types).not.toContain("session.waiting");
      expect(running.filter((e) => e.type === "message.received").map((e) => e.data["text"])).toEqual(["/sleep 20000", "/sleep 20000\nfrom b"]);
      // A stop that reaches B ends the turn A runs.
      expect((await b.request(`${base}/v1/session/${sessionId}/stop`, { method: "POST" })).status).toBe(200);
      const settled = await eventually(async () => {
        const events = await allEvents(asTarget(a), base, sessionId);
        return events.at(-1)?.type === "session.waiting" ? events : undefined;
      }, 10_000);
      expect(settled.filter((e) => e.type === "turn.failed").map((e) => e.data)).toEqual([{ message: "turn interrupted" }, { message: "turn interrupted" }]);
      const accepted = await b.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken: rotated, message: "from b, later" }));
      expect(accepted.status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  for (const inCommit of [true, false]) {
    it(`keeps the active marker until the turn's lease is released, so a crash in between never leaves a lease recovery cannot find (${inCommit ? "both in the turn end's commit" : "a store without releasesInCommit"})`, async () => {
      const order: string[] = [];
      const inner = createSqliteStorage({ path: join(root, "state.db") });
      const capabilities = { ...inner.capabilities, releasesInCommit: inCommit };
      const storage = new Proxy(inner, {
        get(target, property, receiver) {
          if (property === "capabilities") return capabilities;
          const value = Reflect.get(target, property, receiver) as unknown;
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            if (property === "releaseLease") order.push(`release ${String(args[0])}`);
            if (property === "delete") order.push(`delete ${String(args[0])}`);
            if (property === "commit") {
              const batch = args[0] as CommitBatch;
              // One commit is one transaction: what it releases and deletes lands together.
              const together = [
                ...(batch.releases ?? []).map((release) => `release ${release.key}`),
                ...(batch.records ?? []).filter((write) => write.value === null).map((write) => `delete ${write.key}`),
              ];
              if (together.length > 0) order.push(together.join(" + "));
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }) as StorageDriver;
      const host = createHost({ agents: [{ slug: "hello", project: project(), storage }], logger: quietLogger, drainTimeoutMs: 50 });
      try {
        const { sessionId } = await chat(host, "/reply settled");
        await eventually(async () => (order.some((entry) => entry.includes(`delete active/${sessionId}`)) ? true : undefined));
        // The listing's index entries move with every record write; only the lease and the marker matter here.
        const mine = order.map((entry) => entry.split(" + ").filter((part) => part.endsWith(sessionId) && !part.includes("session-index/")).join(" + ")).filter(Boolean);
        expect(mine).toEqual(inCommit ? [`release turns/${sessionId} + delete active/${sessionId}`] : [`release turns/${sessionId}`, `delete active/${sessionId}`]);
      } finally {
        await host.close();
      }
    });
  }
});
