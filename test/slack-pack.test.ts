/**
 * The Slack pack on Events API envelopes as Slack documents them, signed as Slack signs (v0 HMAC
 * computed here with node:crypto, independently of the pack), posted to a real loopback server;
 * a local HTTP server stands in for the Web API and records every call.
 */
import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { slackChannel, type SlackChannelOptions } from "../src/entries/channels/slack.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, project, quietLogger } from "./_harness.ts";
import { type RecordedCall, type StubApi, startStubApi } from "./_stub-api.ts";

const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const BOT_TOKEN = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy";
const BOT_USER = "U0LAN0Z89";

let api: StubApi;
let ts = 1_700_000_000;
/** Methods that fail, by name (e.g. an app without the assistant feature). */
const failing = new Set<string>();
beforeAll(async () => {
  api = await startStubApi((call) => {
    const method = call.path.replace(/^\/api\//, "");
    if (failing.has(method)) return { body: { ok: false, error: "not_allowed_token_type" } };
    const body = call.body as Record<string, string>;
    if (method === "chat.postMessage") return { body: { ok: true, channel: body.channel, ts: `${++ts}.000100`, message: { text: body.text } } };
    return { body: { ok: true } };
  });
});
afterAll(() => api.close());

const callsTo = (method: string): RecordedCall[] => api.calls.filter((call) => call.path === `/api/${method}`);
const bodyOf = (call: RecordedCall | undefined) => call?.body as Record<string, string>;

interface Running {
  host: AgentHost;
  server: NodeServer;
  post(body: unknown, options?: { raw?: string; timestamp?: number; signature?: string | null; headers?: Record<string, string> }): Promise<Response>;
  sessions(): Promise<Array<{ sessionId: string; continuationToken: string; turnCount: number; status: string }>>;
}
const running: Running[] = [];
afterEach(async () => {
  for (const target of running.splice(0)) {
    await target.host.close();
    await target.server.close(true);
  }
  api.calls.length = 0;
  failing.clear();
});

function slackSign(body: string, timestamp: number): string {
  return `v0=${createHmac("sha256", SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

async function start(options: Partial<SlackChannelOptions> = {}, host: { dev?: boolean } = {}): Promise<Running> {
  const channel = slackChannel({ signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN, apiUrl: `${api.url}/api`, watchChannels: ["C0WATCHED"], ...options });
  const agentHost = createHost({
    agents: [{ slug: "triage", project: project({ channels: { slack: channel } }), storage: createMemoryStorage() }],
    logger: quietLogger,
    drainTimeoutMs: 200,
    dev: host.dev ?? false,
    auth: { allowAnonymous: true },
  });
  const server = await serveNode(agentHost, { port: 0, silent: true });
  const target: Running = {
    host: agentHost,
    server,
    async post(body, { raw, timestamp = Math.floor(Date.now() / 1000), signature, headers = {} } = {}) {
      const text = raw ?? JSON.stringify(body);
      const signed = signature === undefined ? slackSign(text, timestamp) : signature;
      return fetch(`${server.url}/triage/v1/channels/slack/events`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-slack-request-timestamp": String(timestamp),
          ...(signed === null ? {} : { "x-slack-signature": signed }),
          ...headers,
        },
        body: text,
      });
    },
    async sessions() {
      const response = await fetch(`${server.url}/triage/v1/sessions`);
      return ((await response.json()) as { sessions: Array<{ sessionId: string; continuationToken: string; turnCount: number; status: string }> }).sessions;
    },
  };
  running.push(target);
  return target;
}

/** An `event_callback` envelope as the Events API sends it. */
let eventCounter = 0;
function envelope(event: Record<string, unknown>, eventId = `Ev0${String(++eventCounter).padStart(8, "0")}`) {
  return {
    token: "XXYYZZ",
    team_id: "T123ABC456",
    api_app_id: "A123ABC456",
    event: { event_ts: event.ts, ...event },
    type: "event_callback",
    event_id: eventId,
    event_time: 1515449522,
    authorizations: [{ enterprise_id: null, team_id: "T123ABC456", user_id: BOT_USER, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
    event_context: "4-eyJldCI6ImFwcF9tZW50aW9uIiwidGlkIjoiVDEyMyJ9",
  };
}

const mention = (text: string, extra: Record<string, unknown> = {}) =>
  envelope({ type: "app_mention", user: "U123ABC456", text: `<@${BOT_USER}> ${text}`, ts: "1515449522.000016", channel: "C123ABC456", team: "T123ABC456", ...extra });

describe("slack pack: waking and replying", () => {
  test("url_verification answers the challenge", async () => {
    const slack = await start();
    const response = await slack.post({ token: "Jhj5dZrVaK7ZwHHjRyZWjbDl", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", type: "url_verification" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
  });

  test("an app_mention starts a thread conversation; the reply goes into the thread, with a reaction while the turn runs", async () => {
    const slack = await start();
    const response = await slack.post(mention("What is the hour of the pearl?"));
    expect(response.status).toBe(200);
    const accepted = (await response.json()) as { ok: boolean; sessionId: string; continuationToken: string };
    expect(accepted).toMatchObject({ ok: true, continuationToken: "C123ABC456:1515449522.000016" });

    const reply = await eventually(async () => callsTo("chat.postMessage")[0], 5000, "reply");
    expect(reply.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(bodyOf(reply)).toMatchObject({ channel: "C123ABC456", thread_ts: "1515449522.000016", text: "echo: What is the hour of the pearl?" });
    await eventually(async () => callsTo("reactions.remove")[0], 5000, "reaction removed");
    const added = callsTo("reactions.add")[0];
    expect(bodyOf(added)).toMatchObject({ channel: "C123ABC456", timestamp: "1515449522.000016", name: "eyes" });
    expect(bodyOf(callsTo("reactions.remove")[0])).toMatchObject({ channel: "C123ABC456", timestamp: "1515449522.000016", name: "eyes" });
    const order = api.calls.map((call) => call.path.replace("/api/", ""));
    expect(order.indexOf("reactions.add")).toBeLessThan(order.indexOf("chat.postMessage"));
  });

  test("a reply in the thread continues the session without a mention; a thread the agent is not in is ignored", async () => {
    const slack = await start();
    await slack.post(mention("first question"));
    await eventually(async () => callsTo("chat.postMessage")[0], 5000, "first reply");
    const followUp = await slack.post(
      envelope({ type: "message", channel: "C123ABC456", channel_type: "channel", user: "U999", text: "and a follow-up", ts: "1515449600.000200", thread_ts: "1515449522.000016", parent_user_id: "U123ABC456" }),
    );
    expect(await followUp.json()).toMatchObject({ ok: true, continuationToken: "C123ABC456:1515449522.000016" });
    await eventually(async () => (callsTo("chat.postMessage").length >= 2 ? true : undefined), 5000, "second reply");
    expect(bodyOf(callsTo("chat.postMessage")[1])).toMatchObject({ thread_ts: "1515449522.000016", text: "echo: and a follow-up" });
    // The reaction marks the message that woke the agent this time.
    await eventually(async () => (callsTo("reactions.add").length >= 2 ? true : undefined), 5000, "second reaction");
    expect(bodyOf(callsTo("reactions.add")[1])).toMatchObject({ timestamp: "1515449600.000200" });

    const stranger = await slack.post(
      envelope({ type: "message", channel: "C123ABC456", channel_type: "channel", user: "U999", text: "unrelated", ts: "1515449700.000300", thread_ts: "1515440000.000001" }),
    );
    expect(await stranger.json()).toEqual({ ok: true, ignored: true });
    const sessions = await slack.sessions();
    expect(sessions).toHaveLength(1);
    await eventually(async () => ((await slack.sessions())[0]?.turnCount === 2 ? true : undefined), 5000, "two turns");
  });

  test("a direct message (message.im) and a post in a watched channel wake the agent; other channel posts do not", async () => {
    const slack = await start();
    const dm = await slack.post(envelope({ type: "message", channel: "D024BE91L", user: "U2147483697", text: "Hello hello can you hear me?", ts: "1355517523.000005", channel_type: "im" }));
    expect(await dm.json()).toMatchObject({ ok: true, continuationToken: "D024BE91L:1355517523.000005" });
    const watched = await slack.post(envelope({ type: "message", channel: "C0WATCHED", user: "U2147483697", text: "build is red", ts: "1355517600.000007", channel_type: "channel" }));
    expect(await watched.json()).toMatchObject({ ok: true, continuationToken: "C0WATCHED:1355517600.000007" });
    const other = await slack.post(envelope({ type: "message", channel: "C0OTHER", user: "U2147483697", text: "lunch?", ts: "1355517700.000009", channel_type: "channel" }));
    expect(await other.json()).toEqual({ ok: true, ignored: true });
    await eventually(async () => (callsTo("chat.postMessage").length >= 2 ? true : undefined), 5000, "two replies");
    expect(callsTo("chat.postMessage").map((call) => bodyOf(call).text).sort()).toEqual(["echo: Hello hello can you hear me?", "echo: build is red"]);
    expect(await slack.sessions()).toHaveLength(2);
  });

  test("bot messages and messages with a subtype never wake the agent", async () => {
    const slack = await start();
    const botMessage = await slack.post(
      envelope({ type: "message", subtype: "bot_message", text: "Deploy finished", ts: "1358877455.000010", username: "deploybot", bot_id: "B123ABC456", channel: "C0WATCHED", channel_type: "channel" }),
    );
    expect(await botMessage.json()).toEqual({ ok: true, ignored: true });
    // The app's own reply: a bot_id, no subtype.
    const own = await slack.post(
      envelope({ type: "message", user: BOT_USER, bot_id: "B0OWN", app_id: "A123ABC456", text: "echo: hi", ts: "1358877460.000011", channel: "D024BE91L", channel_type: "im" }),
    );
    expect(await own.json()).toEqual({ ok: true, ignored: true });
    const edited = await slack.post(
      envelope({ type: "message", subtype: "message_changed", channel: "D024BE91L", channel_type: "im", ts: "1358877470.000012", message: { text: "edited" } }),
    );
    expect(await edited.json()).toEqual({ ok: true, ignored: true });
    expect(await slack.sessions()).toEqual([]);
  });

  test("a failed turn posts a short error notice in the thread", async () => {
    const slack = await start();
    await slack.post(mention("/fail model unavailable"));
    const notice = await eventually(async () => callsTo("chat.postMessage")[0], 5000, "notice");
    expect(bodyOf(notice)).toMatchObject({ thread_ts: "1515449522.000016", text: ":warning: I could not finish this (model unavailable)." });
    await eventually(async () => callsTo("reactions.remove")[0], 5000, "reaction removed");
  });

  test("stream mode posts as soon as text arrives, then grows the same message with chat.update", async () => {
    const slack = await start({ reply: { mode: "stream", streamIntervalMs: 0 } });
    const answer = "The hour of the pearl is the hour between night and day.";
    await slack.post(mention(`/reply ${answer}`));
    await eventually(async () => (callsTo("reactions.remove").length > 0 ? true : undefined), 5000, "turn end");
    const posts = callsTo("chat.postMessage");
    const updates = callsTo("chat.update");
    expect(posts).toHaveLength(1);
    expect(answer.startsWith(bodyOf(posts[0]).text ?? "")).toBe(true);
    expect(bodyOf(posts[0]).text!.length).toBeLessThan(answer.length);
    expect(updates.length).toBeGreaterThan(1);
    const postedTs = `${ts}.000100`;
    expect(updates.every((call) => bodyOf(call).ts === postedTs && bodyOf(call).channel === "C123ABC456")).toBe(true);
    expect(bodyOf(updates.at(-1)).text).toBe(answer);
  });

  test("the assistant status shows while the turn runs and is cleared after; a Slack error there does not stop the reply", async () => {
    const slack = await start({ reply: { status: { reaction: false, assistant: true, idle: ["is looking…"] } } });
    await slack.post(mention("status please"));
    await eventually(async () => (callsTo("assistant.threads.setStatus").length >= 2 ? true : undefined), 5000, "status set and cleared");
    expect(callsTo("assistant.threads.setStatus").map((call) => bodyOf(call).status)).toEqual(["is looking…", ""]);
    expect(bodyOf(callsTo("assistant.threads.setStatus")[0])).toMatchObject({ channel_id: "C123ABC456", thread_ts: "1515449522.000016" });
    expect(callsTo("reactions.add")).toEqual([]);

    api.calls.length = 0;
    failing.add("assistant.threads.setStatus");
    await slack.post(mention("again", { ts: "1515449999.000001" }));
    const reply = await eventually(async () => callsTo("chat.postMessage")[0], 5000, "reply despite status error");
    expect(bodyOf(reply).text).toBe("echo: again");
  });
});

describe("slack pack: duplicates and retries", () => {
  test("a retried delivery (X-Slack-Retry-Num) and a repeated event_id start nothing new", async () => {
    const slack = await start();
    const body = mention("only once", {}) as ReturnType<typeof envelope>;
    expect((await slack.post(body)).status).toBe(200);
    const retry = await slack.post(body, { headers: { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" } });
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ ok: true, duplicate: true });
    const sameId = await slack.post(body);
    expect(await sameId.json()).toEqual({ ok: true, duplicate: true });
    // Slack sends a mention in a watched channel twice: app_mention and message, two event ids.
    const asMessage = envelope({ type: "message", channel: "C123ABC456", channel_type: "channel", user: "U123ABC456", text: `<@${BOT_USER}> only once`, ts: "1515449522.000016" });
    expect(await (await slack.post(asMessage)).json()).toEqual({ ok: true, ignored: true });
    await eventually(async () => callsTo("chat.postMessage")[0], 5000, "reply");
    const sessions = await slack.sessions();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.turnCount).toBe(1);
  });

  test("a retry of a delivery that was refused is handled: nothing Slack sent is lost", async () => {
    const slack = await start();
    const body = mention("second time lucky");
    const refused = await slack.post(body, { signature: "v0=" + "0".repeat(64) });
    expect(refused.status).toBe(401);
    const retried = await slack.post(body, { headers: { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_error" } });
    expect(await retried.json()).toMatchObject({ ok: true, continuationToken: "C123ABC456:1515449522.000016" });
    await eventually(async () => callsTo("chat.postMessage")[0], 5000, "reply");
  });
});

describe("slack pack: bad input", () => {
  test("wrong, missing and stale signatures are 401 invalid_signature and start nothing", async () => {
    const slack = await start();
    const body = mention("let me in");
    const wrong = await slack.post(body, { signature: slackSign("{}", Math.floor(Date.now() / 1000)) });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ ok: false, error: "invalid_signature" });
    expect((await slack.post(body, { signature: null })).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 301;
    const old = await slack.post(body, { timestamp: stale });
    expect(old.status).toBe(401);
    expect(((await old.json()) as { message: string }).message).toMatch(/five minutes/);
    const future = await slack.post(body, { timestamp: Math.floor(Date.now() / 1000) + 301 });
    expect(future.status).toBe(401);
    const noTimestamp = await fetch(`${slack.server.url}/triage/v1/channels/slack/events`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-slack-signature": slackSign(JSON.stringify(body), 0) },
      body: JSON.stringify(body),
    });
    expect(noTimestamp.status).toBe(401);
    expect(await slack.sessions()).toEqual([]);
    expect(api.calls).toEqual([]);
  });

  test("malformed JSON is 400; unknown envelope and event types are acknowledged and ignored", async () => {
    const slack = await start();
    const malformed = await slack.post(null, { raw: '{"type":"event_callback",' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ ok: false, error: "invalid_request" });
    const rateLimited = await slack.post({ token: "x", type: "app_rate_limited", team_id: "T123ABC456", minute_rate_limited: 1518467820, api_app_id: "A123ABC456" });
    expect(await rateLimited.json()).toEqual({ ok: true, ignored: true });
    const reaction = await slack.post(envelope({ type: "reaction_added", user: "U123ABC456", reaction: "thumbsup", item: { type: "message", channel: "C123ABC456", ts: "1360782400.498405" }, event_ts: "1360782804.083113" }));
    expect(await reaction.json()).toEqual({ ok: true, ignored: true });
    const oddTs = await slack.post(envelope({ type: "app_mention", user: "U1", text: `<@${BOT_USER}> hi`, ts: "../../x", channel: "C123ABC456" }));
    expect(await oddTs.json()).toEqual({ ok: true, ignored: true });
    const noChallenge = await slack.post({ type: "url_verification" });
    expect(noChallenge.status).toBe(400);
    expect(await slack.sessions()).toEqual([]);
  });

  test("without a signing secret: 401 outside --dev, admitted from direct loopback under --dev", async () => {
    const strict = await start({ signingSecret: "" });
    expect((await strict.post(mention("hi"), { signature: null })).status).toBe(401);
    const dev = await start({ signingSecret: "" }, { dev: true });
    expect((await dev.post(mention("hi"), { signature: null, headers: { "x-forwarded-for": "3.3.3.3" } })).status).toBe(401);
    expect((await dev.post(mention("hi"), { signature: null })).status).toBe(200);
  });
});

describe("slack pack: reply rules", () => {
  const binding = () => ({ id: "ses_x", sessionId: "ses_x", continuationToken: "C1:1.1", state: { slack: { channel: "C1", threadTs: "1.1", lastTs: "1.1" } } as Record<string, unknown> });
  const event = (index: number, data: { text: string; finishReason: "stop" | "tool_call" }) => ({ type: "message.completed" as const, index, sessionId: "ses_x", turnId: "turn_1", at: new Date().toISOString(), data });
  const context = { logger: quietLogger, channel: { id: "slack" }, attempt: 0 } as never;

  test("empty text and the text of a tool-calling step are not posted; an index is answered once", async () => {
    const channel = slackChannel({ botToken: BOT_TOKEN, apiUrl: `${api.url}/api` });
    const completed = channel.events!["message.completed"]!;
    const state = binding();
    await completed(event(2, { text: "Let me check the logs.", finishReason: "tool_call" }), state, context);
    await completed(event(3, { text: "", finishReason: "stop" }), state, context);
    expect(callsTo("chat.postMessage")).toEqual([]);
    await completed(event(4, { text: "All green.", finishReason: "stop" }), state, context);
    await completed(event(4, { text: "All green.", finishReason: "stop" }), state, context);
    expect(callsTo("chat.postMessage").map((call) => bodyOf(call).text)).toEqual(["All green."]);
  });
});
