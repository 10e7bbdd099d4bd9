/** The host over the sqlite driver: data lives on disk, survives restarts, and a session can be removed. */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/host.ts";
import type { AgentHost } from "../src/types.ts";
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
  it("refuses a follow-up from a second host on the same store while the first runs the session's turn", async () => {
    const a = open();
    const b = open();
    try {
      const created = await a.request(`${base}/v1/session`, postJson({ message: "/sleep 20000" }));
      const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
      await eventually(async () => ((await allEvents(asTarget(a), base, sessionId)).some((e) => e.type === "turn.started") ? true : undefined));
      const refused = await b.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "from b" }));
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ ok: false, error: "session_busy" });
      // Nothing of the refused message was recorded, and the token did not rotate. Once A's turn
      // has ended (stopped here), B's follow-up goes through.
      expect((await a.request(`${base}/v1/session/${sessionId}/stop`, { method: "POST" })).status).toBe(200);
      await eventually(async () => ((await allEvents(asTarget(a), base, sessionId)).some((e) => e.type === "session.waiting") ? true : undefined), 10_000);
      const events = await allEvents(asTarget(b), base, sessionId);
      expect(events.filter((e) => e.type === "message.received")).toHaveLength(1);
      const accepted = await b.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "from b, later" }));
      expect(accepted.status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
