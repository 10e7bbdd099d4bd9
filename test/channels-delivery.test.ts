/**
 * Channel event delivery (docs/guide/channels.md "Events and delivery"): the `events` map for the sessions a channel owns,
 * in index order, with `channel.state` persisted; retries with backoff then log-and-skip;
 * `onStart` extras, `onStop` and `waitUntil` on drain; `callTool` and `receive` from handlers.
 */
import * as v from "valibot";
import { expect, test } from "vitest";
import { POST, defineChannel } from "../src/entries/channels.ts";
import type { ChannelStartContext } from "../src/base/definitions/channels.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/engine/tools/define.ts";
import type { AgentHost } from "../src/host/types.ts";
import { type HostUnderTest, describeHost, eventually, helloOptions, postJson, project } from "./_harness.ts";

interface Delivered {
  type: string;
  index: number;
  sessionId: string;
  token: string;
  replies: number;
}

const delivered: Delivered[] = [];
const replies: string[] = [];
let started: ChannelStartContext | undefined;
let stopped = 0;
let background = "";
/** Lets the `/later` route's background work go on: it waits for this, then takes a while more. */
let releaseBackground: () => void = () => {};
let flaky = 0;

const inbox = defineChannel({
  state: { replies: 0, source: "inbox" },
  routes: [
    POST("/messages", {
      bodySchema: v.object({ text: v.string(), thread: v.optional(v.string()) }),
      handler: async (_request, { body, send }) => {
        const session = await send(body.text, { ...(body.thread ? { continuationToken: body.thread } : {}), state: { source: "route" } });
        return { sessionId: session.sessionId, continuationToken: session.continuationToken };
      },
    }),
    POST("/later", {
      bodySchema: v.object({}),
      handler: (_request, { waitUntil }) => {
        const released = new Promise<void>((resolve) => (releaseBackground = resolve));
        waitUntil(released.then(() => new Promise((resolve) => setTimeout(resolve, 150))).then(() => (background = "done")));
      },
    }),
    POST("/context", {
      bodySchema: v.object({}),
      handler: (request, { host, sessionUrls, requestIp, channel, dev }) => ({
        hasReminders: typeof host.reminders?.create === "function",
        urls: sessionUrls(request, "ses_example"),
        loopbackPeer: /^(::ffff:)?127\.0\.0\.1$|^::1$/.test(requestIp ?? ""),
        channel,
        dev,
      }),
    }),
    POST("/tools", {
      bodySchema: v.object({ a: v.number(), b: v.number() }),
      handler: (_request, { body, callTool }) => callTool("add", body),
    }),
    POST("/handoff", {
      bodySchema: v.object({ text: v.string() }),
      handler: async (_request, { body, receive }) => {
        const session = await receive(outbox, { message: body.text });
        return { sessionId: session.sessionId, result: (await session.waitForCompletion()).result };
      },
    }),
  ],
  events: {
    "*"(event, channel) {
      delivered.push({ type: event.type, index: event.index, sessionId: channel.sessionId, token: channel.continuationToken, replies: channel.state.replies });
    },
    async "message.completed"(event, channel, ctx) {
      if (event.data.finishReason === "tool_call" || typeof event.data.text !== "string") return;
      if (event.data.text.includes("artifact")) {
        await ctx.artifacts.tag({ kind: "reply", key: channel.sessionId, title: "The reply", data: { text: event.data.text }, sessionId: channel.sessionId });
      }
      if (event.data.text.includes("flaky") && flaky++ < 2) throw new Error("chat platform unavailable");
      if (event.data.text.includes("broken")) throw new Error("always broken");
      replies.push(event.data.text);
      channel.state.replies += 1;
    },
  },
  onStart(context) {
    started = context;
  },
  onStop() {
    stopped++;
  },
});

const outbox = defineChannel({ routes: [] });

const add = defineTool({
  description: "Adds two numbers",
  inputSchema: v.object({ a: v.number(), b: v.number() }),
  execute: ({ a, b }) => a + b,
});
const deploy = defineTool({ description: "Deploys", needsApproval: true, execute: () => "deployed" });

function options() {
  delivered.length = 0;
  replies.length = 0;
  started = undefined;
  flaky = 0;
  return helloOptions({
    agents: [
      {
        slug: "hello",
        project: project({ channels: { inbox, outbox }, tools: { add, deploy } }),
        storage: createMemoryStorage(),
      },
    ],
    channels: { retryDelaysMs: [5, 10, 20] },
    // Loopback callers under dev read every session, including those owned by the channel's principal.
    dev: true,
  });
}

const base = "/hello/v1/channels/inbox";

async function post(target: HostUnderTest, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await target.fetch(`${base}${path}`, postJson(body));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function settled(target: HostUnderTest, sessionId: string, turns: number): Promise<void> {
  await eventually(async () => {
    const text = await (await target.fetch(`/hello/v1/session/${sessionId}/events`)).text();
    return (text.match(/"session\.waiting"/g) ?? []).length >= turns ? true : undefined;
  }, 5000, `${turns} turns of ${sessionId}`);
  await target.host.ready();
}

describeHost("channel event delivery", options, (get) => {
  test("events of the channel's own sessions arrive once each, in index order, with state persisted", async () => {
    const first = await post(get(), "/messages", { text: "hello", thread: "T1" });
    const sessionId = first.sessionId as string;
    await settled(get(), sessionId, 1);
    await post(get(), "/messages", { text: "second", thread: "T1" });
    await settled(get(), sessionId, 2);
    // An HTTP-channel session is not the channel's: none of its events arrive.
    await get().fetch("/hello/v1/session", postJson({ message: "not mine" }));
    await eventually(async () => (replies.length === 2 ? true : undefined), 5000, "two replies");
    const log = (await (await get().fetch(`/hello/v1/session/${sessionId}/events`)).text()).split("\n").filter(Boolean);
    await eventually(async () => (delivered.length === log.length ? true : undefined), 5000, "every event delivered");
    expect(delivered.map((d) => d.index)).toEqual(log.map((_, i) => i));
    expect(new Set(delivered.map((d) => d.sessionId))).toEqual(new Set([sessionId]));
    expect(delivered.every((d) => d.token === "T1")).toBe(true);
    expect(replies).toEqual(["echo: hello", "echo: second"]);
    const session = await started!.getSession(sessionId);
    expect(session?.state).toEqual({ replies: 2, source: "route" });
  });

  test("a throwing handler is retried with backoff; one that keeps throwing is logged and skipped", async () => {
    const flakySession = (await post(get(), "/messages", { text: "flaky" })).sessionId as string;
    await eventually(async () => (replies.includes("echo: flaky") ? true : undefined), 5000, "flaky reply after retries");
    expect(flaky).toBe(3);
    const broken = (await post(get(), "/messages", { text: "broken", thread: "B" })).sessionId as string;
    await settled(get(), broken, 1);
    const logs = await eventually(async () => {
      const body = (await (await get().fetch("/hello/v1/logs")).json()) as { lines: Array<{ level: string; message: string }> };
      return body.lines.some((line) => line.level === "error" && line.message.includes("skipped")) ? body.lines : undefined;
    }, 5000, "the skip logged");
    const skipped = logs.find((line) => line.level === "error")!;
    expect(skipped.message).toContain(`channel inbox events handler failed on message.completed`);
    expect(skipped.message).toContain(`of ${broken} after 4 attempts; skipped: always broken`);
    expect(logs.filter((line) => line.level === "warn" && line.message.includes(broken))).toHaveLength(3);
    // Delivery moved on: the next turn's reply on the same session still arrives.
    await post(get(), "/messages", { text: "after", thread: "B" });
    await eventually(async () => (replies.includes("echo: after") ? true : undefined), 5000, "the next reply");
    expect(flakySession).toMatch(/^ses_/);
  });

  test("onStart extras: continuation lookups, busy, interrupt, last reply time, emitted messages, approvals", async () => {
    await get().host.ready();
    await eventually(async () => started, 2000, "onStart");
    const ctx = started!;
    expect(await ctx.hasContinuationSession("T9")).toBe(false);
    const { sessionId } = await ctx.send("/sleep 3000", { continuationToken: "T9" });
    expect(await ctx.hasContinuationSession("T9")).toBe(true);
    expect(await ctx.isContinuationBusy("T9")).toBe(true);
    expect(await ctx.interruptContinuation("T9")).toBe(true);
    await settled(get(), sessionId, 1);
    expect(await ctx.isContinuationBusy("T9")).toBe(false);
    expect(await ctx.getContinuationLastBotMessageTs("T9")).toBeNull();
    await ctx.emitAssistantMessage(sessionId, "posted by the channel");
    const at = await ctx.getContinuationLastBotMessageTs("T9");
    expect(Number.isNaN(Date.parse(at ?? ""))).toBe(false);
    await eventually(async () => (replies.includes("posted by the channel") ? true : undefined), 5000, "emitted message delivered");

    const parked = await ctx.send('/tool deploy {}', { continuationToken: "T10" });
    const callId = await eventually(async () => {
      const events = (await (await get().fetch(`/hello/v1/session/${parked.sessionId}/events`)).text()).split("\n").filter(Boolean);
      const requested = events.map((line) => JSON.parse(line) as { type: string; data: { callId?: string } }).find((e) => e.type === "action.approval_requested");
      return requested?.data.callId;
    }, 5000, "the approval request");
    const record = await ctx.getSession(parked.sessionId);
    expect(record?.channel).toBe("inbox");
    await ctx.resolveApproval(parked.sessionId, callId, "approve", { authenticator: "channel", principalId: "channel:inbox", principalType: "service" });
    expect(await parked.waitForCompletion({ timeoutMs: 5000 })).toMatchObject({ status: "finished" });
    await expect(ctx.resolveApproval(parked.sessionId, callId, "deny", { authenticator: "channel", principalId: "channel:inbox", principalType: "service" })).rejects.toThrow(/already resolved/);
  });

  test("handler context: host services, session links on the request's origin, the peer, the channel; unbound artifacts", async () => {
    const context = await post(get(), "/context", {});
    expect(context).toMatchObject({ hasReminders: true, loopbackPeer: true, channel: { id: "inbox" }, dev: true });
    const urls = context.urls as Record<string, string>;
    expect(urls.playgroundUrl).toMatch(/^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/hello\/playground\?sessionId=ses_example$/);
    expect(urls.traceUrl).toMatch(/\/hello\/v1\/session\/ses_example\/events$/);
    const { sessionId } = await post(get(), "/messages", { text: "an artifact please" });
    const artifacts = await eventually(async () => {
      const listed = (await (await get().fetch("/hello/v1/artifacts?kind=reply")).json()) as { artifacts: Array<Record<string, unknown>> };
      return listed.artifacts.length > 0 ? listed.artifacts : undefined;
    }, 5000, "the tagged artifact");
    expect(artifacts[0]).toMatchObject({ kind: "reply", key: sessionId, title: "The reply", data: { text: "echo: an artifact please" }, source: "host" });
  });

  test("callTool runs a server tool directly; receive hands a message into another channel", async () => {
    expect(await post(get(), "/tools", { a: 2, b: 3 })).toEqual({ isError: false, result: 5 });
    const bad = await get().fetch(`${base}/tools`, postJson({ a: "2", b: 3 }));
    expect(bad.status).toBe(400);
    const handed = await post(get(), "/handoff", { text: "to the outbox" });
    expect(handed.result).toBe("echo: to the outbox");
    const sessions = (await (await get().fetch("/hello/v1/sessions")).json()) as { sessions: Array<{ sessionId: string; channel: string }> };
    expect(sessions.sessions.find((s) => s.sessionId === handed.sessionId)?.channel).toBe("outbox");
  });
});

test("drain awaits waitUntil work and runs onStop", async () => {
  const host: AgentHost = createHost({ ...options(), drainTimeoutMs: 2000 });
  stopped = 0;
  background = "";
  const response = await host.request(`${base}/later`, postJson({}));
  expect(response.status).toBe(202);
  expect(background).toBe("");
  // The work is let go once the drain has begun: close must still wait for it.
  const closing = host.close();
  releaseBackground();
  await closing;
  expect(background).toBe("done");
  expect(stopped).toBe(1);
});

test("a drain does not wait forever on a hung handler; the next start delivers that event again", async () => {
  const storage = createMemoryStorage();
  const attempts: Array<{ index: number; host: number }> = [];
  let hostNumber = 1;
  const hanging = defineChannel({
    events: {
      "message.completed"(event) {
        attempts.push({ index: event.index, host: hostNumber });
        // The first host's delivery never finishes.
        return hostNumber === 1 ? new Promise(() => {}) : undefined;
      },
    },
  });
  const make = () =>
    createHost(helloOptions({ agents: [{ slug: "hello", project: project({ channels: { hanging } }), storage }], drainTimeoutMs: 200 }));
  const first = make();
  await first.ready();
  await first.send("hello", { channel: "hanging", continuationToken: "k" });
  await eventually(async () => (attempts.length === 1 ? true : undefined), 5000, "the first attempt");
  const started = Date.now();
  await first.close();
  expect(Date.now() - started).toBeLessThan(5000);

  hostNumber = 2;
  const second = make();
  await second.ready();
  await eventually(async () => (attempts.length === 2 ? true : undefined), 5000, "redelivery on the next start");
  expect(attempts[1]).toEqual({ index: attempts[0]!.index, host: 2 });
  await second.close();
});
