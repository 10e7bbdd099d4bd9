/**
 * `agent-serve/cloudflare` in workerd (miniflare): the fixture worker (an agent defined in code,
 * bundled as a generated entry would be) serves sessions from their Durable Objects. Through
 * `dispatchFetch`: create, stream to `session.waiting`, follow up, server tools (model-driven and
 * direct), an approval parked and approved, artifacts, an eval run, a schedule fired by the cron
 * trigger, MCP and info. Sessions a channel, schedule, MCP `ask` or `/v1/chat` starts run in their
 * own objects, and each object's database (read from disk) holds its session only. Then workerd
 * restarts on the same persisted storage and every stream replays identically.
 */
import { describe, expect, it } from "vitest";
import { logsIn, objectDatabases, recordsIn } from "./_durable-object-files.ts";
import { type TestEvent, readEventsUntil } from "./_harness.ts";
import { BEARER, fixtureWorkerForFile } from "./_miniflare.ts";

const fixture = fixtureWorkerForFile("agent-serve-cf-worker-");

const AUTH = { authorization: `Bearer ${BEARER}` };

async function call(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  const response = await fixture.mf.dispatchFetch(`http://localhost${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { ...AUTH, ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
  });
  return response as unknown as Response;
}

async function json<T = Record<string, unknown>>(path: string, init?: Parameters<typeof call>[1]): Promise<{ status: number; body: T }> {
  const response = await call(path, init);
  return { status: response.status, body: (await response.json()) as T };
}

/** Reads the live stream from `startIndex` until `until` holds; rejects after `timeoutMs`. */
async function stream(sessionId: string, until: (event: TestEvent) => boolean, startIndex = 0, timeoutMs = 10_000, slug = "cloud"): Promise<TestEvent[]> {
  return readEventsUntil(await call(`/${slug}/v1/session/${sessionId}/stream?startIndex=${startIndex}`), until, timeoutMs);
}

const waiting = (event: TestEvent): boolean => event.type === "session.waiting";
const data = (event: TestEvent | undefined): Record<string, unknown> => (event as unknown as { data: Record<string, unknown> } | undefined)?.data ?? {};
const replyOf = (events: TestEvent[]): unknown => data(events.findLast((event) => event.type === "message.completed")).text;

async function create(message: string): Promise<{ sessionId: string; continuationToken: string }> {
  const { status, body } = await json<{ sessionId: string; continuationToken: string }>("/cloud/v1/session", { body: { message } });
  expect(status).toBe(200);
  return body;
}

/** Every event of every session, as `/events` dumps them. */
async function dumpAll(): Promise<Record<string, string>> {
  const { body } = await json<{ sessions: Array<{ sessionId: string }> }>("/cloud/v1/sessions");
  const dumps: Record<string, string> = {};
  for (const { sessionId } of body.sessions) dumps[sessionId] = await (await call(`/cloud/v1/session/${sessionId}/events`)).text();
  return dumps;
}

describe("agent-serve/cloudflare in workerd", () => {
  let chat: { sessionId: string; continuationToken: string };

  it("answers /v1/info with the Workers limits, and 401 without the bearer token", async () => {
    const info = await json<{ diagnostics: Array<{ code: string; message: string }>; harness: { tools: string[] }; tools: Array<{ name: string }> }>("/cloud/v1/info");
    expect(info.status).toBe(200);
    expect(info.body.diagnostics).toContainEqual(expect.objectContaining({ code: "runtime_limits", message: expect.stringMatching(/only server tools run/) }));
    expect(info.body.harness.tools).toEqual([]);
    expect(info.body.tools.map((tool) => tool.name).sort()).toEqual(["add", "deploy"]);
    const anonymous = await call("/cloud/v1/info", { headers: { authorization: "" } });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ ok: false, error: expect.any(String) });
  });

  it("creates a session, streams it to session.waiting, and follows up", async () => {
    chat = await create("/reply hello from workers");
    expect(chat.sessionId).toMatch(/^ses_/);
    const first = await stream(chat.sessionId, waiting);
    expect(first.map((event) => event.type)).toEqual(expect.arrayContaining(["session.started", "message.received", "turn.started", "turn.completed", "session.waiting"]));
    expect(replyOf(first)).toBe("hello from workers");

    const followUp = await json<{ continuationToken: string }>(`/cloud/v1/session/${chat.sessionId}`, {
      body: { message: "/reply second turn", continuationToken: chat.continuationToken },
    });
    expect(followUp.status).toBe(200);
    expect(followUp.body.continuationToken).not.toBe(chat.continuationToken);
    chat.continuationToken = followUp.body.continuationToken;
    const second = await stream(chat.sessionId, waiting, first.length);
    expect(second[0]!.index).toBe(first.length);
    expect(replyOf(second)).toBe("second turn");

    const listed = await json<{ sessions: Array<{ sessionId: string; turnCount: number; status: string }> }>("/cloud/v1/sessions");
    expect(listed.body.sessions).toContainEqual(expect.objectContaining({ sessionId: chat.sessionId, turnCount: 2, status: "idle" }));

    // The same stream as Server-Sent Events, resumed after the first turn with Last-Event-ID.
    const sse = await call(`/cloud/v1/session/${chat.sessionId}/stream`, { headers: { accept: "text/event-stream", "last-event-id": String(first.length - 1) } });
    expect(sse.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = sse.body!.getReader();
    let text = "";
    while (!text.includes("session.waiting")) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toContain(`id: ${first.length}\n`);
    expect(text).not.toContain(`id: ${first.length - 1}\n`);
  });

  it("holds maxRunningTurns across session objects: one FIFO with turn.queued positions", async () => {
    const open = async (message: string) => (await json<{ sessionId: string }>("/capped/v1/session", { body: { message } })).body.sessionId;
    // a runs on while b and c are opened and queue behind it, on a loaded machine too.
    const a = await open("/sleep 4000\n/reply a");
    const b = await open("/reply b");
    const c = await open("/reply c");
    const [eventsA, eventsB, eventsC] = await Promise.all([a, b, c].map((id) => stream(id, waiting, 0, 20_000, "capped")));
    expect(eventsA!.some((event) => event.type === "turn.queued")).toBe(false);
    expect(eventsB!.find((event) => event.type === "turn.queued")?.data).toEqual({ position: 1 });
    expect(eventsC!.find((event) => event.type === "turn.queued")?.data).toEqual({ position: 2 });
    const at = (events: TestEvent[], type: string) => Date.parse(events.find((event) => event.type === type)!.at);
    expect(at(eventsB!, "turn.started")).toBeGreaterThanOrEqual(at(eventsA!, "turn.completed"));
    expect(at(eventsC!, "turn.started")).toBeGreaterThanOrEqual(at(eventsB!, "turn.completed"));
  });

  it("refuses bad input with the error envelope and changes nothing", async () => {
    const before = await dumpAll();
    const empty = await json("/cloud/v1/session", { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ ok: false, error: expect.any(String) });
    const stale = await json(`/cloud/v1/session/${chat.sessionId}`, { body: { message: "/reply no", continuationToken: "http:not-the-token" } });
    expect(stale.status).toBeGreaterThanOrEqual(400);
    expect(stale.status).toBeLessThan(500);
    expect((await json("/cloud/v1/session/ses_doesNotExist000000/events")).status).toBe(404);
    expect((await json("/cloud/v1/session/not-an-id/events")).status).toBe(404);
    // The storage protocol is not reachable from outside: the header is stripped on the way in.
    const probe = await call("/cloud/v1/sessions", { body: { namespace: "cloud", ops: [{ op: "list", prefix: "" }] }, headers: { "x-agent-serve-storage": "ops" } });
    expect(probe.status).toBe(405);
    expect(await probe.json()).toMatchObject({ ok: false });
    expect(await dumpAll()).toEqual(before);
  });

  it("runs a server tool the model calls, and the same tool over HTTP and MCP", async () => {
    const session = await create('/tool add {"a":2,"b":3}');
    const events = await stream(session.sessionId, waiting);
    const result = events.find((event) => event.type === "action.result");
    expect(data(result)).toMatchObject({ toolName: "add", output: { sum: 5 }, isError: false });

    const direct = await json("/cloud/v1/tools/add", { body: { input: { a: 40, b: 2 } } });
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ isError: false, result: { sum: 42 } });
    const invalid = await json("/cloud/v1/tools/add", { body: { input: { a: "x" } } });
    expect(invalid.status).toBe(400);

    // Bound to the session: run by its object and recorded on its stream, between its turns.
    const bound = async (a: number) => json<{ isError: boolean; result: unknown; callId: string }>("/cloud/v1/tools/add", { body: { input: { a, b: 1 }, sessionId: session.sessionId } });
    const firstCall = await bound(10);
    expect(firstCall).toMatchObject({ status: 200, body: { isError: false, result: { sum: 11 } } });
    const followed = await json<{ continuationToken: string }>(`/cloud/v1/session/${session.sessionId}`, { body: { message: "/reply between calls", continuationToken: session.continuationToken } });
    expect(followed.status).toBe(200);
    await stream(session.sessionId, (event) => event.type === "message.completed" && data(event).text === "between calls");
    const secondCall = await bound(20);
    expect(secondCall).toMatchObject({ status: 200, body: { isError: false, result: { sum: 21 } } });
    const recorded = await stream(session.sessionId, (event) => event.type === "action.result" && data(event).toolCallId === secondCall.body.callId);
    const results = recorded.filter((event) => event.type === "action.result").map((event) => data(event).output);
    expect(results).toEqual([{ sum: 5 }, { sum: 11 }, { sum: 21 }]);
    expect(recorded.map((event) => event.index)).toEqual(recorded.map((_, i) => i));

    const mcp = await call("/cloud/v1/mcp", {
      body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "call_tool", arguments: { name: "add", input: { a: 1, b: 1 } } } },
      headers: { accept: "application/json, text/event-stream" },
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toMatch(/\\"sum\\":2/);
  });

  it("parks an approval-gated call, lists it, and runs it once approved", async () => {
    const session = await create('/tool deploy {"target":"prod"}');
    const parked = await stream(session.sessionId, (event) => event.type === "action.approval_requested");
    const { callId } = data(parked.at(-1)) as { callId: string };
    const pending = await json<{ approvals: Array<{ callId: string; toolName: string }> }>(`/cloud/v1/session/${session.sessionId}/approvals`);
    expect(pending.body.approvals).toEqual([expect.objectContaining({ callId, toolName: "deploy" })]);
    const approved = await json(`/cloud/v1/session/${session.sessionId}/approvals/${callId}`, { body: { decision: "approve" } });
    expect(approved.status).toBe(200);
    const rest = await stream(session.sessionId, waiting, parked.length);
    expect(data(rest.find((event) => event.type === "action.result"))).toMatchObject({ toolName: "deploy", output: "deployed prod", isError: false });
  });

  it("keeps the artifacts a turn tags, and runs an eval", async () => {
    const session = await create('/tool tag_artifact {"kind":"note","key":"n1","title":"Note one","data":{"x":1}}');
    const events = await stream(session.sessionId, waiting);
    expect(events.map((event) => event.type)).toContain("artifact.tagged");
    const listed = await json<{ artifacts: Array<{ key: string; title: string; sessionId: string }> }>(`/cloud/v1/artifacts?sessionId=${session.sessionId}`);
    expect(listed.body.artifacts).toEqual([expect.objectContaining({ key: "n1", title: "Note one", sessionId: session.sessionId })]);

    const started = await json<{ runId: string }>("/cloud/v1/dev/evals/runs", { body: { filterIds: ["greet"] } });
    expect(started.status).toBe(202);
    const deadline = Date.now() + 10_000;
    let run: { status: string; passed: number; failed: number } = { status: "running", passed: 0, failed: 0 };
    while (run.status === "running" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = (await json<typeof run>(`/cloud/v1/dev/evals/runs/${started.body.runId}`)).body;
    }
    expect(run).toMatchObject({ status: "completed", passed: 1, failed: 0 });
  });

  it("serves a custom channel's route, which starts a session and waits for its reply", async () => {
    const answered = await json<{ sessionId: string; result?: string; status?: string }>("/cloud/v1/channels/tickets/tickets", { body: { title: "/reply ticket answered" } });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ sessionId: expect.stringMatching(/^ses_/), status: "finished", result: "ticket answered" });
    const invalid = await json("/cloud/v1/channels/tickets/tickets", { body: { title: "" } });
    expect(invalid).toMatchObject({ status: 400, body: { ok: false } });
  });

  it("fires a schedule from the cron trigger once per slot", async () => {
    const slot = new Date();
    slot.setUTCHours(3, 0, 0, 0);
    if (slot.getTime() <= Date.now()) slot.setUTCDate(slot.getUTCDate() + 1);
    const worker = (await fixture.mf.getWorker()) as unknown as { scheduled(options: { cron: string; scheduledTime: Date }): Promise<unknown> };
    for (let i = 0; i < 2; i++) await worker.scheduled({ cron: "0 3 * * *", scheduledTime: new Date(slot.getTime() + 1_000) });
    const listed = await json<{ sessions: Array<{ sessionId: string; title: string | null }> }>("/cloud/v1/sessions");
    const nightly = listed.body.sessions.filter((session) => session.title === "nightly");
    expect(nightly).toHaveLength(1);
    expect(replyOf(await stream(nightly[0]!.sessionId, waiting))).toBe("nightly report");
  });

  it("fires a reminder a turn sets from its session object's alarm", async () => {
    const session = await create('/tool reminders_create {"purpose":"ping","prompt":"/reply reminded","delay":"2s"}');
    const events = await stream(session.sessionId, (event) => event.type === "message.completed" && data(event).text === "reminded", 0, 20_000);
    expect(data(events.find((event) => event.type === "action.result"))).toMatchObject({ toolName: "reminders_create", isError: false });
    expect(events.filter((event) => event.type === "message.received").map((event) => data(event).text)).toEqual([
      expect.stringContaining("reminders_create"),
      expect.stringContaining("/reply reminded"),
    ]);
  }, 30_000);

  it("runs a channel's session in its own object: a follow-up during its turn preempts it instead of meeting 409", async () => {
    // The follow-up ends this sleep: it only has to outlast finding the session on a loaded machine.
    const title = "/sleep 25000\n/reply slow ticket";
    const ticket = json<{ sessionId: string; status?: string }>("/cloud/v1/channels/tickets/tickets", { body: { title } });
    let sessionId: string | undefined;
    for (const deadline = Date.now() + 10_000; sessionId === undefined && Date.now() < deadline; ) {
      const listed = await json<{ sessions: Array<{ sessionId: string; title: string | null; status: string }> }>("/cloud/v1/sessions");
      sessionId = listed.body.sessions.find((session) => session.title === "ticket" && session.status === "running")?.sessionId;
      if (sessionId === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(sessionId).toMatch(/^ses_/);
    const started = await stream(sessionId!, (event) => event.type === "step.started");
    const followUp = await json<{ continuationToken: string }>(`/cloud/v1/session/${sessionId}`, {
      body: { message: "/reply preempted the ticket", continuationToken: `ticket:${title}` },
    });
    expect(followUp.status).toBe(200);
    const rest = await stream(sessionId!, (event) => event.type === "message.completed" && data(event).text === "preempted the ticket", started.length, 15_000);
    // The ticket's own turn was cut short: it never replied, and its turn ended before the new one.
    expect(rest.map((event) => event.type)).toContain("turn.failed");
    expect(rest.filter((event) => event.type === "message.completed").map((event) => data(event).text)).toEqual(["preempted the ticket"]);
    expect((await ticket).status).toBe(200);
  }, 30_000);

  it("runs MCP ask and /v1/chat sessions in their own objects, and deletes a session everywhere", async () => {
    const ask = async (args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const response = await call("/cloud/v1/mcp", {
        body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask", arguments: args } },
        headers: { accept: "application/json, text/event-stream" },
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      const payload = JSON.parse(text.includes("data: ") ? text.slice(text.indexOf("data: ") + 6).split("\n")[0]! : text) as { result: { structuredContent: Record<string, unknown> } };
      return payload.result.structuredContent;
    };
    const first = await ask({ message: "/reply asked over mcp", waitSeconds: 10 });
    expect(first).toMatchObject({ status: "waiting", reply: "asked over mcp", sessionId: expect.stringMatching(/^ses_/) });
    const second = await ask({ message: "/reply asked again", sessionId: first.sessionId, continuationToken: first.continuationToken, waitSeconds: 10 });
    expect(second).toMatchObject({ status: "waiting", reply: "asked again", sessionId: first.sessionId });

    const chatResponse = await call("/cloud/v1/chat", { body: { id: "chat-cf", messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "/reply chatted on workers" }] }] } });
    expect(chatResponse.status).toBe(200);
    const chatText = await chatResponse.text();
    const deltas = chatText.split("\n").flatMap((line) => {
      const part = line.startsWith("data: {") ? (JSON.parse(line.slice(6)) as { type: string; delta?: string }) : undefined;
      return part?.type === "text-delta" ? [part.delta] : [];
    });
    expect(deltas.join("")).toBe("chatted on workers");
    const chatSession = /"sessionId":"(ses_[A-Za-z0-9_-]+)"/.exec(chatText)?.[1];
    expect(chatSession).toMatch(/^ses_/);

    const listed = await json<{ sessions: Array<{ sessionId: string; channel: string; turnCount: number }> }>("/cloud/v1/sessions");
    expect(listed.body.sessions).toContainEqual(expect.objectContaining({ sessionId: first.sessionId, channel: "mcp", turnCount: 2 }));
    expect(listed.body.sessions).toContainEqual(expect.objectContaining({ sessionId: chatSession, channel: "ui", turnCount: 1 }));
    for (const sessionId of [first.sessionId as string, chatSession!]) {
      const holding = (await objectDatabases(fixture.persist)).filter((file) => logsIn(file).includes(`cloud/sessions/${sessionId}/events`));
      expect(holding).toHaveLength(1);
      expect(recordsIn(holding[0]!)).toContain(`cloud/sessions/${sessionId}/record`);
    }

    // Removal: its object drops the record and logs, the coordinator the listing's copy and the token.
    const removed = await call(`/cloud/v1/session/${first.sessionId}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect((await json(`/cloud/v1/session/${first.sessionId}/events`)).status).toBe(404);
    const after = await json<{ sessions: Array<{ sessionId: string }> }>("/cloud/v1/sessions");
    expect(after.body.sessions.map((session) => session.sessionId)).not.toContain(first.sessionId);
    const everywhere = (await objectDatabases(fixture.persist)).flatMap((file) => [...logsIn(file), ...recordsIn(file)]);
    expect(everywhere.filter((name) => name.includes(`sessions/${first.sessionId}/`) && !name.includes("/mirror-seq"))).toEqual([]);
    expect(everywhere.filter((name) => name.startsWith("cloud/continuations/mcp/"))).toEqual([]);
  });

  it("gives a channel's onStart controls over a session living in its own object: busy, interrupt, emit", async () => {
    const answered = await json<{ sessionId: string; busy: boolean; interrupted: boolean; idle: boolean; lastBotMessageAt: string | null }>("/cloud/v1/channels/tickets/controls", { body: { key: "ctl-1" } });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ busy: true, interrupted: true, idle: true });
    expect(Number.isNaN(Date.parse(answered.body.lastBotMessageAt ?? ""))).toBe(false);
    const events = await stream(answered.body.sessionId, (event) => event.type === "message.completed");
    expect(data(events.find((event) => event.type === "turn.failed"))).toEqual({ message: "turn interrupted" });
    expect(data(events.at(-1))).toMatchObject({ text: "posted by the channel" });
    expect(events.map((event) => event.index)).toEqual(events.map((_, i) => i));
  }, 30_000);

  it("keeps each session's records and logs in its own object's database, and the listing's copies in the coordinator's", async () => {
    const databases = await objectDatabases(fixture.persist);
    const holding = databases.filter((file) => logsIn(file).includes(`cloud/sessions/${chat.sessionId}/events`));
    expect(holding).toHaveLength(1);
    // Its object holds that session only: its events, conversation and record, nobody else's.
    expect(logsIn(holding[0]!).every((log) => log.startsWith(`cloud/sessions/${chat.sessionId}/`))).toBe(true);
    expect(recordsIn(holding[0]!)).toEqual(expect.arrayContaining([`cloud/sessions/${chat.sessionId}/record`]));
    // The coordinator's database: token bindings and the listing's copy of the record, no session log.
    const coordinator = databases.filter((file) => recordsIn(file).some((key) => key.startsWith("cloud/continuations/")));
    expect(coordinator).toHaveLength(1);
    expect(recordsIn(coordinator[0]!)).toContain(`cloud/sessions/${chat.sessionId}/record`);
    expect(logsIn(coordinator[0]!).filter((log) => log.includes("/sessions/"))).toEqual([]);
  });

  it("runs a schedule's session in its own object, and resolves its parked call through the session's route", async () => {
    const slot = new Date();
    slot.setUTCHours(3, 30, 0, 0);
    if (slot.getTime() <= Date.now()) slot.setUTCDate(slot.getUTCDate() + 1);
    const worker = (await fixture.mf.getWorker()) as unknown as { scheduled(options: { cron: string; scheduledTime: Date }): Promise<unknown> };
    await worker.scheduled({ cron: "30 3 * * *", scheduledTime: new Date(slot.getTime() + 1_000) });
    const listed = await json<{ sessions: Array<{ sessionId: string; title: string | null }> }>("/cloud/v1/sessions");
    const gated = listed.body.sessions.find((session) => session.title === "gated")!;
    const parked = await stream(gated.sessionId, (event) => event.type === "action.approval_requested");
    const { callId } = data(parked.at(-1)) as { callId: string };
    const pending = await json<{ approvals: Array<{ callId: string }> }>(`/cloud/v1/session/${gated.sessionId}/approvals`);
    expect(pending.body.approvals).toEqual([expect.objectContaining({ callId })]);
    const approved = await json(`/cloud/v1/session/${gated.sessionId}/approvals/${callId}`, { body: { decision: "approve" } });
    expect(approved.status).toBe(200);
    const rest = await stream(gated.sessionId, waiting, parked.length);
    expect(data(rest.find((event) => event.type === "action.result"))).toMatchObject({ output: "deployed staging" });
    const unknown = await json(`/cloud/v1/session/${gated.sessionId}/approvals/call_nope`, { body: { decision: "approve" } });
    expect(unknown).toMatchObject({ status: 404, body: { ok: false, error: "approval_not_found" } });
  });

  it("restarts on the same storage: every stream replays identically, sessions continue, a cut turn is closed", async () => {
    // A turn still running when workerd goes away.
    const cut = await create("/sleep 30000\n/reply never");
    await stream(cut.sessionId, (event) => event.type === "step.started");
    const before = await dumpAll();
    delete before[cut.sessionId];
    expect(Object.keys(before).length).toBeGreaterThanOrEqual(4);
    await fixture.restart();
    const restarted = await dumpAll();
    expect(Object.keys(restarted)).toContain(cut.sessionId);
    delete restarted[cut.sessionId];
    expect(restarted).toEqual(before);

    // Its session object starts afresh, finds the turn its earlier instance ran, and closes it.
    const closed = await stream(cut.sessionId, waiting);
    expect(data(closed.find((event) => event.type === "turn.failed"))).toEqual({ message: "host restarted" });
    const listed = await json<{ sessions: Array<{ sessionId: string; status: string }> }>("/cloud/v1/sessions");
    expect(listed.body.sessions).toContainEqual(expect.objectContaining({ sessionId: cut.sessionId, status: "idle" }));
    const replay = await stream(chat.sessionId, (event) => event.index === before[chat.sessionId]!.trim().split("\n").length - 1);
    expect(replay.map((event) => JSON.stringify(event)).join("\n")).toBe(before[chat.sessionId]!.trim());

    const after = await json(`/cloud/v1/session/${chat.sessionId}`, { body: { message: "/reply after restart", continuationToken: chat.continuationToken } });
    expect(after.status).toBe(200);
    expect(replyOf(await stream(chat.sessionId, waiting, replay.length))).toBe("after restart");
  }, 60_000);
});
