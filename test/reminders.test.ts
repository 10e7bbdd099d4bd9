/**
 * Reminders (docs/design/timed-work.md "Reminders"): cadences, prompt and run forms, restarts, the
 * host facade, and the dev and internal routes. Time is an injected clock driven by `host.tick`,
 * except where the built-in clock itself is under test.
 */
import { describe, expect, it } from "vitest";
import { createHost } from "../src/host/host.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import type { ReminderRecord, RemindersFacade, ReminderRunContext } from "../src/base/definitions/reminders.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { ToolDefinition } from "../src/base/definitions/tools.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import type { HostLogger } from "../src/base/logging.ts";
import { type TestEvent, allEvents, eventually, postJson, project, quietLogger, type HostUnderTest } from "./_harness.ts";
import { REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";
import { createRedisStorage } from "../drivers/redis/index.ts";

const base = "/hello";
const MINUTE = 60_000;
const T0 = Date.parse("2026-03-02T09:00:00.000Z");

interface Sim {
  host: AgentHost;
  clock: { now: number };
  reminders: RemindersFacade;
  at(ms: number): Promise<string[]>;
}

/** Host code's view of the reminders: what a server tool gets as `ctx.host.reminders`. */
function grabTool(into: { facade?: RemindersFacade }): ToolDefinition {
  return {
    description: "test hook",
    execute(_input, ctx) {
      into.facade = ctx.host.reminders;
      return "ok";
    },
  };
}

async function sim(
  storage: StorageDriver,
  at: number,
  extra: Partial<AgentHostOptions> & { project?: Partial<ProjectDefinition> } = {},
): Promise<Sim> {
  const clock = { now: at };
  const grabbed: { facade?: RemindersFacade } = {};
  const { project: overrides, ...options } = extra;
  const host = createHost({
    agents: [{ slug: "hello", project: project({ ...overrides, tools: { grab: grabTool(grabbed), ...overrides?.tools } }), storage }],
    logger: quietLogger,
    drainTimeoutMs: 50,
    dev: true,
    now: () => clock.now,
    ...options,
  });
  await host.ready();
  const grabbedResponse = await host.request(`${base}/v1/tools/grab`, postJson({}));
  if (grabbedResponse.status !== 200 || !grabbed.facade) throw new Error(`no facade: ${await grabbedResponse.text()}`);
  return {
    host,
    clock,
    reminders: grabbed.facade,
    async at(ms) {
      clock.now = ms;
      return (await host.tick()).flatMap((report) => report.reminders);
    },
  };
}

const asTarget = (host: AgentHost): HostUnderTest => ({ kind: "in-process", host, fetch: (path, init) => host.request(path, init) });

async function openSession(host: AgentHost, message = "hi"): Promise<{ sessionId: string; continuationToken: string }> {
  const response = await host.request(`${base}/v1/session`, postJson({ message }));
  const body = (await response.json()) as { sessionId: string; continuationToken: string };
  await waitFor(host, body.sessionId, (events) => events.filter((e) => e.type === "session.waiting").length >= 1);
  return body;
}

function waitFor(host: AgentHost, sessionId: string, done: (events: TestEvent[]) => boolean, what = "events"): Promise<TestEvent[]> {
  return eventually(async () => {
    const events = await allEvents(asTarget(host), base, sessionId);
    return done(events) ? events : undefined;
  }, 5000, what);
}

const received = (events: TestEvent[]): string[] => events.filter((e) => e.type === "message.received").map((e) => String(e.data.text));
const waitings = (events: TestEvent[]): number => events.filter((e) => e.type === "session.waiting").length;

function recordingLogger(): HostLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

describe("reminder cadences (prompt form)", () => {
  it("delay: fires once when due into the HTTP conversation as a follow-up, then stops; the client's token stays valid", async () => {
    const s = await sim(createMemoryStorage(), T0);
    try {
      const chat = await openSession(s.host);
      const created = await s.reminders.create({ purpose: "check the build", channelId: "http", continuationToken: chat.continuationToken, delay: "20m", prompt: "/reply build is green" });
      expect(created).toMatchObject({
        id: expect.stringMatching(/^rem_/),
        purpose: "check the build",
        channelId: "http",
        continuationToken: chat.continuationToken,
        sessionId: chat.sessionId,
        form: "prompt",
        delay: "20m",
        prompt: "/reply build is green",
        nextFireAt: "2026-03-02T09:20:00.000Z",
        fireCount: 0,
        status: "armed",
      });
      expect(await s.at(T0 + 19 * MINUTE)).toEqual([]);
      expect(await s.at(T0 + 20 * MINUTE)).toEqual([created.id]);
      const events = await waitFor(s.host, chat.sessionId, (e) => waitings(e) === 2);
      expect(received(events)).toEqual(["hi", "/reply build is green"]);
      expect(events.filter((e) => e.type === "message.completed").at(-1)!.data.text).toBe("build is green");
      expect(await s.at(T0 + 60 * MINUTE)).toEqual([]);
      const [stored] = await s.reminders.list({ all: true });
      expect(stored).toMatchObject({ id: created.id, status: "stopped", fireCount: 1, nextFireAt: null, lastFiredAt: "2026-03-02T09:20:00.000Z" });
      expect(await s.reminders.list()).toEqual([]);
      // The reminder's follow-up did not rotate the token the client holds.
      const follow = await s.host.request(`${base}/v1/session/${chat.sessionId}`, postJson({ continuationToken: chat.continuationToken, message: "thanks" }));
      expect(follow.status).toBe(200);
    } finally {
      await s.host.close();
    }
  });

  it("every: fires on a fixed grid; a long gap fires once, not a burst", async () => {
    const s = await sim(createMemoryStorage(), T0);
    try {
      const created = await s.reminders.create({ purpose: "poll", channelId: "ops", continuationToken: "ops:1", every: "30m", prompt: "/reply polled" });
      expect(created.nextFireAt).toBe("2026-03-02T09:30:00.000Z");
      expect(await s.at(T0 + 30 * MINUTE)).toEqual([created.id]);
      // The conversation named by the channel key is started by the first firing, continued after.
      const sessions = (await (await s.host.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; channel: string; continuationToken: string }> };
      const ops = sessions.sessions.filter((row) => row.channel === "ops");
      expect(ops).toEqual([expect.objectContaining({ continuationToken: "ops:1" })]);
      const sessionId = ops[0]!.sessionId;
      await waitFor(s.host, sessionId, (e) => waitings(e) === 1);
      expect(await s.at(T0 + 45 * MINUTE)).toEqual([]);
      expect(await s.at(T0 + 60 * MINUTE + 5_000)).toEqual([created.id]);
      await waitFor(s.host, sessionId, (e) => waitings(e) === 2);
      // Five intervals pass unseen: one firing, and the grid continues.
      expect(await s.at(T0 + 200 * MINUTE)).toEqual([created.id]);
      const [record] = await s.reminders.list();
      expect(record).toMatchObject({ fireCount: 3, status: "armed", nextFireAt: "2026-03-02T12:30:00.000Z" });
      const events = await waitFor(s.host, sessionId, (e) => waitings(e) === 3);
      expect(received(events)).toEqual(["/reply polled", "/reply polled", "/reply polled"]);
    } finally {
      await s.host.close();
    }
  });

  it("cron: fires at the pattern's UTC slots", async () => {
    const s = await sim(createMemoryStorage(), T0 + 10 * MINUTE);
    try {
      const created = await s.reminders.create({ purpose: "hourly", channelId: "ops", continuationToken: "ops:2", cron: "0 * * * *" });
      expect(created.nextFireAt).toBe("2026-03-02T10:00:00.000Z");
      expect(await s.at(T0 + 59 * MINUTE)).toEqual([]);
      expect(await s.at(T0 + 60 * MINUTE)).toEqual([created.id]);
      expect((await s.reminders.list())[0]!.nextFireAt).toBe("2026-03-02T11:00:00.000Z");
    } finally {
      await s.host.close();
    }
  });

  it("until is appended to the prompt as a standing instruction; without a prompt the purpose is the message", async () => {
    const s = await sim(createMemoryStorage(), T0);
    try {
      const a = await s.reminders.create({ purpose: "deploy watch", channelId: "ops", continuationToken: "ops:a", delay: "1m", prompt: "Check the deploy.", until: "the deploy finished" });
      const b = await s.reminders.create({ purpose: "stretch", channelId: "ops", continuationToken: "ops:b", delay: "1m" });
      expect((await s.at(T0 + MINUTE)).sort()).toEqual([a.id, b.id].sort());
      const rows = (await (await s.host.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; continuationToken: string }> };
      const textOf = async (token: string) => {
        const sessionId = rows.sessions.find((row) => row.continuationToken === token)!.sessionId;
        return received(await waitFor(s.host, sessionId, (e) => received(e).length === 1))[0];
      };
      expect(await textOf("ops:a")).toBe(`Check the deploy.\n\n(Standing instruction for reminder ${a.id} "deploy watch": once this holds, stop the reminder instead of acting on it: the deploy finished)`);
      expect(await textOf("ops:b")).toBe("Reminder: stretch");
    } finally {
      await s.host.close();
    }
  });

  it("a reminder fired into a running turn waits for it (coalesced), never interrupting it", async () => {
    const s = await sim(createMemoryStorage(), T0);
    try {
      // Long enough that the reminder fires while it runs, on a loaded machine too (else nothing is tested).
      const response = await s.host.request(`${base}/v1/session`, postJson({ message: "/sleep 1500\n/reply slow done" }));
      const chat = (await response.json()) as { sessionId: string; continuationToken: string };
      await waitFor(s.host, chat.sessionId, (e) => e.some((x) => x.type === "step.started"));
      const created = await s.reminders.create({ purpose: "nudge", channelId: "http", continuationToken: chat.continuationToken, delay: "1s", prompt: "/reply nudged" });
      expect(await s.at(T0 + 1_000)).toEqual([created.id]);
      const events = await waitFor(s.host, chat.sessionId, (e) => e.filter((x) => x.type === "turn.completed").length === 2 && waitings(e) >= 1);
      expect(events.some((e) => e.type === "turn.failed")).toBe(false);
      expect(events.filter((e) => e.type === "message.completed").map((e) => e.data.text)).toEqual(["slow done", "nudged"]);
      // It arrived while the first turn ran.
      const nudge = events.findIndex((e) => e.type === "message.received" && String(e.data.text).includes("/reply nudged"));
      expect(nudge).toBeGreaterThan(0);
      expect(nudge).toBeLessThan(events.findIndex((e) => e.type === "turn.completed"));
    } finally {
      await s.host.close();
    }
  });

  it("cancel stops a reminder; cancelling an unknown id answers undefined", async () => {
    const s = await sim(createMemoryStorage(), T0);
    try {
      const created = await s.reminders.create({ purpose: "p", channelId: "ops", continuationToken: "k", every: "1m" });
      expect(await s.reminders.cancel(created.id)).toMatchObject({ id: created.id, status: "stopped", nextFireAt: null });
      expect(await s.at(T0 + 10 * MINUTE)).toEqual([]);
      expect(await s.reminders.cancel("rem_unknown")).toBeUndefined();
      expect(await s.reminders.cancel("../../etc")).toBeUndefined();
    } finally {
      await s.host.close();
    }
  });

  it("rejects invalid input with clear messages", async () => {
    const s = await sim(createMemoryStorage(), T0);
    try {
      const chat = await openSession(s.host);
      const good = { purpose: "p", channelId: "ops", continuationToken: "k" };
      const cases: Array<[unknown, RegExp]> = [
        [{ ...good }, /give one cadence/],
        [{ ...good, delay: "5m", every: "5m" }, /only one cadence, not delay and every/],
        [{ ...good, delay: "soon" }, /delay must be a duration/],
        [{ ...good, every: "100ms" }, /every must be between 1s and 366d/],
        [{ ...good, cron: "61 * * * *" }, /invalid cron/],
        [{ ...good, purpose: "", delay: "5m" }, /purpose must be a non-empty string/],
        [{ ...good, delay: "5m", prompt: "x", run: () => ({ action: "skip" }) }, /either run .* or prompt/],
        [{ purpose: "p", channelId: "http", continuationToken: "http:nope", delay: "5m" }, /no conversation of the http channel/],
      ];
      for (const [input, message] of cases) {
        await expect(s.reminders.create(input as never)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(message) });
      }
      expect(await s.reminders.list({ all: true })).toEqual([]);
      expect(chat.sessionId).toMatch(/^ses_/);
    } finally {
      await s.host.close();
    }
  });
});

describe("run-form reminders", () => {
  it("run decides each firing: skip (no turn), delivered (followup), stop (ends it)", async () => {
    const s = await sim(createMemoryStorage(), T0);
    const calls: number[] = [];
    try {
      const chat = await openSession(s.host);
      const run = async ({ fireCount, followup }: ReminderRunContext) => {
        calls.push(fireCount);
        if (fireCount === 1) return { action: "skip" as const };
        if (fireCount === 2) {
          await followup({ message: "/reply the queue is long" });
          return { action: "delivered" as const };
        }
        return { action: "stop" as const };
      };
      const created = await s.reminders.create({ purpose: "queue watch", channelId: "http", continuationToken: chat.continuationToken, every: "5m", run });
      expect(created).toMatchObject({ form: "run", status: "armed", every: "5m" });
      expect(created).not.toHaveProperty("run");

      expect(await s.at(T0 + 5 * MINUTE)).toEqual([created.id]);
      const afterSkip = await allEvents(asTarget(s.host), base, chat.sessionId);
      expect(received(afterSkip)).toEqual(["hi"]);

      expect(await s.at(T0 + 10 * MINUTE)).toEqual([created.id]);
      const afterDelivered = await waitFor(s.host, chat.sessionId, (e) => waitings(e) === 2);
      expect(received(afterDelivered)).toEqual(["hi", "/reply the queue is long"]);

      expect(await s.at(T0 + 15 * MINUTE)).toEqual([created.id]);
      expect(await s.at(T0 + 60 * MINUTE)).toEqual([]);
      expect(calls).toEqual([1, 2, 3]);
      const [record] = await s.reminders.list({ all: true });
      expect(record).toMatchObject({ status: "stopped", fireCount: 3, nextFireAt: null });
      expect(received(await allEvents(asTarget(s.host), base, chat.sessionId))).toHaveLength(2);
    } finally {
      await s.host.close();
    }
  });

  it("a throwing or malformed run counts as skip and is logged; a one-shot run reminder stops after firing", async () => {
    const logger = recordingLogger();
    const s = await sim(createMemoryStorage(), T0, { logger });
    try {
      const throws = await s.reminders.create({ purpose: "t", channelId: "ops", continuationToken: "k1", every: "1m", run: () => Promise.reject(new Error("nope")) });
      const malformed = await s.reminders.create({ purpose: "m", channelId: "ops", continuationToken: "k2", delay: "1m", run: () => ({ action: "maybe" }) as never });
      expect((await s.at(T0 + MINUTE)).sort()).toEqual([throws.id, malformed.id].sort());
      expect(logger.lines.some((line) => line.startsWith(`error reminder ${throws.id} (t): run threw`))).toBe(true);
      expect(logger.lines.some((line) => line.startsWith(`warn reminder ${malformed.id} (m): run returned {"action":"maybe"}`))).toBe(true);
      const records = await s.reminders.list({ all: true });
      expect(records.find((r) => r.id === throws.id)).toMatchObject({ status: "armed", fireCount: 1 });
      expect(records.find((r) => r.id === malformed.id)).toMatchObject({ status: "stopped", fireCount: 1 });
    } finally {
      await s.host.close();
    }
  });
});

describe("reminders across restarts", () => {
  it("a restart disarms run-form reminders (handler_lost_on_restart) and keeps prompt-form ones", async () => {
    const storage = createMemoryStorage();
    const first = await sim(storage, T0);
    const run = await first.reminders.create({ purpose: "r", channelId: "ops", continuationToken: "k", every: "5m", run: () => ({ action: "skip" }) });
    const prompt = await first.reminders.create({ purpose: "p", channelId: "ops", continuationToken: "k", every: "5m", prompt: "/reply p" });
    await first.host.close();
    const second = await sim(storage, T0 + MINUTE);
    try {
      const all = await second.reminders.list({ all: true });
      expect(all.find((r) => r.id === run.id)).toMatchObject({ status: "disarmed", disarmReason: "handler_lost_on_restart", nextFireAt: null });
      expect(all.find((r) => r.id === prompt.id)).toMatchObject({ status: "armed" });
      expect(await second.at(T0 + 5 * MINUTE)).toEqual([prompt.id]);
    } finally {
      await second.host.close();
    }
  });

  it("a reminder that came due while the host was down fires once on start, by the built-in clock", async () => {
    const storage = createMemoryStorage();
    const first = await sim(storage, T0);
    const chat = await openSession(first.host);
    const once = await first.reminders.create({ purpose: "once", channelId: "http", continuationToken: chat.continuationToken, delay: "10m", prompt: "/reply late but once" });
    const every = await first.reminders.create({ purpose: "grid", channelId: "ops", continuationToken: "ops:grid", every: "10m", prompt: "/reply grid" });
    await first.host.close();

    // Back 35 minutes later, with the bundled clock (not dev): nobody calls tick.
    const clock = { now: T0 + 35 * MINUTE };
    const host = createHost({ agents: [{ slug: "hello", project: project(), storage }], logger: quietLogger, drainTimeoutMs: 50, now: () => clock.now });
    try {
      const events = await waitFor(host, chat.sessionId, (e) => waitings(e) === 2, "the late firing");
      expect(received(events)).toEqual(["hi", "/reply late but once"]);
      const records = await eventually(async () => {
        const rows = await Promise.all([once.id, every.id].map(async (id) => JSON.parse((await storage.get(`reminders/${id}`))!) as ReminderRecord));
        return rows.every((r) => r.fireCount === 1) ? rows : undefined;
      });
      expect(records[0]).toMatchObject({ status: "stopped", fireCount: 1, lastFiredAt: "2026-03-02T09:35:00.000Z" });
      expect(records[1]).toMatchObject({ status: "armed", fireCount: 1, nextFireAt: "2026-03-02T09:40:00.000Z" });
      // Nothing more is due at this instant: a tick fires nothing.
      expect((await host.tick())[0]!.reminders).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it("two hosts that both loaded a reminder fire it once", async () => {
    const storage = createMemoryStorage();
    await firesOnceAcross(() => storage);
  });

  it.skipIf(!REDIS_SERVER)(`two processes on one Redis, each with its own connection, fire each reminder once${REDIS_MISSING}`, async () => {
    const redis = await startRedisServer();
    try {
      await firesOnceAcross(() => createRedisStorage({ url: redis.url, prefix: "reminders:" }));
    } finally {
      await redis.close();
    }
  });

  it("a reminder whose conversation cannot be followed up is disarmed with the reason", async () => {
    const s = await sim(createMemoryStorage(), T0);
    try {
      const task = await s.host.send("/reply done", { mode: "task", channel: "jobs", continuationToken: "job:1" });
      await waitFor(s.host, task.sessionId, (e) => e.at(-1)?.type === "session.completed");
      const created = await s.reminders.create({ purpose: "p", channelId: "jobs", continuationToken: "job:1", every: "1m" });
      expect(created.sessionId).toBe(task.sessionId);
      expect(await s.at(T0 + MINUTE)).toEqual([created.id]);
      const [record] = await s.reminders.list({ all: true });
      expect(record).toMatchObject({ status: "disarmed", disarmReason: "session_not_followable" });
      expect(await s.at(T0 + 5 * MINUTE)).toEqual([]);
    } finally {
      await s.host.close();
    }
  });
});

describe("dev reminder routes", () => {
  it("GET /v1/dev/reminders lists every reminder; POST fires one by hand; 404 unknown, 409 not armed", async () => {
    const s = await sim(createMemoryStorage(), T0);
    try {
      const a = await s.reminders.create({ purpose: "a", channelId: "ops", continuationToken: "k", delay: "1h", prompt: "/reply by hand" });
      s.clock.now = T0 + 1_000;
      const b = await s.reminders.create({ purpose: "b", channelId: "ops", continuationToken: "k", every: "1h" });
      await s.reminders.cancel(b.id);
      const list = (await (await s.host.request(`${base}/v1/dev/reminders`)).json()) as { reminders: ReminderRecord[] };
      expect(list.reminders.map((r) => [r.id, r.status])).toEqual([[a.id, "armed"], [b.id, "stopped"]]);

      const fired = await s.host.request(`${base}/v1/dev/reminders/${a.id}`, { method: "POST" });
      expect(fired.status).toBe(200);
      expect(await fired.json()).toMatchObject({ reminderId: a.id, reminder: { status: "stopped", fireCount: 1 } });
      const again = await s.host.request(`${base}/v1/dev/reminders/${a.id}`, { method: "POST" });
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ ok: false, error: "reminder_not_armed" });
      for (const id of ["rem_unknown", "nope", "rem_%2e%2e"]) {
        const missing = await s.host.request(`${base}/v1/dev/reminders/${id}`, { method: "POST" });
        expect(missing.status).toBe(404);
        expect(await missing.json()).toMatchObject({ error: "reminder_not_found" });
      }
      const rows = (await (await s.host.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; channel: string }> };
      const ops = rows.sessions.find((row) => row.channel === "ops")!;
      expect(received(await waitFor(s.host, ops.sessionId, (e) => waitings(e) === 1))).toEqual(["/reply by hand"]);
    } finally {
      await s.host.close();
    }
  });
});

describe("internal reminder route", () => {
  it("needs the marker header, 404s unknown ids, fires only a due reminder, once", async () => {
    const storage = createMemoryStorage();
    const s = await sim(storage, T0, { dev: false, controlPlane: false });
    const fire = (id: string, headers: Record<string, string> = { "x-agent-serve-timed-work": "1" }) =>
      s.host.request(`${base}/v1/internal/reminders/${id}/fire`, { method: "POST", headers });
    try {
      const created = await s.reminders.create({ purpose: "p", channelId: "ops", continuationToken: "k", delay: "10m", prompt: "/reply platform" });
      expect((await fire(created.id, {})).status).toBe(403);
      expect(await (await fire("rem_unknown")).json()).toMatchObject({ ok: false, error: "reminder_not_found" });
      expect(await (await fire(created.id)).json()).toEqual({ ok: true, reminderId: created.id, fired: false });
      s.clock.now = T0 + 10 * MINUTE - 2_000; // a platform clock slightly ahead of ours
      expect(await (await fire(created.id)).json()).toEqual({ ok: true, reminderId: created.id, fired: true });
      expect(await (await fire(created.id)).json()).toEqual({ ok: true, reminderId: created.id, fired: false });
      const record = JSON.parse((await storage.get(`reminders/${created.id}`))!) as ReminderRecord;
      expect(record).toMatchObject({ fireCount: 1, status: "stopped" });
    } finally {
      await s.host.close();
    }
  });

  it("a custom timer port receives every due time as an arm of <slug>/reminders/<id>", async () => {
    const arms: Array<[string, number]> = [];
    const disarms: string[] = [];
    const timers = { arm: (key: string, at: number) => arms.push([key, at]), disarm: (key: string) => disarms.push(key), close() {} };
    const s = await sim(createMemoryStorage(), T0, { dev: false, controlPlane: false, timers, project: { schedules: { digest: { cron: "0 10 * * *", markdown: "x" } } } });
    try {
      const created = await s.reminders.create({ purpose: "p", channelId: "ops", continuationToken: "k", delay: "10m" });
      expect(arms).toEqual([
        ["hello/schedules/digest", Date.parse("2026-03-02T10:00:00.000Z")],
        [`hello/reminders/${created.id}`, T0 + 10 * MINUTE],
      ]);
      await s.reminders.cancel(created.id);
      expect(disarms).toEqual([`hello/reminders/${created.id}`]);
    } finally {
      await s.host.close();
    }
  });
});

/** Reminders armed through one host, then two hosts on the same store (each opened by `open`): every firing happens once. */
async function firesOnceAcross(open: () => StorageDriver): Promise<void> {
  const creator = await sim(open(), T0);
  const ids = await Promise.all(
    Array.from({ length: 20 }, (_, i) => creator.reminders.create({ purpose: `r${i}`, channelId: "ops", continuationToken: `k${i}`, every: "1m", prompt: "/reply x" })),
  );
  await creator.host.close();
  const [a, b] = await Promise.all([sim(open(), T0), sim(open(), T0)]);
  try {
    const fired: string[] = [];
    for (let minute = 1; minute <= 5; minute++) {
      const [fa, fb] = await Promise.all([a.at(T0 + minute * MINUTE), b.at(T0 + minute * MINUTE)]);
      fired.push(...fa, ...fb);
    }
    expect(fired).toHaveLength(100);
    expect(new Set(fired)).toEqual(new Set(ids.map((r) => r.id)));
    const records = await a.reminders.list({ all: true });
    expect(records.every((r) => r.fireCount === 5)).toBe(true);
  } finally {
    await Promise.all([a.host.close(), b.host.close()]);
  }
}
