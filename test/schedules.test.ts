/**
 * Schedules (docs/design/timed-work.md "Schedules"): exactly one firing per due minute, driven by
 * `host.tick` with an injected clock, across restarts and crashes; missed slots; markdown task
 * sessions; run handlers; `schedules: false`.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHost } from "../src/host/host.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import type { ScheduleContext, ScheduleDefinition } from "../src/base/definitions/schedules.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { SessionRecord } from "../src/base/definitions/sessions.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import type { HostLogger, LogLine } from "../src/base/logging.ts";
import { allEvents, eventually, postJson, project, quietLogger, type HostUnderTest, severable } from "./_harness.ts";

const base = "/hello";
const MINUTE = 60_000;
/** A minute boundary, so slot n of an every-minute schedule is T0 + n minutes. */
const T0 = Date.parse("2026-03-02T09:00:00.000Z");
const EVERY_MINUTE: ScheduleDefinition = { cron: "* * * * *", markdown: "/reply tick" };

interface SimHost {
  host: AgentHost;
  clock: { now: number };
}

/**
 * A host on `storage` whose clock reads `clock.now` (initially `at`), started (so its cron runner
 * counts slots from `at`).
 */
async function simHost(
  storage: StorageDriver,
  at: number,
  schedules: Record<string, ScheduleDefinition>,
  extra: Partial<AgentHostOptions> & { project?: Partial<ProjectDefinition> } = {},
): Promise<SimHost> {
  const clock = { now: at };
  const { project: projectOverrides, ...options } = extra;
  const host = createHost({
    agents: [{ slug: "hello", project: project({ schedules, ...projectOverrides }), storage }],
    logger: quietLogger,
    drainTimeoutMs: 50,
    // No clock: only the test's ticks fire anything.
    dev: true,
    now: () => clock.now,
    ...options,
  });
  await host.ready();
  return { host, clock };
}

/** Ticks at 30 s past each minute in `[from, to]` and returns the slots fired (minute numbers). */
async function tickMinutes(sim: SimHost, from: number, to: number): Promise<number[]> {
  const fired: number[] = [];
  for (let minute = from; minute <= to; minute++) {
    sim.clock.now = T0 + minute * MINUTE + 30_000;
    for (const report of await sim.host.tick()) {
      for (const firing of report.schedules) fired.push((Date.parse(firing.slot) - T0) / MINUTE);
    }
  }
  return fired;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);


function recordingLogger(): HostLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

const asTarget = (host: AgentHost): HostUnderTest => ({ kind: "in-process", host, fetch: (path, init) => host.request(path, init) });

async function scheduleSessions(host: AgentHost): Promise<Array<{ sessionId: string; channel: string; mode: string; title: string | null; status: string }>> {
  const body = (await (await host.request(`${base}/v1/sessions?limit=500`)).json()) as { sessions: Array<{ sessionId: string; channel: string; mode: string; title: string | null; status: string }> };
  return body.sessions.filter((s) => s.channel === "schedule");
}

/** Task sessions of the schedule channel as stored, whoever may list them over HTTP. */
async function storedScheduleSessions(storage: StorageDriver): Promise<SessionRecord[]> {
  const keys = (await storage.list("sessions/")).filter((key) => key.endsWith("/record"));
  const records = await Promise.all(keys.map(async (key) => JSON.parse((await storage.get(key))!) as SessionRecord));
  return records.filter((record) => record.channel === "schedule").sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
}

describe("the cron runner", () => {
  it("fires an every-minute schedule 60 times over a simulated hour, once per slot", async () => {
    const sim = await simHost(createMemoryStorage(), T0, { every: EVERY_MINUTE });
    try {
      expect(await tickMinutes(sim, 1, 60)).toEqual(range(1, 60));
      // Ticking the same instant again, or many times within a minute, adds nothing.
      expect(await tickMinutes(sim, 60, 60)).toEqual([]);
      sim.clock.now = T0 + 60 * MINUTE + 59_000;
      expect((await sim.host.tick())[0]!.schedules).toEqual([]);
      const sessions = await scheduleSessions(sim.host);
      expect(sessions).toHaveLength(60);
      expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(60);
    } finally {
      await sim.host.close();
    }
  });

  it("a tick every 20 s still fires each minute once; a cron with a step fires only on its slots", async () => {
    const sim = await simHost(createMemoryStorage(), T0, { every: EVERY_MINUTE, quarter: { cron: "*/15 * * * *", markdown: "/reply q" } });
    try {
      const fired: Record<string, number[]> = { every: [], quarter: [] };
      for (let second = 20; second <= 60 * 60; second += 20) {
        sim.clock.now = T0 + second * 1000;
        for (const firing of (await sim.host.tick())[0]!.schedules) fired[firing.scheduleId]!.push((Date.parse(firing.slot) - T0) / MINUTE);
      }
      expect(fired.every).toEqual(range(1, 60));
      expect(fired.quarter).toEqual([15, 30, 45, 60]);
    } finally {
      await sim.host.close();
    }
  });

  it("a restart in the middle (new host, same storage) neither doubles nor drops a slot", async () => {
    const storage = createMemoryStorage();
    const first = await simHost(storage, T0, { every: EVERY_MINUTE });
    const before = await tickMinutes(first, 1, 30);
    await first.host.close();
    const second = await simHost(storage, T0 + 30 * MINUTE + 40_000, { every: EVERY_MINUTE });
    try {
      const after = await tickMinutes(second, 30, 60);
      expect([...before, ...after]).toEqual(range(1, 60));
      expect(await scheduleSessions(second.host)).toHaveLength(60);
    } finally {
      await second.host.close();
    }
  });

  it("a crash in the middle (storage cut off, no close) neither doubles nor drops a slot", async () => {
    const storage = createMemoryStorage();
    const cut = severable(storage);
    const first = await simHost(cut.driver, T0, { every: EVERY_MINUTE });
    const before = await tickMinutes(first, 1, 30);
    await eventually(async () => ((await scheduleSessions(first.host)).every((s) => s.status === "completed") ? true : undefined));
    cut.sever();
    const second = await simHost(storage, T0 + 30 * MINUTE + 45_000, { every: EVERY_MINUTE });
    try {
      const after = await tickMinutes(second, 31, 60);
      expect([...before, ...after]).toEqual(range(1, 60));
      expect(await scheduleSessions(second.host)).toHaveLength(60);
    } finally {
      await second.host.close();
    }
  });

  it("two hosts on one storage fire each slot once", async () => {
    const storage = createMemoryStorage();
    const [a, b] = await Promise.all([simHost(storage, T0, { every: EVERY_MINUTE }), simHost(storage, T0, { every: EVERY_MINUTE })]);
    try {
      const fired: number[] = [];
      for (let minute = 1; minute <= 60; minute++) {
        a.clock.now = b.clock.now = T0 + minute * MINUTE + 1_000;
        const reports = await Promise.all([a.host.tick(), b.host.tick()]);
        for (const report of reports) for (const f of report[0]!.schedules) fired.push((Date.parse(f.slot) - T0) / MINUTE);
      }
      expect(fired.sort((x, y) => x - y)).toEqual(range(1, 60));
      expect(await scheduleSessions(a.host)).toHaveLength(60);
    } finally {
      await Promise.all([a.host.close(), b.host.close()]);
    }
  });

  it("slots missed while the host was down are logged (and visible in the log buffer), not fired late", async () => {
    const storage = createMemoryStorage();
    const first = await simHost(storage, T0, { every: EVERY_MINUTE });
    expect(await tickMinutes(first, 1, 10)).toEqual(range(1, 10));
    await first.host.close();
    // Down from 10:30 to 25:40: slots 11..24 are more than a minute old at start, 25 is not.
    const logger = recordingLogger();
    const second = await simHost(storage, T0 + 25 * MINUTE + 40_000, { every: EVERY_MINUTE }, { logger });
    try {
      const report = await second.host.tick();
      expect(report[0]!.schedules.map((f) => (Date.parse(f.slot) - T0) / MINUTE)).toEqual([25]);
      expect(await tickMinutes(second, 26, 30)).toEqual(range(26, 30));
      const warning = logger.lines.find((line) => line.includes("missed"));
      expect(warning).toBe(
        "warn schedule every missed 14 slots (2026-03-02T09:11:00.000Z to 2026-03-02T09:24:00.000Z) while the host was not running; not fired late (set catchUp: true to fire once late)",
      );
      const buffered: LogLine[] = second.host.logs.lines();
      expect(buffered.some((line) => line.level === "warn" && line.message === warning!.slice("warn ".length))).toBe(true);
      expect(await scheduleSessions(second.host)).toHaveLength(10 + 6);
    } finally {
      await second.host.close();
    }
  });

  it("catchUp fires once, late, for the latest missed slot", async () => {
    const storage = createMemoryStorage();
    const daily: ScheduleDefinition = { cron: "0 9 * * *", markdown: "/reply daily", catchUp: true };
    const first = await simHost(storage, T0 - MINUTE, { daily });
    first.clock.now = T0 + 5_000;
    expect((await first.host.tick())[0]!.schedules.map((f) => f.slot)).toEqual(["2026-03-02T09:00:00.000Z"]);
    await first.host.close();
    // Down for three days: one late firing for the latest missed slot, then on time again.
    const logger = recordingLogger();
    const second = await simHost(storage, T0 + 3 * 86_400_000 + 2 * 3_600_000, { daily }, { logger });
    try {
      expect((await second.host.tick())[0]!.schedules.map((f) => f.slot)).toEqual(["2026-03-05T09:00:00.000Z"]);
      expect(logger.lines.some((line) => line.includes("missed 3 slots") && line.includes("fired once, late, for 2026-03-05T09:00:00.000Z"))).toBe(true);
      expect((await second.host.tick())[0]!.schedules).toEqual([]);
      second.clock.now = T0 + 4 * 86_400_000 + 1_000;
      expect((await second.host.tick())[0]!.schedules.map((f) => f.slot)).toEqual(["2026-03-06T09:00:00.000Z"]);
    } finally {
      await second.host.close();
    }
  });

  it("schedules: false turns the cron runner off outside dev", async () => {
    const storage = createMemoryStorage();
    const sim = await simHost(storage, T0, { every: EVERY_MINUTE }, { dev: false, schedules: false, controlPlane: false });
    try {
      expect(await tickMinutes(sim, 1, 5)).toEqual([]);
      expect(await storedScheduleSessions(storage)).toEqual([]);
    } finally {
      await sim.host.close();
    }
  });
});

describe("schedule firings", () => {
  it("a markdown firing starts a task session titled by the schedule that completes and refuses follow-ups with 409", async () => {
    const sim = await simHost(createMemoryStorage(), T0, { digest: { cron: "* * * * *", markdown: "/reply digest ready" } });
    try {
      sim.clock.now = T0 + MINUTE;
      const [report] = await sim.host.tick();
      const [firing] = report!.schedules;
      expect(firing).toMatchObject({ scheduleId: "digest", slot: "2026-03-02T09:01:00.000Z" });
      const sessionId = firing!.sessionIds[0]!;
      const text = await (await sim.host.request(`${base}/v1/session/${sessionId}/stream`)).text();
      const events = text.trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
      expect(events[0]).toMatchObject({ type: "session.started", data: { mode: "task", channel: "schedule", title: "digest" } });
      expect(events.find((e) => e.type === "message.completed")?.data.text).toBe("digest ready");
      expect(events.at(-1)!.type).toBe("session.completed");
      const [row] = await scheduleSessions(sim.host);
      expect(row).toMatchObject({ sessionId, mode: "task", title: "digest", status: "completed" });
      const owner = { authenticator: "schedule", principalId: "schedule:digest", principalType: "service" as const };
      const summary = (await (await sim.host.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; continuationToken: string }> };
      const token = summary.sessions.find((s) => s.sessionId === sessionId)!.continuationToken;
      await expect(sim.host.send("more", { channel: "schedule", continuationToken: token, auth: owner })).rejects.toMatchObject({
        status: 409,
        code: "session_not_followable",
      });
    } finally {
      await sim.host.close();
    }
  });

  it("a failing markdown firing ends its task session with session.failed", async () => {
    const sim = await simHost(createMemoryStorage(), T0, { broken: { cron: "* * * * *", markdown: "/fail upstream down" } });
    try {
      sim.clock.now = T0 + MINUTE;
      const sessionId = (await sim.host.tick())[0]!.schedules[0]!.sessionIds[0]!;
      const events = await eventually(async () => {
        const all = await allEvents(asTarget(sim.host), base, sessionId);
        return all.at(-1)?.type === "session.failed" ? all : undefined;
      });
      expect(events.at(-1)!.data).toEqual({ message: "upstream down" });
    } finally {
      await sim.host.close();
    }
  });

  it("a run handler gets receive, callTool, waitUntil, appAuth and host.reminders", async () => {
    const seen: { context?: ScheduleContext; tool?: unknown; reminder?: unknown; later?: boolean } = {};
    let release!: () => void;
    const background = new Promise<void>((resolve) => (release = resolve));
    const run: ScheduleDefinition = {
      cron: "*/5 * * * *",
      async run(context) {
        seen.context = context;
        const first = await context.receive("ops", { message: "/reply checked", continuationToken: "ops:queue" });
        await context.receive("ops", { message: "/reply again", continuationToken: "ops:queue" });
        seen.tool = await context.callTool("lookup", { q: "depth" });
        seen.reminder = await context.host.reminders.create({ purpose: "recheck", channelId: "ops", continuationToken: "ops:queue", delay: "10m" });
        context.waitUntil(background.then(() => (seen.later = true)));
        expect(first.created).toBe(true);
      },
    };
    const lookup = {
      description: "Look up a metric",
      inputSchema: { type: "object" },
      execute: (input: unknown, ctx: { session: unknown; host: Record<string, unknown> }) => ({ input, session: ctx.session, hasReminders: typeof ctx.host.reminders === "object" }),
    };
    const sim = await simHost(createMemoryStorage(), T0, { run }, { project: { tools: { lookup } } });
    try {
      sim.clock.now = T0 + 5 * MINUTE;
      const [report] = await sim.host.tick();
      const firing = report!.schedules[0]!;
      expect(firing.sessionIds).toHaveLength(1);
      expect(seen.context).toMatchObject({
        scheduleId: "run",
        slot: "2026-03-02T09:05:00.000Z",
        appAuth: { authenticator: "schedule", principalId: "schedule:run", principalType: "service" },
      });
      // A scratch session, as for a direct call, on the schedule channel and owned by the schedule.
      const session = { id: expect.stringMatching(/^scratch_/), channel: "schedule", mode: "task", auth: { authenticator: "schedule", principalId: "schedule:run", principalType: "service" } };
      expect(seen.tool).toEqual({ isError: false, result: { input: { q: "depth" }, session, hasReminders: true } });
      expect(seen.reminder).toMatchObject({ purpose: "recheck", channelId: "ops", continuationToken: "ops:queue", status: "armed", form: "prompt", nextFireAt: "2026-03-02T09:15:00.000Z" });
      const sessionId = firing.sessionIds[0]!;
      const events = await eventually(async () => {
        const all = await allEvents(asTarget(sim.host), base, sessionId);
        return all.at(-1)?.type === "session.waiting" && all.some((e) => e.type === "message.completed" && e.data.text === "again") ? all : undefined;
      });
      // Both hand-offs went into the one conversation the channel key names.
      expect(events[0]).toMatchObject({ type: "session.started", data: { mode: "chat", channel: "ops" } });
      expect(events.filter((e) => e.type === "message.received").map((e) => e.data.text)).toEqual(["/reply checked", "/reply again"]);
      // close() waits for waitUntil work.
      const closing = sim.host.close();
      release();
      await closing;
      expect(seen.later).toBe(true);
    } finally {
      await sim.host.close();
    }
  });

  it("a throwing run handler is logged; the slot still counts", async () => {
    const logger = recordingLogger();
    const sim = await simHost(createMemoryStorage(), T0, { boom: { cron: "* * * * *", run: () => Promise.reject(new Error("kaput")) } }, { logger });
    try {
      sim.clock.now = T0 + MINUTE;
      expect((await sim.host.tick())[0]!.schedules).toEqual([{ scheduleId: "boom", slot: "2026-03-02T09:01:00.000Z", sessionIds: [], error: "kaput" }]);
      expect((await sim.host.tick())[0]!.schedules).toEqual([]);
      expect(logger.lines).toContain("error schedule boom: run threw");
    } finally {
      await sim.host.close();
    }
  });
});

describe("the built-in clock", () => {
  afterEach(() => vi.useRealTimers());

  it("fires schedules on its own outside dev mode", async () => {
    vi.useFakeTimers({ now: T0 + 30_000 });
    const storage = createMemoryStorage();
    const host = createHost({ agents: [{ slug: "hello", project: project({ schedules: { every: EVERY_MINUTE } }), storage }], logger: quietLogger, drainTimeoutMs: 50 });
    try {
      await vi.advanceTimersByTimeAsync(3 * MINUTE);
      const sessions = await storedScheduleSessions(storage);
      expect(sessions.map((s) => s.createdAt)).toEqual(["2026-03-02T09:01:00.000Z", "2026-03-02T09:02:00.000Z", "2026-03-02T09:03:00.000Z"]);
    } finally {
      await host.close();
    }
  });

  it("never fires in dev mode", async () => {
    vi.useFakeTimers({ now: T0 + 30_000 });
    const storage = createMemoryStorage();
    const host = createHost({ agents: [{ slug: "hello", project: project({ schedules: { every: EVERY_MINUTE } }), storage }], logger: quietLogger, drainTimeoutMs: 50, dev: true });
    try {
      await host.ready();
      await vi.advanceTimersByTimeAsync(10 * MINUTE);
      expect(await storedScheduleSessions(storage)).toEqual([]);
    } finally {
      await host.close();
    }
  });
});

describe("dev and internal schedule routes", () => {
  it("POST /v1/dev/schedules/:id fires exactly once per call through the production path; 404 unknown", async () => {
    const sim = await simHost(createMemoryStorage(), T0, { digest: { cron: "0 9 * * 1", markdown: "/reply by hand" } });
    try {
      const response = await sim.host.request(`${base}/v1/dev/schedules/digest`, { method: "POST" });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { scheduleId: string; sessionIds: string[] };
      expect(body).toEqual({ scheduleId: "digest", sessionIds: [expect.stringMatching(/^ses_/)] });
      const second = (await (await sim.host.request(`${base}/v1/dev/schedules/digest`, { method: "POST" })).json()) as { sessionIds: string[] };
      expect(second.sessionIds[0]).not.toBe(body.sessionIds[0]);
      const sessions = await scheduleSessions(sim.host);
      expect(sessions.map((s) => s.sessionId).sort()).toEqual([body.sessionIds[0], second.sessionIds[0]].sort());
      const missing = await sim.host.request(`${base}/v1/dev/schedules/nope`, { method: "POST" });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ ok: false, error: "schedule_not_found" });
      // Dev routes run the agent's auth chain: a non-loopback caller is refused.
      const remote = await sim.host.request(`${base}/v1/dev/schedules/digest`, { method: "POST" }, { ip: "203.0.113.9" });
      expect(remote.status).toBe(401);
    } finally {
      await sim.host.close();
    }
  });

  it("the dev routes do not exist outside dev mode", async () => {
    const sim = await simHost(createMemoryStorage(), T0, { digest: EVERY_MINUTE }, { dev: false, controlPlane: false });
    try {
      for (const [method, path] of [["POST", "/v1/dev/schedules/digest"], ["GET", "/v1/dev/reminders"]] as const) {
        const response = await sim.host.request(`${base}${path}`, { method });
        expect(response.status).toBe(404);
        expect(await response.json()).toMatchObject({ error: "not_found" });
      }
    } finally {
      await sim.host.close();
    }
  });

  it("POST /v1/internal/schedules/:id/fire needs the marker header, 404s unknown ids, and fires a slot once", async () => {
    const schedules = { digest: { cron: "0 9 * * *", markdown: "/reply platform" } };
    const storage = createMemoryStorage();
    const sim = await simHost(storage, T0 + 2_000, schedules, { dev: false, controlPlane: false });
    const fire = (id: string, headers: Record<string, string> = { "x-agent-serve-timed-work": "1" }) =>
      sim.host.request(`${base}/v1/internal/schedules/${id}/fire`, { method: "POST", headers });
    try {
      const refused = await fire("digest", {});
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ ok: false, error: "forbidden" });
      expect(await storedScheduleSessions(storage)).toEqual([]);
      const unknown = await fire("nope");
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: "schedule_not_found" });

      const first = await fire("digest");
      expect(first.status).toBe(200);
      const body = (await first.json()) as { ok: boolean; scheduleId: string; sessionIds: string[] };
      expect(body).toEqual({ ok: true, scheduleId: "digest", sessionIds: [expect.stringMatching(/^ses_/)] });
      // A retried (duplicated) platform call for the same slot fires nothing.
      expect(await (await fire("digest")).json()).toEqual({ ok: true, scheduleId: "digest", sessionIds: [] });
      expect(await storedScheduleSessions(storage)).toHaveLength(1);
      // Nor does the host's own tick: the slot is handled.
      expect((await sim.host.tick())[0]!.schedules).toEqual([]);
      // The next day's slot fires again.
      sim.clock.now = T0 + 86_400_000 + 1_000;
      expect(((await (await fire("digest")).json()) as { sessionIds: string[] }).sessionIds).toHaveLength(1);
    } finally {
      await sim.host.close();
    }
  });

  it("the internal routes do not exist while the bundled clock runs", async () => {
    const sim = await simHost(createMemoryStorage(), T0, { digest: EVERY_MINUTE }, { dev: false });
    try {
      const response = await sim.host.request(`${base}/v1/internal/schedules/digest/fire`, { method: "POST", headers: { "x-agent-serve-timed-work": "1" } });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: "not_found" });
    } finally {
      await sim.host.close();
    }
  });

  it("a follow-up over HTTP to a schedule's task session is refused (the schedule owns it)", async () => {
    const sim = await simHost(createMemoryStorage(), T0, { digest: { cron: "* * * * *", markdown: "/reply ok" } });
    try {
      sim.clock.now = T0 + MINUTE;
      const sessionId = (await sim.host.tick())[0]!.schedules[0]!.sessionIds[0]!;
      const rows = (await (await sim.host.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; continuationToken: string }> };
      const token = rows.sessions.find((s) => s.sessionId === sessionId)!.continuationToken;
      const follow = await sim.host.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken: token, message: "more" }));
      expect(follow.status).toBe(403);
    } finally {
      await sim.host.close();
    }
  });
});

describe("schedules defined in code", () => {
  it("an invalid schedule fails createHost with the problem named", () => {
    expect(() =>
      createHost({ agents: [{ slug: "hello", project: project({ schedules: { bad: { cron: "61 * * * *", markdown: "x" } } }) }], logger: quietLogger, dev: true }),
    ).toThrow(/\[agent-serve\] \[schedules\] schedule bad: invalid cron "61 \* \* \* \*"/);
  });
});
