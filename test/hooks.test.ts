/**
 * Hooks (`defineHook({events})`), with sessions driven in-process and over a real loopback
 * server: they run after each event is recorded, see every session, get the session view, channel
 * and a bound artifacts facade, run in event order per hook, and a throwing hook is logged and
 * skipped without touching the turn.
 */
import { beforeEach, expect, it } from "vitest";
import { bearerAuth } from "../src/entries/channels.ts";
import type { HookDefinition } from "../src/entries/hooks.ts";
import { defineHook } from "../src/entries/hooks.ts";
import type { AuthContext } from "../src/base/auth.ts";
import { eventLogName } from "../src/base/storage/keys.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHostOptions } from "../src/host/types.ts";
import type { HostLogger } from "../src/base/logging.ts";
import { type HostUnderTest, type TestEvent, describeHost, eventually, helloOptions, postJson, project } from "./_harness.ts";

const base = "/hello";

const principals: Record<string, AuthContext> = {
  alice: { authenticator: "test", principalId: "alice", principalType: "user" },
  bob: { authenticator: "test", principalId: "bob", principalType: "user" },
};
const auth = (who: string): Record<string, string> => ({ authorization: `Bearer ${who}` });

interface Seen {
  hook: string;
  type: string;
  index: number;
  sessionId: string;
  turnId: string | undefined;
  /** The event was in the stored log when the handler ran. */
  durable: boolean;
  frozen: boolean;
  session: { id: string; channel: string; mode: string; principalId: string };
  channel: string;
}

let seen: Seen[] = [];
let logLines: Array<{ level: string; message: string; cause: unknown }> = [];
/** The storage of the host under test, to check that events are durable when hooks see them. */
let storage: StorageDriver = createMemoryStorage();
/** Holds the `slow` hook on its first event until released. */
let gate = deferred();

beforeEach(() => {
  seen = [];
  logLines = [];
  gate = deferred();
});

const recordingLogger: HostLogger = {
  info: (message) => logLines.push({ level: "info", message, cause: undefined }),
  warn: (message) => logLines.push({ level: "warn", message, cause: undefined }),
  error: (message, cause) => logLines.push({ level: "error", message, cause }),
};

const recorder =
  (hook: string) =>
  async (event: Readonly<TestEvent>, ctx: Parameters<NonNullable<HookDefinition["events"]["*"]>>[1]): Promise<void> => {
    const length = await storage.length(eventLogName(event.sessionId));
    seen.push({
      hook,
      type: event.type,
      index: event.index,
      sessionId: event.sessionId,
      turnId: event.turnId,
      durable: length > event.index,
      frozen: Object.isFrozen(event) && Object.isFrozen(event.data) && Object.isFrozen(ctx.session),
      session: { id: ctx.session.id, channel: ctx.session.channel, mode: ctx.session.mode, principalId: ctx.session.auth.principalId },
      channel: ctx.channel.id,
    });
  };

const hooks: Record<string, HookDefinition> = {
  audit: defineHook({ events: { "turn.completed": recorder("audit:completed"), "*": recorder("audit:*") } }),
};

const archivist = defineHook({
  events: {
    async "message.completed"(event, ctx) {
      if (event.data["finishReason"] !== "stop") return;
      await ctx.artifacts.tag({ kind: "transcript", key: event.turnId ?? "none", title: "Reply", data: { text: event.data["text"] } });
    },
  },
});

function options(extra: Record<string, HookDefinition> = {}, overrides: Partial<AgentHostOptions> = {}): AgentHostOptions {
  storage = createMemoryStorage();
  return helloOptions({
    agents: [{ slug: "hello", project: project({ hooks: { ...hooks, ...extra } }), storage }],
    auth: { policies: [bearerAuth((token) => principals[token] ?? null)] },
    logger: recordingLogger,
    ...overrides,
  });
}

function helpers(target: () => HostUnderTest) {
  const h = {
    async start(message: string, who = "alice"): Promise<string> {
      const response = await target().fetch(`${base}/v1/session`, postJson({ message }, auth(who)));
      expect(response.status).toBe(200);
      return ((await response.json()) as { sessionId: string }).sessionId;
    },
    async events(sessionId: string, who = "alice"): Promise<TestEvent[]> {
      const response = await target().fetch(`${base}/v1/session/${sessionId}/events`, { headers: auth(who) });
      expect(response.status).toBe(200);
      return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
    },
    settled: (sessionId: string, who = "alice"): Promise<TestEvent[]> =>
      eventually(async () => {
        const all = await h.events(sessionId, who);
        return all.some((e) => e.type === "session.waiting") ? all : undefined;
      }, 5000, `session.waiting on ${sessionId}`),
    /** Waits until `hook` has seen `count` events of the session. */
    seenBy: (hook: string, sessionId: string, count: number): Promise<Seen[]> =>
      eventually(async () => {
        const mine = seen.filter((s) => s.hook === hook && s.sessionId === sessionId);
        return mine.length >= count ? mine : undefined;
      }, 5000, `${hook} to see ${count} events of ${sessionId}`),
  };
  return h;
}

describeHost("hooks", () => options(), (target) => {
  const h = helpers(target);

  it("run after each event is recorded, for the sessions of every principal, with the session view and channel", async () => {
    const alice = await h.start("hi", "alice");
    const bob = await h.start("/reply yo", "bob");
    const aliceEvents = await h.settled(alice, "alice");
    const bobEvents = await h.settled(bob, "bob");

    for (const [sessionId, events, principalId] of [
      [alice, aliceEvents, "alice"],
      [bob, bobEvents, "bob"],
    ] as const) {
      // `*` sees every event, turn.completed included (after the hook's own turn.completed handler).
      const wildcard = events;
      const all = await h.seenBy("audit:*", sessionId, wildcard.length);
      expect(all.map((s) => [s.type, s.index])).toEqual(wildcard.map((e) => [e.type, e.index]));
      const completed = await h.seenBy("audit:completed", sessionId, 1);
      const turnCompleted = events.find((e) => e.type === "turn.completed")!;
      expect(completed.map((s) => [s.type, s.index, s.turnId])).toEqual([["turn.completed", turnCompleted.index, turnCompleted.turnId]]);
      for (const s of [...all, ...completed]) {
        expect(s.durable, `${s.type} durable`).toBe(true);
        expect(s.frozen, `${s.type} frozen`).toBe(true);
        expect(s.session).toEqual({ id: sessionId, channel: "http", mode: "chat", principalId });
        expect(s.channel).toBe("http");
      }
    }
  });

  it("see sessions of other channels, with that channel in the context", async () => {
    const sent = await target().host.send("from a channel", { channel: "chat", continuationToken: "t-1" });
    const all = await eventually(async () => {
      const mine = seen.filter((s) => s.hook === "audit:*" && s.sessionId === sent.sessionId);
      return mine.some((s) => s.type === "session.waiting") ? mine : undefined;
    }, 5000, "the channel session's events");
    expect(all[0]).toMatchObject({ type: "session.started", channel: "chat", session: { channel: "chat", principalId: "channel:chat" } });
    expect(all.every((s) => s.durable && s.channel === "chat")).toBe(true);
  });
});

describeHost("hooks with a facade", () => options({ archivist }), (target) => {
  const h = helpers(target);

  it("tag artifacts through a facade bound to the event's session and turn", async () => {
    const sessionId = await h.start("/reply archived");
    const events = await eventually(async () => {
      const all = await h.events(sessionId);
      return all.some((e) => e.type === "artifact.tagged") ? all : undefined;
    }, 5000, "artifact.tagged");
    const turnId = events.find((e) => e.type === "turn.started")!.turnId;
    const tagged = events.find((e) => e.type === "artifact.tagged")!;
    expect(tagged.turnId).toBe(turnId);
    expect(tagged.data["artifact"]).toMatchObject({ kind: "transcript", key: turnId, title: "Reply", data: { text: "archived" }, source: "host" });
    // The hook ran after the reply was recorded, outside the turn: its event follows the completion.
    expect(tagged.index).toBeGreaterThan(events.find((e) => e.type === "message.completed")!.index);
    const list = await target().fetch(`${base}/v1/artifacts?sessionId=${sessionId}`, { headers: auth("alice") });
    expect(((await list.json()) as { artifacts: Array<{ key: string }> }).artifacts.map((a) => a.key)).toEqual([turnId]);
  });
});

describeHost(
  "a throwing hook",
  () =>
    options({
      broken: defineHook({
        events: {
          "turn.started": () => {
            throw new Error("sync failure");
          },
          "message.completed": async () => {
            await Promise.resolve();
            throw new Error("async failure");
          },
          "session.waiting": recorder("broken:waiting"),
        },
      }),
    }),
  (target) => {
    const h = helpers(target);

    it("is logged and skipped; other hooks and the hook's later handlers keep running; the turn is unaffected", async () => {
      const sessionId = await h.start("hi");
      const events = await h.settled(sessionId);
      expect(events.find((e) => e.type === "message.completed")!.data["text"]).toBe("echo: hi");
      expect(events.map((e) => e.type).slice(-2)).toEqual(["turn.completed", "session.waiting"]);
      expect(events.some((e) => e.type === "turn.failed")).toBe(false);

      // The failing hook's own later handler still ran.
      await h.seenBy("broken:waiting", sessionId, 1);
      // The other hook saw everything.
      await h.seenBy("audit:*", sessionId, events.length - 1);
      const errors = logLines.filter((line) => line.level === "error");
      expect(errors.map((line) => line.message)).toEqual([
        `hook broken failed on turn.started of ${sessionId}; skipped`,
        `hook broken failed on message.completed of ${sessionId}; skipped`,
      ]);
      expect(errors.map((line) => (line.cause as Error).message)).toEqual(["sync failure", "async failure"]);
      expect(target().host.logs.lines().filter((line) => line.level === "error").map((line) => line.message)).toEqual([
        `hook broken failed on turn.started of ${sessionId}; skipped: sync failure`,
        `hook broken failed on message.completed of ${sessionId}; skipped: async failure`,
      ]);

      // The server keeps serving and the session keeps working.
      const second = await h.start("again");
      expect((await h.settled(second)).find((e) => e.type === "message.completed")!.data["text"]).toBe("echo: again");
    });
  },
);

describeHost(
  "a slow hook",
  () =>
    options({
      slow: defineHook({
        events: {
          async "*"(event, ctx) {
            if (event.type === "session.started") await gate.released;
            await recorder("slow")(event, ctx);
          },
        },
      }),
    }),
  (target) => {
    const h = helpers(target);

    it("sees its events in order and never delays the turn or other hooks", async () => {
      const sessionId = await h.start("/tool nothing {}\n/reply fine");
      // The turn finishes while the slow hook is still stuck on the first event.
      const events = await h.settled(sessionId);
      expect(events.find((e) => e.type === "message.completed" && e.data["finishReason"] === "stop")!.data["text"]).toBe("fine");
      expect(seen.filter((s) => s.hook === "slow")).toEqual([]);
      // Another hook is not held up by it.
      await h.seenBy("audit:*", sessionId, events.length - 1);

      gate.release();
      const slow = await h.seenBy("slow", sessionId, events.length);
      expect(slow.map((s) => [s.type, s.index])).toEqual(events.map((e) => [e.type, e.index]));
    });
  },
);

function deferred(): { released: Promise<void>; release(): void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { released, release };
}
