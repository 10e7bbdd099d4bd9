/**
 * `POST /v1/tools/:toolName` (docs/design/tools.md "Direct calls"), in-process and over a real
 * loopback server: scratch and session workspaces, recording on the session stream, serialization
 * with turns, errors, and the outcome envelope.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createLocalRuntime } from "../loader/runtime.ts";
import { bearerAuth } from "../src/entries/channels.ts";
import type { AuthContext } from "../src/base/auth.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { ToolDefinition } from "../src/entries/tools.ts";
import type { AgentHostOptions } from "../src/host/types.ts";
import { run, scratchDir } from "./_cli-io.ts";
import { type HostUnderTest, type TestEvent, describeHost, eventually, helloOptions, postJson, project } from "./_harness.ts";
import { tempProjects } from "./_temp-projects.ts";

const base = "/hello";
const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-tools-route-"));
afterAll(() => rmSync(stateRoot, { recursive: true, force: true }));

const principals: Record<string, AuthContext> = {
  alice: { authenticator: "test", principalId: "alice", principalType: "user" },
  bob: { authenticator: "test", principalId: "bob", principalType: "user" },
};
const auth = (who: string): Record<string, string> => ({ authorization: `Bearer ${who}` });

/** What tool bodies did, in order: proves a body ran or did not. */
let runs: string[] = [];
/** The scratch directory a throwing tool saw (it cannot return it). */
let lastScratch: string | undefined;
/** Holds the `hold` tool until released. */
let gate = deferred();
beforeEach(() => {
  runs = [];
  lastScratch = undefined;
  gate = deferred();
});

const tools: Record<string, ToolDefinition> = {
  weather: defineTool({
    description: "Weather for a city",
    inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(1)), days: v.optional(v.pipe(v.string(), v.transform(Number)), "3") }),
    execute(input, ctx) {
      runs.push(`weather:${input.city}`);
      return { city: input.city, days: input.days, daysType: typeof input.days, toolCallId: ctx.toolCallId, session: ctx.session };
    },
  }),
  raw: defineTool({
    description: "Plain JSON Schema: input arrives raw",
    inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false },
    execute(input) {
      runs.push("raw");
      return { received: input };
    },
  }),
  scratch: defineTool({
    description: "Writes a file into its workspace",
    execute(_input, ctx) {
      const dir = ctx.workspaceDir!;
      writeFileSync(join(dir, "note.txt"), "scratch");
      return { dir, wrote: existsSync(join(dir, "note.txt")), session: ctx.session };
    },
  }),
  scratch_boom: defineTool({
    description: "Writes into its workspace, then throws",
    execute(_input, ctx) {
      lastScratch = ctx.workspaceDir;
      writeFileSync(join(ctx.workspaceDir!, "note.txt"), "scratch");
      throw new Error("after writing");
    },
  }),
  notes: defineTool({
    description: "Appends a line to notes.txt in the session workspace",
    inputSchema: v.object({ line: v.string() }),
    execute(input, ctx) {
      const file = join(ctx.workspaceDir!, "notes.txt");
      appendFileSync(file, `${input.line}\n`);
      return { dir: ctx.workspaceDir, lines: readFileSync(file, "utf8").trim().split("\n"), session: ctx.session };
    },
  }),
  text: defineTool({ description: "A string result", execute: () => "plain text, verbatim" }),
  json: defineTool({ description: "A JSON result", execute: () => ({ when: new Date(0), big: 12n, list: [1, "two", null], gone: undefined }) }),
  nothing: defineTool({ description: "Returns nothing", execute: () => undefined }),
  envelope: defineTool({ description: "An envelope result", execute: () => ({ content: [{ type: "text", text: "hi" }] }) }),
  envelope_error: defineTool({ description: "An error envelope", execute: () => ({ content: [{ type: "text", text: "nope" }], isError: true }) }),
  boom: defineTool({
    description: "Throws",
    execute() {
      runs.push("boom");
      throw new Error("kaput");
    },
  }),
  hold: defineTool({
    description: "Waits until the test releases it",
    async execute() {
      runs.push("hold");
      gate.enter();
      await gate.released;
      return "released";
    },
  }),
  gated: defineTool({
    description: "Needs approval when the model calls it",
    needsApproval: true,
    execute() {
      runs.push("gated");
      return "ran";
    },
  }),
  shell: defineTool({ description: "Runs where the agent runs", execution: "agent", script: "cat" }),
  tagger: defineTool({
    description: "Tags an artifact through its context",
    async execute(_input, ctx) {
      const record = await ctx.artifacts.tag({ kind: "note", key: "k", title: "Note", data: null });
      return { sessionId: record.sessionId, turnId: record.turnId ?? null };
    },
  }),
};

function options(overrides: Partial<AgentHostOptions> = {}): AgentHostOptions {
  return helloOptions({
    agents: [{ slug: "hello", project: project({ tools }), storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot }) }],
    auth: { policies: [bearerAuth((token) => principals[token] ?? null)] },
    ...overrides,
  });
}

interface Outcome {
  ok: boolean;
  toolName: string;
  callId: string;
  isError: boolean;
  result: unknown;
  durationMs: number;
}

interface Helpers {
  call(toolName: string, body: unknown, who?: string): Promise<Response>;
  ok(toolName: string, body: unknown, who?: string): Promise<Outcome>;
  start(message: string, who?: string): Promise<{ sessionId: string; continuationToken: string }>;
  events(sessionId: string, who?: string): Promise<TestEvent[]>;
  waitFor(sessionId: string, type: string, who?: string): Promise<TestEvent[]>;
}

function helpers(target: () => HostUnderTest): Helpers {
  const h: Helpers = {
    call: (toolName, body, who = "alice") => target().fetch(`${base}/v1/tools/${toolName}`, postJson(body, auth(who))),
    async ok(toolName, body, who) {
      const response = await h.call(toolName, body, who);
      expect(response.status).toBe(200);
      return (await response.json()) as Outcome;
    },
    async start(message, who = "alice") {
      const response = await target().fetch(`${base}/v1/session`, postJson({ message }, auth(who)));
      expect(response.status).toBe(200);
      return (await response.json()) as { sessionId: string; continuationToken: string };
    },
    async events(sessionId, who = "alice") {
      const response = await target().fetch(`${base}/v1/session/${sessionId}/events`, { headers: auth(who) });
      expect(response.status).toBe(200);
      return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
    },
    waitFor: (sessionId, type, who) =>
      eventually(async () => {
        const all = await h.events(sessionId, who);
        return all.some((e) => e.type === type) ? all : undefined;
      }, 5000, `${type} on ${sessionId}`),
  };
  return h;
}

async function errorOf(response: Response, status: number): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body["ok"]).toBe(false);
  return body;
}

describeHost("tool route", () => options(), (target) => {
  const h = helpers(target);

  it("runs without a session: validated and transformed input, the outcome envelope, no session created (rules 1, 2)", async () => {
    const started = Date.now();
    const outcome = await h.ok("weather", { input: { city: "Oslo", days: "5" } });
    expect(Object.keys(outcome).sort()).toEqual(["callId", "durationMs", "isError", "ok", "result", "toolName"]);
    expect(outcome).toMatchObject({ ok: true, toolName: "weather", isError: false });
    expect(outcome.callId).toMatch(/^tool_weather_[A-Za-z0-9]{16}$/);
    // Its session is a scratch one: a fresh id naming no stored session, the http channel, the caller.
    const scratchView = { id: expect.stringMatching(/^scratch_[A-Za-z0-9]{16}$/), channel: "http", mode: "task", auth: principals["alice"] };
    expect(outcome.result).toEqual({ city: "Oslo", days: 5, daysType: "number", toolCallId: outcome.callId, session: scratchView });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    expect(outcome.durationMs).toBeLessThanOrEqual(Date.now() - started);
    // Defaults of the schema apply as for a model call.
    expect((await h.ok("weather", { input: { city: "Rome" } })).result).toMatchObject({ days: 3, daysType: "number" });
    const second = await h.ok("weather", { input: { city: "Oslo" } }, "bob");
    expect(second.callId).not.toBe(outcome.callId);
    expect((second.result as { session: { id: string } }).session).toEqual({ ...scratchView, auth: principals["bob"] });
    expect((second.result as { session: { id: string } }).session.id).not.toBe((outcome.result as { session: { id: string } }).session.id);
    expect(runs).toEqual(["weather:Oslo", "weather:Rome", "weather:Oslo"]);
    // No model turn, no session: the call left nothing behind in the session list.
    const list = await target().fetch(`${base}/v1/sessions`, { headers: auth("alice") });
    expect(await list.json()).toEqual({ sessions: [], nextCursor: null });
  });

  it("gives a session-less call a fresh scratch workspace that is gone when the call returns (rule 2)", async () => {
    const first = await h.ok("scratch", {});
    const second = await h.ok("scratch", { input: {} });
    const a = first.result as { dir: string; wrote: boolean; session: unknown };
    const b = second.result as { dir: string; wrote: boolean; session: unknown };
    expect(a).toMatchObject({ wrote: true, session: { channel: "http", mode: "task" } });
    expect(b.wrote).toBe(true);
    expect(a.dir).not.toBe(b.dir);
    expect(a.dir.startsWith(stateRoot)).toBe(false);
    expect(existsSync(a.dir)).toBe(false);
    expect(existsSync(b.dir)).toBe(false);
    // Also when the tool throws after writing.
    const failed = await h.ok("scratch_boom", {});
    expect(failed).toMatchObject({ ok: true, isError: true });
    expect(lastScratch).toBeDefined();
    expect(existsSync(lastScratch!)).toBe(false);
  });

  it("runs inside a session: its workspace, its view, recorded under a per-call turnId (rule 3)", async () => {
    const { sessionId } = await h.start("hi");
    const before = await h.waitFor(sessionId, "session.waiting");
    const modelTurn = before.find((e) => e.type === "turn.started")!.turnId;

    const first = await h.ok("notes", { input: { line: "a" }, sessionId });
    const second = await h.ok("notes", { input: { line: "b" }, sessionId });
    const dir = join(stateRoot, "workspaces", sessionId);
    expect(first.result).toEqual({
      dir,
      lines: ["a"],
      session: { id: sessionId, channel: "http", mode: "chat", auth: principals["alice"] },
    });
    expect(second.result).toMatchObject({ dir, lines: ["a", "b"] });
    expect(existsSync(join(dir, "notes.txt"))).toBe(true);

    const transformed = await h.ok("weather", { input: { city: "Oslo", days: "7" }, sessionId });
    expect(transformed.result).toMatchObject({ days: 7, toolCallId: transformed.callId, session: { id: sessionId } });

    const events = await h.events(sessionId);
    const added = events.slice(before.length);
    expect(added.map((e) => e.type)).toEqual(["actions.requested", "action.result", "actions.requested", "action.result", "actions.requested", "action.result"]);
    const outcomes = [first, second, transformed];
    const inputs = [{ line: "a" }, { line: "b" }, { city: "Oslo", days: 7 }];
    const turnIds = new Set<string>();
    outcomes.forEach((outcome, i) => {
      const [requested, result] = [added[2 * i]!, added[2 * i + 1]!];
      expect(requested.turnId).toMatch(/^turn_/);
      expect(result.turnId).toBe(requested.turnId);
      expect(requested.turnId).not.toBe(modelTurn);
      turnIds.add(requested.turnId!);
      expect(requested.data).toEqual({ actions: [{ toolCallId: outcome.callId, toolName: outcome.toolName, input: inputs[i] }] });
      expect(result.data).toEqual({ toolCallId: outcome.callId, toolName: outcome.toolName, output: outcome.result, isError: false });
    });
    expect(turnIds.size).toBe(3);
    // A direct call is not a model turn: no turn lifecycle events and no new turn in the session.
    expect(added.some((e) => e.type.startsWith("turn.") || e.type.startsWith("session."))).toBe(false);
    const list = (await (await target().fetch(`${base}/v1/sessions`, { headers: auth("alice") })).json()) as {
      sessions: Array<{ sessionId: string; turnCount: number; status: string }>;
    };
    expect(list.sessions).toEqual([expect.objectContaining({ sessionId, turnCount: 1, status: "idle" })]);
  });

  it("records a throwing session-bound call as an error result and answers 200 (rules 3, 7)", async () => {
    const { sessionId } = await h.start("hi");
    const before = await h.waitFor(sessionId, "session.waiting");
    const outcome = await h.ok("boom", { input: {}, sessionId });
    expect(outcome).toMatchObject({ ok: true, toolName: "boom", isError: true, result: { content: [{ type: "text", text: "kaput" }] } });
    const added = (await h.events(sessionId)).slice(before.length);
    expect(added.map((e) => [e.type, e.data["isError"]])).toEqual([["actions.requested", undefined], ["action.result", true]]);
    expect(added[1]!.data["output"]).toEqual(outcome.result);
    // The session is still usable afterwards.
    expect((await h.ok("text", { sessionId })).isError).toBe(false);
  });

  it("binds ctx.artifacts to the session and the call's turnId; a session-less call has no session to tag for", async () => {
    const { sessionId } = await h.start("hi");
    const before = await h.waitFor(sessionId, "session.waiting");
    const outcome = await h.ok("tagger", { sessionId });
    const added = (await h.events(sessionId)).slice(before.length);
    expect(added.map((e) => e.type)).toEqual(["actions.requested", "artifact.tagged", "action.result"]);
    expect(new Set(added.map((e) => e.turnId)).size).toBe(1);
    expect(outcome).toMatchObject({ isError: false, result: { sessionId, turnId: added[0]!.turnId } });
    expect(added[1]!.data["artifact"]).toMatchObject({ kind: "note", key: "k", source: "host" });
    const loose = await h.ok("tagger", {});
    expect(loose.isError).toBe(true);
    expect(JSON.stringify(loose.result)).toMatch(/sessionId/);
  });

  it("answers 404 with the tool names for an unknown tool (rule 4)", async () => {
    const body = await errorOf(await h.call("nope", { input: {} }), 404);
    expect(body["error"]).toBe("tool_not_found");
    expect(body["tools"]).toEqual(Object.keys(tools).sort());
    // Inherited object members are not tools either.
    expect((await errorOf(await h.call("constructor", { input: {} }), 404))["error"]).toBe("tool_not_found");
    expect((await errorOf(await h.call("toString", {}), 404))["error"]).toBe("tool_not_found");
  });

  it("refuses an agent-execution tool with 400 (rule 5)", async () => {
    const body = await errorOf(await h.call("shell", { input: { a: 1 } }), 400);
    expect(body["error"]).toBe("agent_tool_not_callable");
    const { sessionId } = await h.start("hi");
    const before = await h.waitFor(sessionId, "session.waiting");
    expect((await errorOf(await h.call("shell", { input: {}, sessionId }), 400))["error"]).toBe("agent_tool_not_callable");
    expect(await h.events(sessionId)).toHaveLength(before.length);
  });

  it("refuses schema-invalid input with 400 before the body runs; plain JSON Schema input arrives raw (rule 6)", async () => {
    for (const input of [{ city: "" }, { days: "2" }, { city: 42 }, "Oslo", null, undefined]) {
      const body = await errorOf(await h.call("weather", input === undefined ? {} : { input }), 400);
      expect(body["error"], JSON.stringify(input)).toBe("invalid_request");
      expect(Array.isArray(body["issues"])).toBe(true);
      expect((body["issues"] as unknown[]).length).toBeGreaterThan(0);
    }
    expect((await errorOf(await h.call("weather", { input: { city: "" } }), 400))["issues"]).toEqual([
      expect.objectContaining({ path: "city" }),
    ]);
    // Session-bound: still 400, and nothing is recorded on the session.
    const { sessionId } = await h.start("hi");
    const before = await h.waitFor(sessionId, "session.waiting");
    await errorOf(await h.call("weather", { input: { city: "" }, sessionId }), 400);
    expect(await h.events(sessionId)).toHaveLength(before.length);
    expect(runs).toEqual([]);

    // The plain JSON Schema is not enforced: whatever was sent reaches the body as is.
    const raw = { n: "not a number", extra: [true, { deep: null }] };
    expect((await h.ok("raw", { input: raw })).result).toEqual({ received: raw });
    expect((await h.ok("raw", {})).result).toEqual({ received: {} });
    expect((await h.ok("raw", { input: [1, 2] })).result).toEqual({ received: [1, 2] });
    expect(runs).toEqual(["raw", "raw", "raw"]);
  });

  it("refuses a malformed request body with 400", async () => {
    const extra = await errorOf(await h.call("raw", { input: {}, extra: 1 }), 400);
    expect(extra["error"]).toBe("invalid_request");
    const notJson = await target().fetch(`${base}/v1/tools/raw`, { method: "POST", headers: { ...auth("alice"), "content-type": "application/json" }, body: "{nope" });
    expect((await errorOf(notJson, 400))["error"]).toBe("invalid_request");
    expect((await errorOf(await h.call("raw", { input: {}, sessionId: 7 }), 400))["error"]).toBe("invalid_request");
    expect(runs).toEqual([]);
  });

  it("turns a throwing tool into a 200 envelope with isError true (rule 7)", async () => {
    const outcome = await h.ok("boom", { input: {} });
    expect(outcome).toMatchObject({ ok: true, toolName: "boom", isError: true, result: { content: [{ type: "text", text: "kaput" }] } });
    expect(outcome.callId).toMatch(/^tool_boom_/);
    expect(runs).toEqual(["boom"]);
    // The server keeps serving.
    expect((await h.ok("text", {})).result).toBe("plain text, verbatim");
  });

  it("passes strings verbatim, serializes JSON values, and keeps envelopes", async () => {
    expect(await h.ok("text", {})).toMatchObject({ isError: false, result: "plain text, verbatim" });
    expect(await h.ok("json", {})).toMatchObject({ isError: false, result: { when: "1970-01-01T00:00:00.000Z", big: "12", list: [1, "two", null] } });
    expect(await h.ok("nothing", {})).toMatchObject({ isError: false, result: null });
    expect(await h.ok("envelope", {})).toMatchObject({ isError: false, result: { content: [{ type: "text", text: "hi" }] } });
    expect(await h.ok("envelope_error", {})).toMatchObject({ ok: true, isError: true, result: { content: [{ type: "text", text: "nope" }], isError: true } });
  });

  it("refuses a call its needsApproval gate holds: 403 approval_required, the body never runs", async () => {
    const response = await h.call("gated", { input: {} });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ ok: false, error: "approval_required", toolName: "gated" });
    expect(runs).toEqual([]);
  });

  it("refuses another principal's session with 403 and an unknown session with 404, without running the body", async () => {
    const { sessionId } = await h.start("hi", "alice");
    const before = await h.waitFor(sessionId, "session.waiting");
    expect((await errorOf(await h.call("weather", { input: { city: "Oslo" }, sessionId }, "bob"), 403))["error"]).toBe("forbidden");
    for (const unknown of ["ses_doesnotexist", "nope", "../ses_x", "ses_" + "a".repeat(90)]) {
      const body = await errorOf(await h.call("weather", { input: { city: "Oslo" }, sessionId: unknown }), 404);
      expect(body["error"], unknown).toBe("session_not_found");
    }
    expect(runs).toEqual([]);
    expect(await h.events(sessionId)).toHaveLength(before.length);
    // Unauthenticated callers never get as far as the tool.
    const anonymous = await target().fetch(`${base}/v1/tools/weather`, postJson({ input: { city: "Oslo" } }));
    expect((await errorOf(anonymous, 401))["error"]).toBe("unauthorized");
    expect(runs).toEqual([]);
  });
});

describeHost("tool route and busy sessions", () => options({ agents: [{ slug: "hello", project: project({ tools, agent: { concurrency: { maxRunningTurns: 1 } } }), storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot }) }] }), (target) => {
  const h = helpers(target);

  it("answers 409 session_busy while a turn runs or is queued, and runs once the session is idle (rule 3)", async () => {
    const running = await h.start("/sleep 2000\nslow");
    await h.waitFor(running.sessionId, "step.started");
    const queued = await h.start("queued");
    await h.waitFor(queued.sessionId, "turn.queued");
    const lengths = [(await h.events(running.sessionId)).length, (await h.events(queued.sessionId)).length];

    for (const sessionId of [running.sessionId, queued.sessionId]) {
      const body = await errorOf(await h.call("weather", { input: { city: "Oslo" }, sessionId }), 409);
      expect(body["error"], sessionId).toBe("session_busy");
    }
    expect(runs).toEqual([]);
    // Nothing was recorded for the refused calls (other events of the turns may have landed).
    for (const [i, sessionId] of [running.sessionId, queued.sessionId].entries()) {
      const events = await h.events(sessionId);
      expect(events.slice(lengths[i]).some((e) => e.type.startsWith("action"))).toBe(false);
    }
    // A session-less call does not wait for turns.
    expect((await h.ok("weather", { input: { city: "Free" } })).isError).toBe(false);

    const stop = await target().fetch(`${base}/v1/session/${running.sessionId}/stop`, { method: "POST", headers: auth("alice") });
    expect(await stop.json()).toEqual({ ok: true, stopped: true });
    await h.waitFor(queued.sessionId, "session.waiting");
    expect((await h.ok("weather", { input: { city: "Queued" }, sessionId: queued.sessionId })).isError).toBe(false);
    expect((await h.ok("weather", { input: { city: "Stopped" }, sessionId: running.sessionId })).isError).toBe(false);
    expect(runs).toEqual(["weather:Free", "weather:Queued", "weather:Stopped"]);
  });

  it("holds the session while a session-bound call runs: follow-ups and other calls get 409", async () => {
    const { sessionId, continuationToken } = await h.start("hi");
    await h.waitFor(sessionId, "session.waiting");
    const other = await h.start("other");
    await h.waitFor(other.sessionId, "session.waiting");

    const held = h.call("hold", { sessionId });
    await gate.entered;
    const follow = await target().fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "in between" }, auth("alice")));
    expect((await errorOf(follow, 409))["error"]).toBe("session_busy");
    expect((await errorOf(await h.call("text", { sessionId }), 409))["error"]).toBe("session_busy");
    // Other sessions and session-less calls are not held.
    expect((await h.ok("text", { sessionId: other.sessionId })).isError).toBe(false);
    expect((await h.ok("text", {})).isError).toBe(false);

    gate.release();
    const response = await held;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, toolName: "hold", isError: false, result: "released" });
    // Free again: the follow-up with the same token is accepted and runs a turn.
    const again = await target().fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "after" }, auth("alice")));
    expect(again.status).toBe(200);
    const events = await eventually(async () => {
      const all = await h.events(sessionId);
      return all.filter((e) => e.type === "session.waiting").length === 2 ? all : undefined;
    }, 5000, "the follow-up turn");
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("echo: after");
    // The held call's events sit between the two turns, never inside one.
    const types = events.map((e) => e.type);
    expect(types.indexOf("actions.requested")).toBeGreaterThan(types.indexOf("session.waiting"));
    expect(types.lastIndexOf("message.received")).toBeGreaterThan(types.indexOf("action.result"));
  });
});

describeHost(
  "tool route without a model",
  () => ({
    ...helloOptions({ agents: [{ slug: "hello", project: project({ tools, agent: { model: "openai/gpt-4o-mini" } }), storage: createMemoryStorage() }] }),
    models: {
      credentials: {},
      resolve: () => {
        modelResolutions++;
        throw new Error("no model credential");
      },
    },
  }),
  (target) => {
    it("needs no model and no credential (rule 1)", async () => {
      modelResolutions = 0;
      const response = await target().fetch(`${base}/v1/tools/weather`, postJson({ input: { city: "Oslo", days: "2" } }));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ok: true, isError: false, result: { city: "Oslo", days: 2 } });
      // Without a runtime there is no workspace, and the call still works.
      expect(await (await target().fetch(`${base}/v1/tools/text`, postJson({}))).json()).toMatchObject({ ok: true, result: "plain text, verbatim" });
      expect(modelResolutions).toBe(0);
      // The same host cannot run a model turn: the tool route is independent of it.
      const created = (await (await target().fetch(`${base}/v1/session`, postJson({ message: "hi" }))).json()) as { sessionId: string };
      const events = await eventually(async () => {
        const text = await (await target().fetch(`${base}/v1/session/${created.sessionId}/events`)).text();
        const all = text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
        return all.some((e) => e.type === "session.waiting") ? all : undefined;
      });
      expect(events.find((e) => e.type === "turn.failed")!.data["message"]).toMatch(/no model credential/);
      expect(modelResolutions).toBe(1);
      const bound = await target().fetch(`${base}/v1/tools/text`, postJson({ sessionId: created.sessionId }));
      expect(await bound.json()).toMatchObject({ ok: true, isError: false, result: "plain text, verbatim" });
      expect(modelResolutions).toBe(1);
    });
  },
);

describe("a project's tool reading ctx.session, called without a session (issue 34)", () => {
  const userProject = tempProjects("tools-route");
  const cli = scratchDir("tools-route-cli");
  afterAll(() => rmSync(cli.dir, { recursive: true, force: true }));

  it("agent-serve call runs it in a scratch session: no guard needed", async () => {
    const dir = userProject({
      "bot/tools/record_visit.ts": `import { defineTool } from "@cursor/bdk/tools";
import { z } from "zod";

export default defineTool({
  description: "Records a visit to a page",
  inputSchema: z.object({ page: z.string() }),
  async execute({ page }, ctx) {
    const visit = { page, sessionId: ctx.session.id, channel: ctx.session.channel, mode: ctx.session.mode, by: ctx.session.auth.principalId };
    await ctx.host.kv.put(\`visits/\${ctx.session.id}\`, visit);
    return visit;
  },
});
`,
    });
    const result = await run(["call", "record_visit", "--input", '{"page":"/pricing"}', "--json"], { env: cli.env, cwd: dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      ok: true,
      isError: false,
      result: { page: "/pricing", sessionId: expect.stringMatching(/^scratch_[A-Za-z0-9]{16}$/), channel: "http", mode: "task", by: expect.any(String) },
    });
  });
});

let modelResolutions = 0;

function deferred(): { entered: Promise<void>; enter(): void; released: Promise<void>; release(): void } {
  let enter!: () => void;
  let release!: () => void;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { entered, enter, released, release };
}
