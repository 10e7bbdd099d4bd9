import { describe, expect, it } from "vitest";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHost } from "../src/host/types.ts";
import { allEvents, eventually, postJson, project, quietLogger, readEvents, type HostUnderTest, severable } from "./_harness.ts";

const base = "/hello";


const hostOn = (storage: StorageDriver, dev = true): AgentHost =>
  createHost({ agents: [{ slug: "hello", project: project(), storage }], logger: quietLogger, drainTimeoutMs: 50, dev });

const asTarget = (host: AgentHost): HostUnderTest => ({ kind: "in-process", host, fetch: (path, init) => host.request(path, init) });

describe("restart recovery", () => {
  it("fails turns that were in flight at a crash and returns sessions to waiting", async () => {
    const storage = createMemoryStorage();
    const first = severable(storage);
    const crashed = hostOn(first.driver);
    const running = (await (await crashed.request(`${base}/v1/session`, postJson({ message: "/sleep 5000\nslow" }))).json()) as {
      sessionId: string;
      continuationToken: string;
    };
    const idle = (await (await crashed.request(`${base}/v1/session`, postJson({ message: "quick" }))).json()) as { sessionId: string };
    await eventually(async () => ((await allEvents(asTarget(crashed), base, running.sessionId)).some((e) => e.type === "step.started") ? true : undefined));
    await eventually(async () => ((await allEvents(asTarget(crashed), base, idle.sessionId)).some((e) => e.type === "session.waiting") ? true : undefined));
    const before = await allEvents(asTarget(crashed), base, running.sessionId);
    const idleBefore = await allEvents(asTarget(crashed), base, idle.sessionId);
    first.sever();

    const restarted = hostOn(storage);
    try {
      const after = await allEvents(asTarget(restarted), base, running.sessionId);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.map((e) => e.index)).toEqual(after.map((_, i) => i));
      const tail = after.slice(before.length);
      expect(tail.map((e) => [e.type, e.data])).toEqual([
        ["turn.failed", { message: "host restarted" }],
        ["session.waiting", {}],
      ]);
      expect(tail[0]!.turnId).toBe(before.find((e) => e.type === "turn.started")!.turnId);
      // A session that was idle at the crash is left untouched.
      expect(await allEvents(asTarget(restarted), base, idle.sessionId)).toEqual(idleBefore);

      const list = (await (await restarted.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ status: string; continuationToken: string; sessionId: string }> };
      expect(list.sessions.every((s) => s.status === "idle")).toBe(true);
      const token = list.sessions.find((s) => s.sessionId === running.sessionId)!.continuationToken;
      expect(token).toBe(running.continuationToken);
      const follow = await restarted.request(`${base}/v1/session/${running.sessionId}`, postJson({ continuationToken: token, message: "after restart" }));
      expect(follow.status).toBe(200);
      const done = await eventually(async () => {
        const events = await allEvents(asTarget(restarted), base, running.sessionId);
        return events.filter((e) => e.type === "session.waiting").length === 2 ? events : undefined;
      });
      expect(done.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("echo: after restart");
    } finally {
      await restarted.close();
    }
  });

  it("recovers a crash between acceptance and turn start, and a queued turn", async () => {
    const storage = createMemoryStorage();
    const first = severable(storage);
    const crashed = createHost({
      agents: [{ slug: "hello", project: project({ agent: { concurrency: { maxRunningTurns: 1 } } }), storage: first.driver }],
      logger: quietLogger,
      dev: true,
    });
    const a = (await (await crashed.request(`${base}/v1/session`, postJson({ message: "/sleep 5000\na" }))).json()) as { sessionId: string };
    const b = (await (await crashed.request(`${base}/v1/session`, postJson({ message: "b" }))).json()) as { sessionId: string };
    await eventually(async () => ((await allEvents(asTarget(crashed), base, b.sessionId)).some((e) => e.type === "turn.queued") ? true : undefined));
    first.sever();
    const restarted = hostOn(storage);
    try {
      for (const id of [a.sessionId, b.sessionId]) {
        const events = await allEvents(asTarget(restarted), base, id);
        expect(events.slice(-2).map((e) => e.type)).toEqual(["turn.failed", "session.waiting"]);
        expect(events.at(-2)!.data).toEqual({ message: "host restarted" });
      }
    } finally {
      await restarted.close();
    }
  });

  it("recovery is idempotent: a second restart adds nothing", async () => {
    const storage = createMemoryStorage();
    const first = severable(storage);
    const crashed = hostOn(first.driver);
    const s = (await (await crashed.request(`${base}/v1/session`, postJson({ message: "/sleep 5000\nx" }))).json()) as { sessionId: string };
    await eventually(async () => ((await allEvents(asTarget(crashed), base, s.sessionId)).some((e) => e.type === "turn.started") ? true : undefined));
    first.sever();
    const second = hostOn(storage);
    const afterFirst = await allEvents(asTarget(second), base, s.sessionId);
    await second.close();
    const third = hostOn(storage);
    try {
      expect(await allEvents(asTarget(third), base, s.sessionId)).toEqual(afterFirst);
    } finally {
      await third.close();
    }
  });
});

describe("active markers", () => {
  it("a follow-up admitted while the previous turn settles keeps its marker, so a crash would be recovered", async () => {
    const storage = createMemoryStorage();
    // Slow record writes widen the window between session.waiting and the end of the settle step.
    let slowWrites = 0;
    const slow = new Proxy(storage, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== "set" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
        return async (key: string, text: string) => {
          if (!key.endsWith("/record")) return (value as (k: string, t: string) => Promise<void>).call(target, key, text);
          slowWrites++;
          try {
            await new Promise((resolve) => setTimeout(resolve, 80));
            return await (value as (k: string, t: string) => Promise<void>).call(target, key, text);
          } finally {
            slowWrites--;
          }
        };
      },
    });
    const host = hostOn(slow);
    try {
      const created = (await (await host.request(`${base}/v1/session`, postJson({ message: "quick" }))).json()) as { sessionId: string; continuationToken: string };
      const stream = await host.request(`${base}/v1/session/${created.sessionId}/stream`);
      await readEvents(stream, (e) => e.type === "session.waiting");
      // The follow-up's turn outlives the check below: only a settle step could take its marker away.
      const follow = await host.request(`${base}/v1/session/${created.sessionId}`, postJson({ continuationToken: created.continuationToken, message: "/sleep 60000\nslow" }));
      expect(follow.status).toBe(200);
      await eventually(async () => {
        if (slowWrites > 0) return undefined;
        const steps = (await allEvents(asTarget(host), base, created.sessionId)).filter((e) => e.type === "step.started");
        return steps.length === 2 ? true : undefined;
      }, 10_000, "the follow-up's step, with the first turn's record writes landed");
      expect(await storage.get(`active/${created.sessionId}`)).toBeDefined();
    } finally {
      await host.close();
    }
  });
});

describe("recoverOnStart: false", () => {
  it("leaves another live server's running turns alone", async () => {
    const storage = createMemoryStorage();
    const live = hostOn(storage);
    const s = (await (await live.request(`${base}/v1/session`, postJson({ message: "/sleep 300\nx" }))).json()) as { sessionId: string };
    await eventually(async () => ((await allEvents(asTarget(live), base, s.sessionId)).some((e) => e.type === "step.started") ? true : undefined));
    const helper = createHost({ agents: [{ slug: "hello", project: project(), storage }], logger: quietLogger, dev: true, recoverOnStart: false });
    try {
      await helper.ready();
      const events = await allEvents(asTarget(helper), base, s.sessionId);
      expect(events.some((e) => e.type === "turn.failed")).toBe(false);
      const done = await eventually(async () => {
        const all = await allEvents(asTarget(live), base, s.sessionId);
        return all.some((e) => e.type === "session.waiting") ? all : undefined;
      });
      expect(done.filter((e) => e.type === "turn.completed")).toHaveLength(1);
    } finally {
      await helper.close();
      await live.close();
    }
  });
});

describe("task sessions", () => {
  it("end in session.completed, refuse follow-ups with 409, and their stream ends", async () => {
    const host = hostOn(createMemoryStorage());
    try {
      const task = await host.send("run the report", { mode: "task", channel: "schedule" });
      const stream = await host.request(`${base}/v1/session/${task.sessionId}/stream`);
      const text = await stream.text();
      const types = text.trim().split("\n").map((line) => (JSON.parse(line) as { type: string }).type);
      expect(types.at(-1)).toBe("session.completed");
      expect(types).not.toContain("session.waiting");
      const follow = await host.request(`${base}/v1/session/${task.sessionId}`, postJson({ continuationToken: task.continuationToken, message: "more" }));
      // dev loopback may read, but follow-ups need the owner; as the owner it would be not followable.
      expect(follow.status).toBe(403);
      const owner = { authenticator: "channel", principalId: "channel:schedule", principalType: "service" as const };
      await expect(host.send("more", { channel: "schedule", continuationToken: task.continuationToken, auth: owner })).rejects.toMatchObject({
        status: 409,
        code: "session_not_followable",
      });
      const list = (await (await host.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ mode: string; status: string }> };
      expect(list.sessions[0]).toMatchObject({ mode: "task", status: "completed" });
    } finally {
      await host.close();
    }
  });

  it("end in session.failed when the turn fails", async () => {
    const host = hostOn(createMemoryStorage());
    try {
      const task = await host.send("/fail no luck", { mode: "task", channel: "schedule" });
      const text = await (await host.request(`${base}/v1/session/${task.sessionId}/stream`)).text();
      const last = JSON.parse(text.trim().split("\n").at(-1)!) as { type: string; data: unknown };
      expect(last).toMatchObject({ type: "session.failed", data: { message: "no luck" } });
    } finally {
      await host.close();
    }
  });
});

describe("shutdown", () => {
  it("drains: turns still running after the grace period end with host shutting down, streams end", async () => {
    const host = hostOn(createMemoryStorage());
    const s = (await (await host.request(`${base}/v1/session`, postJson({ message: "/sleep 5000\nslow" }))).json()) as { sessionId: string };
    const stream = await host.request(`${base}/v1/session/${s.sessionId}/stream`);
    const reading = stream.text();
    await eventually(async () => ((await allEvents(asTarget(host), base, s.sessionId)).some((e) => e.type === "step.started") ? true : undefined));
    await host.close();
    const lines = (await reading).trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: unknown });
    expect(lines.slice(-2)).toEqual([
      expect.objectContaining({ type: "turn.failed", data: { message: "host shutting down" } }),
      expect.objectContaining({ type: "session.waiting" }),
    ]);
    const refused = await host.request(`${base}/v1/session`, postJson({ message: "late" }));
    expect(refused.status).toBe(503);
  });
});
