/**
 * The model-facing reminder tools (`builtinTools.reminders: true`), driven by scripted `/tool`
 * lines: bound to the calling conversation, refused in task sessions, shadowed by authored tools.
 */
import { describe, expect, it } from "vitest";
import { createHost } from "../src/host/host.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import type { ToolContext } from "../src/base/definitions/tools.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost } from "../src/host/types.ts";
import type { HostLogger } from "../src/base/logging.ts";
import { type TestEvent, allEvents, eventually, postJson, project, quietLogger, type HostUnderTest } from "./_harness.ts";

const base = "/hello";
const MINUTE = 60_000;
const T0 = Date.parse("2026-03-02T09:00:00.000Z");

interface Chat {
  sessionId: string;
  continuationToken: string;
}

function start(overrides: Partial<ProjectDefinition> = {}, logger: HostLogger = quietLogger): { host: AgentHost; clock: { now: number } } {
  const clock = { now: T0 };
  const host = createHost({
    agents: [{ slug: "hello", project: project({ agent: { builtinTools: { reminders: true } }, ...overrides }), storage: createMemoryStorage() }],
    logger,
    drainTimeoutMs: 50,
    dev: true,
    now: () => clock.now,
  });
  return { host, clock };
}

const asTarget = (host: AgentHost): HostUnderTest => ({ kind: "in-process", host, fetch: (path, init) => host.request(path, init) });
const waitings = (events: TestEvent[]): number => events.filter((e) => e.type === "session.waiting").length;

function settled(host: AgentHost, sessionId: string, count: number): Promise<TestEvent[]> {
  return eventually(async () => {
    const events = await allEvents(asTarget(host), base, sessionId);
    return waitings(events) >= count ? events : undefined;
  });
}

async function open(host: AgentHost, message: string): Promise<Chat & { events: TestEvent[] }> {
  const chat = (await (await host.request(`${base}/v1/session`, postJson({ message }))).json()) as Chat;
  return { ...chat, events: await settled(host, chat.sessionId, 1) };
}

/** A follow-up with the current token; resolves with the events once the turn settled. */
async function say(host: AgentHost, chat: Chat, message: string): Promise<TestEvent[]> {
  const before = waitings(await allEvents(asTarget(host), base, chat.sessionId));
  const response = await host.request(`${base}/v1/session/${chat.sessionId}`, postJson({ continuationToken: chat.continuationToken, message }));
  expect(response.status).toBe(200);
  chat.continuationToken = ((await response.json()) as Chat).continuationToken;
  return settled(host, chat.sessionId, before + 1);
}

const results = (events: TestEvent[], tool: string): Array<{ output: unknown; isError: boolean }> =>
  events.filter((e) => e.type === "action.result" && e.data.toolName === tool).map((e) => ({ output: e.data.output, isError: e.data.isError as boolean }));

describe("reminders_create, reminders_list, reminders_cancel", () => {
  it("arm, list, fire into this conversation, cancel", async () => {
    const { host, clock } = start();
    try {
      const input = { purpose: "check build", every: "5m", prompt: "/reply build checked", until: "the build is green" };
      const chat = await open(host, `/tool reminders_create ${JSON.stringify(input)}`);
      const [created] = results(chat.events, "reminders_create");
      expect(created).toEqual({
        isError: false,
        output: expect.objectContaining({
          id: expect.stringMatching(/^rem_/),
          purpose: "check build",
          channelId: "http",
          sessionId: chat.sessionId,
          form: "prompt",
          every: "5m",
          until: "the build is green",
          nextFireAt: "2026-03-02T09:05:00.000Z",
          status: "armed",
        }),
      });
      const id = (created!.output as { id: string }).id;

      const listed = results(await say(host, chat, "/tool reminders_list {}"), "reminders_list");
      expect(listed).toEqual([{ isError: false, output: { reminders: [expect.objectContaining({ id, status: "armed" })] } }]);

      clock.now = T0 + 5 * MINUTE;
      expect((await host.tick())[0]!.reminders).toEqual([id]);
      const fired = await settled(host, chat.sessionId, 3);
      const texts = fired.filter((e) => e.type === "message.received").map((e) => e.data.text);
      expect(texts.at(-1)).toBe(
        `/reply build checked\n\n(Standing instruction for reminder ${id} "check build": once this holds, stop the reminder by calling reminders_cancel with {"id": "${id}"} instead of acting on it: the build is green)`,
      );
      expect(fired.filter((e) => e.type === "message.completed").at(-1)!.data.text).toBe("build checked");

      const cancelled = results(await say(host, chat, `/tool reminders_cancel {"id": "${id}"}`), "reminders_cancel");
      expect(cancelled).toEqual([{ isError: false, output: { id, status: "stopped" } }]);
      clock.now = T0 + 10 * MINUTE;
      expect((await host.tick())[0]!.reminders).toEqual([]);
      expect(results(await say(host, chat, "/tool reminders_list {}"), "reminders_list").at(-1)).toEqual({ isError: false, output: { reminders: [] } });
    } finally {
      await host.close();
    }
  });

  it("is bound to the calling conversation: another one can neither see nor cancel its reminders", async () => {
    const { host } = start();
    try {
      const a = await open(host, '/tool reminders_create {"purpose":"mine","delay":"1h"}');
      const id = (results(a.events, "reminders_create")[0]!.output as { id: string }).id;
      const b = await open(host, "/tool reminders_list {}");
      expect(results(b.events, "reminders_list")).toEqual([{ isError: false, output: { reminders: [] } }]);
      const refused = results(await say(host, b, `/tool reminders_cancel {"id":"${id}"}`), "reminders_cancel");
      expect(refused).toEqual([{ isError: true, output: `no reminder ${id} in this conversation` }]);
      // The model cannot aim a reminder at another conversation: channel and key come from the turn.
      const aimed = await say(host, b, '/tool reminders_create {"purpose":"x","delay":"1h","channelId":"ops","continuationToken":"ops:1"}');
      expect(results(aimed, "reminders_create")[0]).toMatchObject({ isError: false, output: { channelId: "http", sessionId: b.sessionId } });
    } finally {
      await host.close();
    }
  });

  it("refuses bad input and too-frequent cadences with error results the model can read", async () => {
    const { host } = start();
    try {
      const chat = await open(host, '/tool reminders_create {"purpose":"spam","every":"30s"}\n/tool reminders_create {"purpose":"none"}\n/tool reminders_cancel {}');
      expect(results(chat.events, "reminders_create")).toEqual([
        { isError: true, output: "every must be between 1m and 366d" },
        { isError: true, output: "give one cadence: delay (one-shot, e.g. 20m), every (recurring, e.g. 2h) or cron (5-field, UTC)" },
      ]);
      expect(results(chat.events, "reminders_cancel")).toEqual([{ isError: true, output: "id must be a reminder id string" }]);
    } finally {
      await host.close();
    }
  });

  it("caps the armed reminders of one conversation", async () => {
    const { host } = start();
    try {
      // Two turns, since one turn takes at most 50 steps.
      const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `/tool reminders_create {"purpose":"r${from + i}","delay":"1h"}`).join("\n");
      const chat = await open(host, lines(0, 40));
      await say(host, chat, lines(40, 51));
      const outcomes = results(await allEvents(asTarget(host), base, chat.sessionId), "reminders_create");
      expect(outcomes).toHaveLength(51);
      expect(outcomes.slice(0, 50).every((o) => !o.isError)).toBe(true);
      expect(outcomes[50]).toEqual({ isError: true, output: "this conversation already has 50 armed reminders (at most 50); cancel one first" });
    } finally {
      await host.close();
    }
  });

  it("a task session has no continuation and cannot arm reminders", async () => {
    const { host } = start({ schedules: { arm: { cron: "* * * * *", markdown: '/tool reminders_create {"purpose":"x","delay":"5m"}' } } });
    try {
      const [firing] = (await (await host.request(`${base}/v1/dev/schedules/arm`, { method: "POST" })).json() as { sessionIds: string[] }).sessionIds;
      const events = await eventually(async () => {
        const all = await allEvents(asTarget(host), base, firing!);
        return all.at(-1)?.type === "session.completed" ? all : undefined;
      });
      expect(results(events, "reminders_create")).toEqual([
        { isError: true, output: "reminders need a conversation that can be followed up; this task session has no continuation and cannot arm them" },
      ]);
    } finally {
      await host.close();
    }
  });

  it("exist only with builtinTools.reminders", async () => {
    const { host } = start({ agent: {} });
    try {
      const chat = await open(host, '/tool reminders_create {"purpose":"x","delay":"5m"}');
      expect(results(chat.events, "reminders_create")).toEqual([{ isError: true, output: "unknown tool: reminders_create" }]);
    } finally {
      await host.close();
    }
  });

  it("an authored tool inside a turn arms a reminder for its conversation through ctx.host.reminders", async () => {
    const armHere = {
      description: "Arms a follow-up for this conversation",
      async execute(_input: unknown, ctx: ToolContext) {
        const session = await ctx.getSession(ctx.session!.channel, ctx.session!.id);
        const record = await ctx.host.reminders!.create({ purpose: "follow up", channelId: ctx.session!.channel, continuationToken: session!.continuationToken, delay: "2m", prompt: "/reply following up" });
        return { id: record.id, sessionId: record.sessionId ?? null };
      },
    };
    const { host, clock } = start({ agent: {}, tools: { arm_here: armHere } });
    try {
      const chat = await open(host, "/tool arm_here {}");
      const [armed] = results(chat.events, "arm_here");
      expect(armed).toEqual({ isError: false, output: { id: expect.stringMatching(/^rem_/), sessionId: chat.sessionId } });
      clock.now = T0 + 2 * MINUTE;
      expect((await host.tick())[0]!.reminders).toEqual([(armed!.output as { id: string }).id]);
      const events = await settled(host, chat.sessionId, 2);
      expect(events.filter((e) => e.type === "message.completed").at(-1)!.data.text).toBe("following up");
    } finally {
      await host.close();
    }
  });

  it("an authored tool of the same name wins, with a warning", async () => {
    const lines: string[] = [];
    const logger: HostLogger = { info() {}, warn: (m) => lines.push(m), error() {} };
    const { host } = start({ tools: { reminders_list: { description: "mine", execute: () => ({ authored: true }) } } }, logger);
    try {
      expect(lines).toContain("tool reminders_list replaces the built-in reminders_list of builtinTools.reminders; the authored tool wins");
      const chat = await open(host, "/tool reminders_list {}");
      expect(results(chat.events, "reminders_list")).toEqual([{ isError: false, output: { authored: true } }]);
    } finally {
      await host.close();
    }
  });
});
