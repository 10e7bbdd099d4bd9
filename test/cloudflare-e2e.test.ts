/**
 * End to end: `agent-serve build --target cloudflare` on a fixture project (a server tool, an
 * approval-gated tool, a Markdown and a code schedule), then the built `worker.mjs` in workerd
 * (Miniflare) configured from the generated `wrangler.jsonc`, with the real `agent-serve/cloudflare`
 * runtime. Through `dispatchFetch`: create a session, stream it to `session.waiting`, follow up,
 * call a tool, park and approve a call, fire a schedule through `scheduled` with the generated cron,
 * then restart on the same persisted storage and replay the streams.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { main } from "../cli/main.ts";
import { type TestEvent, readEventsUntil } from "./_harness.ts";
import { eventsOnDisk } from "./_durable-object-files.ts";
import { pollUntil } from "./_storage-tests.ts";
import { miniflareOptions, readWranglerConfig } from "./_cloudflare.ts";

const repo = fileURLToPath(new URL("../", import.meta.url));
const FIXTURE = join(repo, "test/fixtures/cloudflare-project");
const SLUG = "cloudflare-project";
const BEARER = "cf-build-e2e-token";
const scratch = mkdtempSync(join(tmpdir(), "agent-serve-cfe2e-"));
const outDir = join(scratch, "out");
const persist = join(scratch, "state");
let mf: Miniflare;

async function start(): Promise<Miniflare> {
  // The bearer token is a Workers secret in production (agent-serve secrets set AGENT_SERVE_BEARER_TOKEN).
  const worker = new Miniflare({ ...miniflareOptions(outDir, persist), bindings: { AGENT_SERVE_BEARER_TOKEN: BEARER } });
  await worker.ready;
  return worker;
}

beforeAll(async () => {
  let out = "";
  let err = "";
  const code = await main({
    argv: ["build", FIXTURE, "--target", "cloudflare", "--out", outDir, "--no-docs", "--json"],
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: { ...process.env, NO_COLOR: "1" },
    cwd: repo,
  });
  expect(err).toBe("");
  expect(code, out).toBe(0);
  mf = await start();
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

async function call(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const response = await mf.dispatchFetch(`http://localhost/${SLUG}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${BEARER}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response as unknown as Response;
}

async function json<T>(path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await call(path, body);
  return { status: response.status, body: (await response.json()) as T };
}

/** The live stream from `startIndex` until `until` holds. */
async function stream(sessionId: string, until: (event: TestEvent) => boolean, startIndex = 0, timeoutMs = 15_000): Promise<TestEvent[]> {
  return readEventsUntil(await call(`/v1/session/${sessionId}/stream?startIndex=${startIndex}`), until, timeoutMs);
}

const waiting = (event: TestEvent): boolean => event.type === "session.waiting";
const data = (event: TestEvent | undefined): Record<string, unknown> => (event as unknown as { data?: Record<string, unknown> } | undefined)?.data ?? {};
const replyOf = (events: TestEvent[]): unknown => data(events.findLast((event) => event.type === "message.completed")).text;

async function create(message: string): Promise<{ sessionId: string; continuationToken: string }> {
  const { status, body } = await json<{ sessionId: string; continuationToken: string }>("/v1/session", { message });
  expect(status).toBe(200);
  return body;
}

async function dumpAll(): Promise<Record<string, string>> {
  const { body } = await json<{ sessions: Array<{ sessionId: string }> }>("/v1/sessions");
  const dumps: Record<string, string> = {};
  for (const { sessionId } of body.sessions) dumps[sessionId] = await (await call(`/v1/session/${sessionId}/events`)).text();
  return dumps;
}

describe("a built worker in workerd", () => {
  let chat: { sessionId: string; continuationToken: string };

  test("serves the project loaded from its snapshot, with the Workers notice", async () => {
    const info = await json<{ name: string; tools: Array<{ name: string }>; schedules: Array<{ id: string }>; diagnostics: Array<{ code: string }> }>("/v1/info");
    expect(info.status).toBe(200);
    expect(info.body.name).toBe("cf-notes");
    expect(info.body.tools.map((tool) => tool.name).sort()).toEqual(["add", "forget"]);
    expect(JSON.stringify(info.body.schedules)).toMatch(/nightly[\s\S]*weekdays/);
    expect(info.body.diagnostics.map((d) => d.code)).toContain("runtime_limits");
    expect((await call("/v1/info", undefined, { authorization: "" })).status).toBe(401);
  });

  test("creates a session, streams it to session.waiting, follows up", async () => {
    chat = await create("/reply hello from the build");
    const first = await stream(chat.sessionId, waiting);
    expect(replyOf(first)).toBe("hello from the build");
    const followUp = await json<{ continuationToken: string }>(`/v1/session/${chat.sessionId}`, { message: "/reply second turn", continuationToken: chat.continuationToken });
    expect(followUp.status).toBe(200);
    chat.continuationToken = followUp.body.continuationToken;
    const second = await stream(chat.sessionId, waiting, first.length);
    expect(second[0]?.index).toBe(first.length);
    expect(replyOf(second)).toBe("second turn");
  });

  test("every agent is an A2A server on Workers too: the card, a blocking SendMessage, GetTask, a stream (docs/guide/a2a.md)", async () => {
    const card = await call("/.well-known/agent-card.json", undefined, { authorization: "" });
    expect(card.status).toBe(200);
    const body = (await card.json()) as { name: string; supportedInterfaces: Array<{ url: string }>; securitySchemes?: unknown };
    expect(body.name).toBe("cf-notes");
    expect(body.supportedInterfaces[0]!.url).toBe(`http://localhost/${SLUG}/v1/a2a`);
    // The scheme in its 1.0 form and, beside it, the 0.3 fields 0.3 clients parse (docs/design/a2a-compat.md).
    const description = "The server's bearer token (--bearer-token, or an access token of --oauth-issuer)";
    expect(body.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description }, type: "http", scheme: "bearer", description } });
    const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "/reply over A2A on Workers" }] };
    const sent = await json<{ result: { task: { id: string; contextId: string; status: { state: string; message: { parts: Array<{ text: string }> } } } } }>("/v1/a2a", {
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message },
    });
    expect(sent.status).toBe(200);
    const task = sent.body.result.task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.status.message.parts[0]!.text).toBe("over A2A on Workers");
    const got = await json<{ result: { id: string; history: unknown[] } }>("/v1/a2a", { jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: task.id } });
    expect(got.body.result.id).toBe(task.id);
    expect(got.body.result.history).toHaveLength(2);
    const streamed = await call("/v1/a2a", { jsonrpc: "2.0", id: 3, method: "SendStreamingMessage", params: { message: { ...message, messageId: "m2", contextId: task.contextId, parts: [{ text: "/reply streamed" }] } } });
    expect(streamed.headers.get("content-type")).toContain("text/event-stream");
    const frames = (await streamed.text()).split("\n\n").filter((frame) => frame.startsWith("data: ")).map((frame) => JSON.parse(frame.slice(6)) as { result: Record<string, { status?: { state: string } }> });
    expect(Object.keys(frames[0]!.result)).toEqual(["task"]);
    expect(frames.at(-1)!.result["statusUpdate"]?.status?.state).toBe("TASK_STATE_COMPLETED");
  });

  test("the model calls a server tool from the bundle; the same tool answers over HTTP", async () => {
    const session = await create('/tool add {"a":2,"b":3}');
    const events = await stream(session.sessionId, waiting);
    expect(data(events.find((event) => event.type === "action.result"))).toMatchObject({ toolName: "add", output: { sum: 5 }, isError: false });
    const direct = await json<{ result: unknown }>("/v1/tools/add", { input: { a: 40, b: 2 } });
    expect(direct).toMatchObject({ status: 200, body: { result: { sum: 42 } } });
  });

  test("an approval-gated tool parks its call; approving runs it", async () => {
    const session = await create('/tool forget {"topic":"groceries"}');
    const parked = await stream(session.sessionId, (event) => event.type === "action.approval_requested");
    const { callId } = data(parked.at(-1)) as { callId: string };
    const pending = await json<{ approvals: Array<{ callId: string; toolName: string }> }>(`/v1/session/${session.sessionId}/approvals`);
    expect(pending.body.approvals).toEqual([expect.objectContaining({ callId, toolName: "forget" })]);
    expect((await json(`/v1/session/${session.sessionId}/approvals/${callId}`, { decision: "approve" })).status).toBe(200);
    const rest = await stream(session.sessionId, waiting, parked.length);
    expect(data(rest.find((event) => event.type === "action.result"))).toMatchObject({ toolName: "forget", output: { forgotten: "groceries" }, isError: false });
  });

  test("the generated cron triggers fire both schedules through scheduled", async () => {
    const crons = readWranglerConfig(outDir).triggers.crons;
    expect(crons).toEqual(["0 3 * * *", "30 8 * * MON-FRI"]);
    const worker = (await mf.getWorker()) as unknown as { scheduled(options: { cron: string; scheduledTime: Date }): Promise<unknown> };
    const before = await dumpAll();
    // The next 03:00 (the Markdown schedule), then the next weekday 08:30 after it (the code one).
    const nightly = new Date();
    nightly.setUTCHours(3, 0, 0, 0);
    if (nightly.getTime() <= Date.now()) nightly.setUTCDate(nightly.getUTCDate() + 1);
    const weekday = new Date(nightly);
    weekday.setUTCHours(8, 30, 0, 0);
    while (weekday.getUTCDay() === 0 || weekday.getUTCDay() === 6) weekday.setUTCDate(weekday.getUTCDate() + 1);
    await worker.scheduled({ cron: crons[0]!, scheduledTime: new Date(nightly.getTime() + 1_000) });
    await worker.scheduled({ cron: crons[1]!, scheduledTime: new Date(weekday.getTime() + 1_000) });

    // The Markdown schedule's task session belongs to the schedule's own principal: the
    // coordinator's log names it, and its own object's database shows it ran to completion.
    const { body } = await json<{ lines: Array<{ message: string; fields?: { sessionIds?: string[]; event?: string } }> }>("/v1/logs");
    const fired = body.lines.findIndex((line) => line.message === `schedule nightly fired for ${nightly.toISOString()}`);
    expect(fired).toBeGreaterThanOrEqual(0);
    const task = body.lines.slice(fired).find((line) => line.fields?.event === "schedule.dispatched")?.fields?.sessionIds?.[0];
    expect(task).toMatch(/^ses_/);
    expect(Object.keys(before)).not.toContain(task);
    await pollUntil(async () => (await eventsOnDisk(persist, SLUG, task!)).some((event) => event.type === "session.completed"), 15_000, "the task session to complete");
    const events = await eventsOnDisk(persist, SLUG, task!);
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(["session.started", "turn.started", "turn.completed", "session.completed"]));

    // The code schedule called the tool and handed a message to the bearer principal's session.
    const listed = await json<{ sessions: Array<{ sessionId: string; title: string | null }> }>("/v1/sessions");
    const digests = listed.body.sessions.filter((session) => session.title === "weekday digest");
    expect(digests).toHaveLength(1);
    expect(replyOf(await stream(digests[0]!.sessionId, waiting))).toBe('weekday digest: {"sum":42}');
  });

  test("restarts on the same storage: the streams replay identically and the chat continues", async () => {
    const before = await dumpAll();
    expect(Object.keys(before).length).toBeGreaterThanOrEqual(4);
    await mf.dispose();
    mf = await start();
    expect(await dumpAll()).toEqual(before);
    const lines = before[chat.sessionId]!.trim().split("\n");
    const replay = await stream(chat.sessionId, (event) => event.index === lines.length - 1);
    expect(replay.map((event) => JSON.stringify(event))).toEqual(lines);
    const after = await json(`/v1/session/${chat.sessionId}`, { message: "/reply after restart", continuationToken: chat.continuationToken });
    expect(after.status).toBe(200);
    expect(replyOf(await stream(chat.sessionId, waiting, replay.length))).toBe("after restart");
  }, 60_000);
});
