import { expect, it } from "vitest";
import { allEvents, describeHost, eventually, helloOptions, postJson, readEvents } from "./_harness.ts";

const base = "/hello";

describeHost("session routes", () => helloOptions(), (target) => {
  async function create(message: string): Promise<{ sessionId: string; continuationToken: string }> {
    const response = await target().fetch(`${base}/v1/session`, postJson({ message }));
    expect(response.status).toBe(200);
    return (await response.json()) as { sessionId: string; continuationToken: string };
  }

  async function waitIdle(sessionId: string, turns: number): Promise<void> {
    await eventually(async () => {
      const events = await allEvents(target(), base, sessionId);
      return events.filter((e) => e.type === "session.waiting").length >= turns ? true : undefined;
    }, 5000, `${turns} session.waiting events`);
  }

  it("creates a session and answers with ids and urls", async () => {
    const response = await target().fetch(`${base}/v1/session`, postJson({ message: "hi" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = (await response.json()) as Record<string, string>;
    expect(body.ok).toBe(true);
    expect(body.sessionId).toMatch(/^ses_[A-Za-z0-9]+$/);
    expect(body.continuationToken).toMatch(/^http:/);
    expect(body.playgroundUrl).toMatch(new RegExp(`/hello/playground\\?sessionId=${body.sessionId}$`));
    expect(body.traceUrl).toMatch(new RegExp(`/hello/v1/session/${body.sessionId}/events$`));
  });

  it("records the events of a plain turn with the documented payloads", async () => {
    const { sessionId } = await create("/reason let me think\nhello there");
    await waitIdle(sessionId, 1);
    const events = await allEvents(target(), base, sessionId);
    expect(events.map((e) => e.index)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type);
    expect(types.slice(0, 5)).toEqual(["session.started", "message.received", "turn.started", "step.started", "reasoning.appended"]);
    expect(types.slice(-4)).toEqual(["message.completed", "step.completed", "turn.completed", "session.waiting"]);
    expect(types.filter((t) => t === "message.appended").length).toBeGreaterThan(1);
    const byType = (type: string) => events.find((e) => e.type === type)!;
    expect(byType("session.started").data).toEqual({ mode: "chat", channel: "http" });
    expect(byType("message.received").data).toEqual({ text: "/reason let me think\nhello there" });
    expect(byType("reasoning.completed").data).toEqual({ text: "let me think" });
    expect(byType("message.completed").data).toEqual({ text: "echo: hello there", finishReason: "stop" });
    expect(byType("step.completed").data).toMatchObject({ stepIndex: 0, finishReason: "stop" });
    const usage = byType("turn.completed").data["usage"] as Record<string, number>;
    expect(usage.outputTokens).toBe(Math.ceil(("echo: hello there".length + "let me think".length) / 4));
    expect(Object.keys(usage).sort()).toEqual(["cacheReadTokens", "cacheWriteTokens", "inputTokens", "outputTokens"]);
    const turnId = byType("turn.started").turnId;
    expect(turnId).toMatch(/^turn_/);
    for (const event of events.slice(1, -1)) expect(event.turnId).toBe(turnId);
    expect(events.every((e) => e.sessionId === sessionId && !Number.isNaN(Date.parse(e.at)))).toBe(true);
    const deltas = events.filter((e) => e.type === "message.appended").map((e) => e.data["delta"]).join("");
    expect(deltas).toBe("echo: hello there");
  });

  it("rotates the continuation token on follow-up and refuses the stale one", async () => {
    const first = await create("one");
    await waitIdle(first.sessionId, 1);
    const response = await target().fetch(`${base}/v1/session/${first.sessionId}`, postJson({ continuationToken: first.continuationToken, message: "two" }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ok: boolean; sessionId: string; continuationToken: string };
    expect(body).toMatchObject({ ok: true, sessionId: first.sessionId });
    expect(body.continuationToken).not.toBe(first.continuationToken);
    await waitIdle(first.sessionId, 2);

    const stale = await target().fetch(`${base}/v1/session/${first.sessionId}`, postJson({ continuationToken: first.continuationToken, message: "three" }));
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ ok: false, error: "stale_continuation_token" });
    const events = await allEvents(target(), base, first.sessionId);
    expect(events.filter((e) => e.type === "message.received").map((e) => e.data["text"])).toEqual(["one", "two"]);
    const replies = events.filter((e) => e.type === "message.completed").map((e) => e.data["text"]);
    expect(replies).toEqual(["echo: one", "echo: two"]);
  });

  it("streams live, and a reconnect with startIndex continues with no gap or duplicate", async () => {
    const { sessionId, continuationToken } = await create("/sleep 150\nfirst");
    const live = await target().fetch(`${base}/v1/session/${sessionId}/stream`);
    expect(live.status).toBe(200);
    expect(live.headers.get("content-type")).toBe("application/x-ndjson");
    const firstPart = await readEvents(live, (e) => e.type === "message.appended");
    const lastSeen = firstPart.at(-1)!.index;

    const resumed = await target().fetch(`${base}/v1/session/${sessionId}/stream?startIndex=${lastSeen + 1}`);
    const rest = await readEvents(resumed, (e) => e.type === "session.waiting");
    const indexes = [...firstPart, ...rest].map((e) => e.index);
    expect(indexes).toEqual(indexes.map((_, i) => i));

    // Following live across a second turn: the follower sees the new turn's events as they land.
    const follower = await target().fetch(`${base}/v1/session/${sessionId}/stream?startIndex=${indexes.length}`);
    await target().fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "second" }));
    const second = await readEvents(follower, (e) => e.type === "session.waiting");
    expect(second[0]!.index).toBe(indexes.length);
    expect(second.map((e) => e.type)).toContain("turn.completed");
    expect(second.find((e) => e.type === "message.completed")!.data["text"]).toBe("echo: second");
  });

  it("replays the whole stream when startIndex is omitted, and a startIndex past the end waits", async () => {
    const { sessionId } = await create("hello");
    await waitIdle(sessionId, 1);
    const all = await allEvents(target(), base, sessionId);
    const replay = await readEvents(await target().fetch(`${base}/v1/session/${sessionId}/stream`), (_e, got) => got.length === all.length);
    expect(replay).toEqual(all);
    const past = await target().fetch(`${base}/v1/session/${sessionId}/stream?startIndex=${all.length + 5}`);
    await expect(readEvents(past, () => true, 200)).rejects.toThrow(/timed out/);
  });

  it("stop interrupts the running turn with turn interrupted and returns to waiting", async () => {
    const { sessionId } = await create("/sleep 5000\nslow");
    await eventually(async () => ((await allEvents(target(), base, sessionId)).some((e) => e.type === "step.started") ? true : undefined));
    const stop = await target().fetch(`${base}/v1/session/${sessionId}/stop`, { method: "POST" });
    expect(await stop.json()).toEqual({ ok: true, stopped: true });
    const events = await allEvents(target(), base, sessionId);
    expect(events.slice(-2).map((e) => [e.type, e.data])).toEqual([
      ["turn.failed", { message: "turn interrupted" }],
      ["session.waiting", {}],
    ]);
    const again = await target().fetch(`${base}/v1/session/${sessionId}/stop`, { method: "POST" });
    expect(await again.json()).toEqual({ ok: true, stopped: false });
  });

  it("lists sessions newest first with status, counts and tokens", async () => {
    const a = await create("a");
    await waitIdle(a.sessionId, 1);
    const b = await create("/sleep 3000\nb");
    const response = await target().fetch(`${base}/v1/sessions`);
    const { sessions } = (await response.json()) as { sessions: Array<Record<string, unknown>> };
    expect(sessions.map((s) => s.sessionId)).toEqual([b.sessionId, a.sessionId]);
    expect(sessions[1]).toMatchObject({ channel: "http", mode: "chat", status: "idle", queued: false, turnCount: 1, continuationToken: a.continuationToken });
    expect(sessions[0]).toMatchObject({ status: "running", queued: false, turnCount: 0 });
    await target().fetch(`${base}/v1/session/${b.sessionId}/stop`, { method: "POST" });
  });

  it("reports cost folded from turn usage", async () => {
    const { sessionId, continuationToken } = await create("hello");
    await waitIdle(sessionId, 1);
    await target().fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "again" }));
    await waitIdle(sessionId, 2);
    const report = (await (await target().fetch(`${base}/v1/session/${sessionId}/cost`)).json()) as {
      sessionId: string;
      totals: Record<string, number>;
      turns: Array<{ model: string; usage: Record<string, number>; estimatedCostUsd: number | null }>;
    };
    expect(report.sessionId).toBe(sessionId);
    expect(report.turns).toHaveLength(2);
    expect(report.turns.every((t) => t.model === "scripted" && t.estimatedCostUsd === 0)).toBe(true);
    expect(report.totals.outputTokens).toBe(report.turns.reduce((sum, t) => sum + t.usage.outputTokens!, 0));
    expect(report.totals.unpricedTurns).toBe(0);
  });

  it("answers 404 for unknown sessions on every session route", async () => {
    const id = "ses_doesnotexist000000";
    for (const [path, init] of [
      [`/v1/session/${id}/stream`, undefined],
      [`/v1/session/${id}/events`, undefined],
      [`/v1/session/${id}/cost`, undefined],
      [`/v1/session/${id}/stop`, { method: "POST" }],
      [`/v1/session/${id}`, postJson({ continuationToken: "http:x", message: "hi" })],
    ] as const) {
      const response = await target().fetch(`${base}${path}`, init);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ ok: false, error: "session_not_found" });
    }
  });

  it("fails a turn whose model call fails, and stays followable", async () => {
    const { sessionId, continuationToken } = await create("/fail provider exploded");
    await waitIdle(sessionId, 1);
    const events = await allEvents(target(), base, sessionId);
    expect(events.slice(-2).map((e) => [e.type, e.data])).toEqual([
      ["turn.failed", { message: "provider exploded" }],
      ["session.waiting", {}],
    ]);
    const next = await target().fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "ok now" }));
    expect(next.status).toBe(200);
    await waitIdle(sessionId, 2);
  });

  it("serves per-agent and host-level health and the agents index", async () => {
    expect(await (await target().fetch(`${base}/v1/health`)).json()).toEqual({ ok: true, slug: "hello", name: "Hello" });
    expect(await (await target().fetch(`/v1/health`)).json()).toMatchObject({ ok: true });
    const agents = (await (await target().fetch(`/v1/agents`)).json()) as { agents: Array<Record<string, unknown>> };
    expect(agents.agents).toEqual([expect.objectContaining({ slug: "hello", name: "Hello", basePath: "/hello" })]);
    const index = await target().fetch("/");
    expect(index.headers.get("content-type")).toContain("text/html");
    expect(await index.text()).toContain("/hello/playground");
    const missing = await target().fetch("/nope/v1/health");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ ok: false, error: "not_found" });
  });
});

describeHost("renaming a session (PATCH /v1/session/:id)", () => helloOptions(), (target) => {
  it("renames a session its owner holds (the ownership check of follow-ups); bad titles are 400 and change nothing", async () => {
    const created = (await (await target().fetch("/hello/v1/session", postJson({ message: "/reply hi", title: "first" }))).json()) as { sessionId: string };
    const rename = (title: unknown, headers: Record<string, string> = {}) =>
      target().fetch(`/hello/v1/session/${created.sessionId}`, { method: "PATCH", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ title }) });
    const renamed = await rename("  Refund for order 42  ");
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ ok: true, sessionId: created.sessionId, title: "Refund for order 42" });
    const listed = (await (await target().fetch("/hello/v1/sessions")).json()) as { sessions: Array<{ sessionId: string; title?: string }> };
    expect(listed.sessions.find((s) => s.sessionId === created.sessionId)?.title).toBe("Refund for order 42");
    for (const bad of ["", "   ", 42, "x".repeat(201)]) {
      const response = await rename(bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(await response.json()).toMatchObject({ ok: false });
    }
    const unknown = await target().fetch("/hello/v1/session/ses_doesnotexist", { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "x" }) });
    expect(unknown.status).toBe(404);
    const after = (await (await target().fetch("/hello/v1/sessions")).json()) as { sessions: Array<{ sessionId: string; title?: string }> };
    expect(after.sessions.find((s) => s.sessionId === created.sessionId)?.title).toBe("Refund for order 42");
  });
});
