/**
 * Parked approvals live in storage (docs/design/tools.md "Approvals"): they survive a crash and a
 * clean restart, the turn resumes from its stored conversation once resolved, and any host
 * sharing the store lists and resolves them, exactly once. In-process hosts over one storage
 * driver; the real-process restart is test/approvals-serve.test.ts.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as v from "valibot";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveNode } from "../adapters/node.ts";
import { loadProject } from "../loader/load-project.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHost } from "../src/host/host.ts";
import type { ConversationMessage, LanguageModelPort, ModelStepRequest, ModelStreamPart } from "../src/base/ports/model.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { ToolDefinition } from "../src/entries/tools.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import { type TestEvent, eventually, helloOptions, postJson, project, quietLogger, severable } from "./_harness.ts";
import { writeProject } from "./_workspace.ts";

const base = "/hello";
let runs: string[] = [];
beforeEach(() => {
  runs = [];
});

const tools: Record<string, ToolDefinition> = {
  danger: defineTool({
    description: "Deletes things; always needs approval",
    inputSchema: v.object({ what: v.string() }),
    needsApproval: true,
    execute(input) {
      runs.push(`danger:${input.what}`);
      return `deleted ${input.what}`;
    },
  }),
  pay: defineTool({
    description: "Pays; amounts over 100 need approval",
    inputSchema: v.object({ amount: v.number() }),
    needsApproval: (input) => input.amount > 100,
    execute(input) {
      runs.push(`pay:${input.amount}`);
      return { paid: input.amount };
    },
  }),
};

/** Requests the model received: the proof that every history it was sent was whole. */
let requests: ConversationMessage[][] = [];
beforeEach(() => {
  requests = [];
});

/**
 * A model whose first step calls three tools at once (one runs at once, two need approval) and
 * whose next step answers `finished`; it refuses a history with an unanswered call, as providers do.
 */
const threeCalls: LanguageModelPort = {
  id: "three-calls",
  async *stream(request: ModelStepRequest): AsyncIterable<ModelStreamPart> {
    requests.push([...request.messages]);
    const unanswered = openCalls(request.messages);
    if (unanswered.length > 0) throw new Error(`tool calls without results: ${unanswered.join(", ")}`);
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
    if (request.messages.at(-1)?.role === "user") {
      yield { type: "tool-call", toolCallId: "c_pay", toolName: "pay", input: { amount: 50 } };
      yield { type: "tool-call", toolCallId: "c_a", toolName: "danger", input: { what: "a" } };
      yield { type: "tool-call", toolCallId: "c_b", toolName: "danger", input: { what: "b" } };
      yield { type: "finish", finishReason: "tool_call", usage };
      return;
    }
    yield { type: "text-delta", delta: "finished" };
    yield { type: "finish", finishReason: "stop", usage };
  },
};

function openCalls(messages: readonly ConversationMessage[]): string[] {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") for (const part of message.content) if (part.type === "tool-call") open.add(part.toolCallId);
    if (message.role === "tool") for (const part of message.content) open.delete(part.toolCallId);
  }
  return [...open];
}

function options(storage: StorageDriver, extra: Partial<AgentHostOptions> = {}): AgentHostOptions {
  return helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage }], logger: quietLogger, ...extra });
}

const hosts: AgentHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close().catch(() => {})));
});

function start(storage: StorageDriver, extra: Partial<AgentHostOptions> = {}): AgentHost {
  const host = createHost(options(storage, extra));
  hosts.push(host);
  return host;
}

const toolLine = (name: string, input: unknown): string => `/tool ${name} ${JSON.stringify(input)}`;

interface Approval {
  callId: string;
  toolName: string;
  input: unknown;
  turnId: string;
  requestedAt: string;
}

/** The HTTP surface of one host. */
function client(host: AgentHost) {
  const c = {
    async create(message: string): Promise<string> {
      const response = await host.request(`${base}/v1/session`, postJson({ message }));
      expect(response.status).toBe(200);
      return ((await response.json()) as { sessionId: string }).sessionId;
    },
    async events(sessionId: string): Promise<TestEvent[]> {
      const response = await host.request(`${base}/v1/session/${sessionId}/events`);
      expect(response.status).toBe(200);
      return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
    },
    async list(sessionId: string): Promise<Approval[]> {
      const response = await host.request(`${base}/v1/session/${sessionId}/approvals`);
      expect(response.status).toBe(200);
      return ((await response.json()) as { approvals: Approval[] }).approvals;
    },
    resolve: (sessionId: string, callId: string, decision: string): Promise<Response> =>
      host.request(`${base}/v1/session/${sessionId}/approvals/${callId}`, postJson({ decision })),
    async status(sessionId: string): Promise<string | undefined> {
      const response = await host.request(`${base}/v1/sessions`);
      const { sessions } = (await response.json()) as { sessions: Array<{ sessionId: string; status: string }> };
      return sessions.find((s) => s.sessionId === sessionId)?.status;
    },
    until: (sessionId: string, done: (events: TestEvent[]) => boolean, what: string): Promise<TestEvent[]> =>
      eventually(async () => {
        const all = await c.events(sessionId);
        return done(all) ? all : undefined;
      }, 5000, what),
    /** Waits until `count` calls have been requested for approval; returns the last one's id. */
    async parked(sessionId: string, count = 1): Promise<string> {
      const events = await c.until(sessionId, (all) => all.filter((e) => e.type === "action.approval_requested").length >= count, "a parked call");
      return events.filter((e) => e.type === "action.approval_requested").at(-1)!.data["callId"] as string;
    },
    settled: (sessionId: string): Promise<TestEvent[]> =>
      c.until(sessionId, (all) => all.at(-1)?.type === "session.waiting", "session.waiting"),
  };
  return c;
}

const types = (events: TestEvent[]): string[] => events.map((e) => e.type);

/** The model history as stored, for checking no call is left without its result. */
async function storedConversation(storage: StorageDriver, sessionId: string): Promise<ConversationMessage[]> {
  const messages: ConversationMessage[] = [];
  for await (const batch of storage.read(`sessions/${sessionId}/conversation`)) {
    for (const line of batch) messages.push(JSON.parse(line) as ConversationMessage);
  }
  return messages;
}

describe("parked approvals across a crash", () => {
  it("stay parked: listed after the restart, the session still running, and approving completes the turn", async () => {
    const storage = createMemoryStorage();
    const first = severable(storage);
    const crashed = client(start(first.driver));
    const sessionId = await crashed.create(toolLine("danger", { what: "prod" }));
    const callId = await crashed.parked(sessionId);
    const parkedEvents = await crashed.events(sessionId);
    const turnId = parkedEvents.find((e) => e.type === "turn.started")!.turnId!;
    first.sever();

    const restarted = client(start(storage));
    expect(await restarted.list(sessionId)).toEqual([{ callId, toolName: "danger", input: { what: "prod" }, turnId, requestedAt: expect.any(String) }]);
    // Recovery left it as a live parked turn shows it: nothing appended, still running.
    expect(await restarted.events(sessionId)).toEqual(parkedEvents);
    expect(await restarted.status(sessionId)).toBe("running");
    expect(runs).toEqual([]);

    const response = await restarted.resolve(sessionId, callId, "approve");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, sessionId, callId, decision: "approve" });
    const events = await restarted.settled(sessionId);
    const tail = events.slice(parkedEvents.length);
    expect(types(tail)).toEqual([
      "action.approval_resolved",
      "action.result",
      "step.started",
      "message.appended",
      "message.completed",
      "step.completed",
      "turn.completed",
      "session.waiting",
    ]);
    expect(tail.every((e) => e.type === "session.waiting" || e.turnId === turnId)).toBe(true);
    expect(tail[0]!.data).toEqual({ callId, decision: "approve" });
    expect(tail[1]!.data).toEqual({ toolCallId: callId, toolName: "danger", output: "deleted prod", isError: false });
    // The step after the parked one continues the numbering.
    expect(tail[2]!.data).toEqual({ stepIndex: 1 });
    expect(tail.find((e) => e.type === "message.completed")!.data["text"]).toBe("done");
    expect(events.map((e) => e.index)).toEqual(events.map((_, i) => i));
    expect(runs).toEqual(["danger:prod"]);
    expect(await restarted.list(sessionId)).toEqual([]);
    expect(await restarted.status(sessionId)).toBe("idle");
    expect((await restarted.resolve(sessionId, callId, "approve")).status).toBe(409);
    // The stored history answers the call with the tool's real result.
    const history = await storedConversation(storage, sessionId);
    expect(openCalls(history)).toEqual([]);
    const results = history.flatMap((m) => (m.role === "tool" ? m.content : []));
    expect(results).toEqual([{ type: "tool-result", toolCallId: callId, toolName: "danger", output: { type: "text", value: "deleted prod" } }]);
  });

  it("a decision made after the crash and before the restart is taken up on start; deny returns denied to the model", async () => {
    const storage = createMemoryStorage();
    const first = severable(storage);
    const crashed = client(start(first.driver));
    const sessionId = await crashed.create(`${toolLine("danger", { what: "x" })}\n/reply carried on`);
    const callId = await crashed.parked(sessionId);
    first.sever();
    // Another process sharing the store (no restart yet) records the decision.
    const other = client(start(storage, { recoverOnStart: false }));
    expect((await other.resolve(sessionId, callId, "deny")).status).toBe(200);
    expect((await other.resolve(sessionId, callId, "approve")).status).toBe(409);

    const restarted = client(start(storage));
    const events = await restarted.settled(sessionId);
    expect(events.filter((e) => e.type === "action.approval_resolved").map((e) => e.data)).toEqual([{ callId, decision: "deny" }]);
    expect(events.find((e) => e.type === "action.result")!.data).toMatchObject({ toolCallId: callId, output: "denied", isError: true });
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("carried on");
    expect(types(events).slice(-2)).toEqual(["turn.completed", "session.waiting"]);
    expect(runs).toEqual([]);
  });

  it("a step with several calls: recorded results are kept, each gated call parks in turn, the model gets a whole history", async () => {
    const storage = createMemoryStorage();
    const first = severable(storage);
    const models = { resolve: () => threeCalls };
    const crashed = client(start(first.driver, { models }));
    const sessionId = await crashed.create("go");
    const firstCall = await crashed.parked(sessionId);
    expect(firstCall).toBe("c_a");
    expect(runs).toEqual(["pay:50"]);
    first.sever();

    const restarted = client(start(storage, { models }));
    expect((await restarted.list(sessionId)).map((a) => a.callId)).toEqual(["c_a"]);
    expect((await restarted.resolve(sessionId, "c_a", "approve")).status).toBe(200);
    expect(await restarted.parked(sessionId, 2)).toBe("c_b");
    expect((await restarted.list(sessionId)).map((a) => a.callId)).toEqual(["c_b"]);
    expect((await restarted.resolve(sessionId, "c_b", "approve")).status).toBe(200);
    const events = await restarted.settled(sessionId);
    // The call that ran before the crash did not run again.
    expect(runs).toEqual(["pay:50", "danger:a", "danger:b"]);
    expect(events.filter((e) => e.type === "action.result").map((e) => e.data["toolCallId"])).toEqual(["c_pay", "c_a", "c_b"]);
    expect(types(events)).toContain("turn.completed");
    expect(types(events)).not.toContain("turn.failed");
    expect(events.filter((e) => e.type === "actions.requested")).toHaveLength(1);
    const last = requests.at(-1)!;
    expect(openCalls(last)).toEqual([]);
    expect(last.at(-1)).toEqual({
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "c_pay", toolName: "pay", output: { type: "json", value: { paid: 50 } } },
        { type: "tool-result", toolCallId: "c_a", toolName: "danger", output: { type: "text", value: "deleted a" } },
        { type: "tool-result", toolCallId: "c_b", toolName: "danger", output: { type: "text", value: "deleted b" } },
      ],
    });
  });

  it("a message queued behind the parked turn when the process died fails with host restarted; the parked turn resumes", async () => {
    const storage = createMemoryStorage();
    const first = severable(storage);
    const crashed = client(start(first.driver));
    const sessionId = await crashed.create(toolLine("danger", { what: "q" }));
    const callId = await crashed.parked(sessionId);
    const parkedEvents = await crashed.events(sessionId);
    const parkedTurn = parkedEvents.find((e) => e.type === "turn.started")!.turnId;
    // A coalesced follow-up: accepted (its event is stored), queued only in the dead process's memory.
    const queued = { type: "message.received", index: parkedEvents.length, sessionId, turnId: "turn_queuedbehind", at: new Date().toISOString(), data: { text: "later" } };
    await storage.append(`sessions/${sessionId}/events`, [JSON.stringify(queued)], parkedEvents.length);
    first.sever();

    const restarted = client(start(storage));
    const after = await restarted.events(sessionId);
    expect(after.slice(parkedEvents.length).map((e) => [e.type, e.turnId, e.data])).toEqual([
      ["message.received", "turn_queuedbehind", { text: "later" }],
      ["turn.failed", "turn_queuedbehind", { message: "host restarted" }],
    ]);
    expect((await restarted.list(sessionId)).map((a) => a.callId)).toEqual([callId]);
    expect(await restarted.status(sessionId)).toBe("running");
    expect((await restarted.resolve(sessionId, callId, "approve")).status).toBe(200);
    const events = await restarted.settled(sessionId);
    expect(events.filter((e) => e.type === "turn.completed").map((e) => e.turnId)).toEqual([parkedTurn]);
    expect(events.filter((e) => e.type === "session.waiting")).toHaveLength(1);
    expect(runs).toEqual(["danger:q"]);
  });

  it("stop on a resumed parked turn ends it as it would before the restart", async () => {
    const storage = createMemoryStorage();
    const first = severable(storage);
    const crashed = client(start(first.driver));
    const sessionId = await crashed.create(toolLine("danger", { what: "x" }));
    const callId = await crashed.parked(sessionId);
    first.sever();

    const host = start(storage);
    const restarted = client(host);
    expect(await restarted.list(sessionId)).toHaveLength(1);
    const stop = await host.request(`${base}/v1/session/${sessionId}/stop`, { method: "POST" });
    expect(await stop.json()).toEqual({ ok: true, stopped: true });
    const events = await restarted.settled(sessionId);
    expect(types(events).slice(-3)).toEqual(["action.result", "turn.failed", "session.waiting"]);
    expect(events.at(-2)!.data).toEqual({ message: "turn interrupted" });
    expect(events.at(-3)!.data).toMatchObject({ toolCallId: callId, output: "turn interrupted", isError: true });
    expect(await restarted.list(sessionId)).toEqual([]);
    const late = await restarted.resolve(sessionId, callId, "approve");
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: string }).error).toBe("approval_already_resolved");
    expect(await restarted.status(sessionId)).toBe("idle");
    expect(openCalls(await storedConversation(storage, sessionId))).toEqual([]);
    expect(runs).toEqual([]);
  });
});

describe("parked approvals across a clean restart", () => {
  it("closing the host leaves the call parked without waiting for the drain; the next start resumes it", async () => {
    const storage = createMemoryStorage();
    const before = start(storage, { drainTimeoutMs: 10_000 });
    const first = client(before);
    const sessionId = await first.create(toolLine("danger", { what: "y" }));
    const callId = await first.parked(sessionId);
    const parkedEvents = await first.events(sessionId);
    // A dev reload waits for running turns only (docs/design/dev-reload.md): a parked one is not.
    expect(before.runningTurns()).toBe(0);
    const closedAt = Date.now();
    await before.close();
    // A parked call waits for a human, not for the drain timeout.
    expect(Date.now() - closedAt).toBeLessThan(5_000);

    const after = client(start(storage));
    expect(await after.events(sessionId)).toEqual(parkedEvents);
    expect((await after.list(sessionId)).map((a) => a.callId)).toEqual([callId]);
    expect(await after.status(sessionId)).toBe("running");
    expect((await after.resolve(sessionId, callId, "approve")).status).toBe(200);
    const events = await after.settled(sessionId);
    expect(events.find((e) => e.type === "action.result")!.data).toMatchObject({ output: "deleted y", isError: false });
    expect(types(events)).not.toContain("turn.failed");
    expect(runs).toEqual(["danger:y"]);
  });
});

describe("parked approvals across hosts sharing one store", () => {
  it("parked on B, listed and approved on A: B's turn continues", async () => {
    const storage = createMemoryStorage();
    const a = client(start(storage));
    const hostB = start(storage);
    const b = client(hostB);
    await hostB.ready?.();
    const sessionId = await b.create(toolLine("danger", { what: "shared" }));
    const callId = await b.parked(sessionId);
    expect((await a.list(sessionId)).map((x) => x.callId)).toEqual([callId]);
    expect((await a.resolve(sessionId, callId, "approve")).status).toBe(200);
    const events = await b.settled(sessionId);
    expect(events.find((e) => e.type === "action.result")!.data).toMatchObject({ output: "deleted shared", isError: false });
    expect(types(events).slice(-2)).toEqual(["turn.completed", "session.waiting"]);
    expect(runs).toEqual(["danger:shared"]);
    expect(await a.list(sessionId)).toEqual([]);
  });

  it("two hosts resolving at once: one 200, one 409 approval_already_resolved, one decision applied", async () => {
    const storage = createMemoryStorage();
    const a = client(start(storage));
    const b = client(start(storage));
    for (let round = 0; round < 5; round++) {
      runs = [];
      const sessionId = await b.create(toolLine("danger", { what: `race${round}` }));
      const callId = await b.parked(sessionId);
      const responses = await Promise.all([a.resolve(sessionId, callId, "approve"), b.resolve(sessionId, callId, "deny")]);
      const statuses = responses.map((r) => r.status);
      expect([...statuses].sort()).toEqual([200, 409]);
      const loser = (await responses[statuses.indexOf(409)]!.json()) as { ok: boolean; error: string };
      expect(loser).toMatchObject({ ok: false, error: "approval_already_resolved" });
      const decision = ((await responses[statuses.indexOf(200)]!.json()) as { decision: string }).decision;
      const events = await b.settled(sessionId);
      expect(events.filter((e) => e.type === "action.approval_resolved").map((e) => e.data)).toEqual([{ callId, decision }]);
      expect(runs).toEqual(decision === "approve" ? [`danger:race${round}`] : []);
    }
  });

  it("a call parked by a host that closed is resumed by the host that resolves it", async () => {
    const storage = createMemoryStorage();
    const hostA = start(storage);
    const a = client(hostA);
    const hostB = start(storage);
    const b = client(hostB);
    // The session starts on A, so A has written its log before B runs the parked turn.
    const createdOnA = await hostA.request(`${base}/v1/session`, postJson({ message: "/reply hi" }));
    const { sessionId, continuationToken } = (await createdOnA.json()) as { sessionId: string; continuationToken: string };
    await a.settled(sessionId);
    const followUp = await hostB.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: toolLine("danger", { what: "orphan" }) }));
    expect(followUp.status).toBe(200);
    const callId = await b.parked(sessionId);
    await hostB.close();
    // No restart: A, already running, takes the turn over when the decision lands.
    expect((await a.list(sessionId)).map((x) => x.callId)).toEqual([callId]);
    expect((await a.resolve(sessionId, callId, "approve")).status).toBe(200);
    const events = await a.settled(sessionId);
    expect(events.find((e) => e.type === "action.result")!.data).toMatchObject({ output: "deleted orphan", isError: false });
    expect(types(events).slice(-2)).toEqual(["turn.completed", "session.waiting"]);
    expect(runs).toEqual(["danger:orphan"]);
    expect(await a.status(sessionId)).toBe("idle");
  });

  it("stop on a host that does not run the parked turn (its host closed) ends it there", async () => {
    const storage = createMemoryStorage();
    const hostA = start(storage);
    const a = client(hostA);
    const hostB = start(storage);
    const b = client(hostB);
    const sessionId = await b.create(toolLine("danger", { what: "stopped" }));
    const callId = await b.parked(sessionId);
    await hostB.close();
    const stop = await hostA.request(`${base}/v1/session/${sessionId}/stop`, { method: "POST" });
    expect(await stop.json()).toEqual({ ok: true, stopped: true });
    const events = await a.settled(sessionId);
    expect(types(events).slice(-3)).toEqual(["action.result", "turn.failed", "session.waiting"]);
    expect(events.at(-3)!.data).toMatchObject({ toolCallId: callId, output: "turn interrupted", isError: true });
    expect(events.at(-2)!.data).toEqual({ message: "turn interrupted" });
    expect(types(events)).not.toContain("action.approval_resolved");
    expect(openCalls(await storedConversation(storage, sessionId))).toEqual([]);
    expect(await a.list(sessionId)).toEqual([]);
    expect((await a.resolve(sessionId, callId, "approve")).status).toBe(409);
    expect(await a.status(sessionId)).toBe("idle");
    // Nothing left to stop.
    expect(await (await hostA.request(`${base}/v1/session/${sessionId}/stop`, { method: "POST" })).json()).toEqual({ ok: true, stopped: false });
    expect(runs).toEqual([]);
  });

  it("a follow-up on a host that does not run the parked turn (its host closed) preempts it there", async () => {
    const storage = createMemoryStorage();
    const hostA = start(storage);
    const a = client(hostA);
    const hostB = start(storage);
    const b = client(hostB);
    const createdOnB = await hostB.request(`${base}/v1/session`, postJson({ message: toolLine("danger", { what: "preempted" }) }));
    const { sessionId, continuationToken } = (await createdOnB.json()) as { sessionId: string; continuationToken: string };
    const callId = await b.parked(sessionId);
    const parkedTurn = (await b.events(sessionId)).find((e) => e.type === "turn.started")!.turnId;
    await hostB.close();
    const followUp = await hostA.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "/reply instead" }));
    expect(followUp.status).toBe(200);
    const events = await a.settled(sessionId);
    expect(events.filter((e) => e.type === "turn.failed").map((e) => [e.turnId, e.data])).toEqual([[parkedTurn, { message: "turn interrupted" }]]);
    expect(events.filter((e) => e.type === "turn.completed")).toHaveLength(1);
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("instead");
    expect(await a.list(sessionId)).toEqual([]);
    expect((await a.resolve(sessionId, callId, "approve")).status).toBe(409);
    expect(openCalls(await storedConversation(storage, sessionId))).toEqual([]);
    expect(runs).toEqual([]);
  });

  it("removing a session removes its parked calls", async () => {
    const storage = createMemoryStorage();
    const host = start(storage);
    const c = client(host);
    const sessionId = await c.create(toolLine("danger", { what: "gone" }));
    await c.parked(sessionId);
    expect(await storage.list(`approvals/${sessionId}/`)).toHaveLength(1);
    const removed = await host.request(`${base}/v1/session/${sessionId}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(await storage.list(`approvals/${sessionId}/`)).toEqual([]);
    expect(await storage.hasLog(`approvals/${sessionId}/decisions`)).toBe(false);
    expect(runs).toEqual([]);
  });
});

describe("MCP across a restart", () => {
  it("check reports awaiting_approval after the restart, and the reply once approved", async () => {
    const storage = createMemoryStorage();
    const first = severable(storage);
    const crashedHost = start(first.driver);
    const crashedServer = await serveNode(crashedHost, { port: 0, silent: true });
    const ask = await mcpClient(crashedServer.url);
    const asked = (await ask.callTool({ name: "ask", arguments: { message: `${toolLine("danger", { what: "mcp" })}\n/reply cleaned up`, waitSeconds: 10 } }))
      .structuredContent as { status: string; sessionId: string; approvals: Array<{ callId: string }> };
    expect(asked).toMatchObject({ status: "awaiting_approval", approvals: [{ toolName: "danger", input: { what: "mcp" } }] });
    await ask.close();
    first.sever();
    await crashedServer.close(true);

    const host = start(storage);
    const server = await serveNode(host, { port: 0, silent: true });
    try {
      const check = await mcpClient(server.url);
      const before = (await check.callTool({ name: "check", arguments: { sessionId: asked.sessionId } })).structuredContent;
      expect(before).toMatchObject({ status: "awaiting_approval", approvals: asked.approvals });
      const callId = asked.approvals[0]!.callId;
      expect((await client(host).resolve(asked.sessionId, callId, "approve")).status).toBe(200);
      const after = (await check.callTool({ name: "check", arguments: { sessionId: asked.sessionId, waitSeconds: 10 } })).structuredContent;
      expect(after).toMatchObject({ status: "waiting", reply: "cleaned up" });
      expect(runs).toEqual(["danger:mcp"]);
      await check.close();
    } finally {
      await server.close(true);
    }
  });
});

async function mcpClient(serverUrl: string): Promise<Client> {
  const mcp = new Client({ name: "approvals-durable", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${serverUrl.replace(/\/$/, "")}/hello/v1/mcp`)));
  return mcp;
}

describe("a call parked inside a subagent", () => {
  it("after a crash the subagent runs again from its prompt: the old call closes, the new one parks, approving it completes the turn", async () => {
    const root = writeProject({
      "package.json": JSON.stringify({ name: "parent", type: "module" }),
      "bot/agent.ts": `export default { model: "scripted" };\n`,
      "bot/instructions.md": "You are the parent.\n",
      "bot/tools/danger.ts": `export default { description: "Deletes things", needsApproval: true, execute: (input) => "deleted " + input.what };\n`,
      "bot/subagents/helper/agent.ts": `export default { description: "Helps" };\n`,
      "bot/subagents/helper/instructions.md": "You help.\n",
    });
    const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-approvals-sub-"));
    try {
      const loaded = await loadProject(root);
      expect(loaded.diagnostics).toEqual([]);
      const storage = createMemoryStorage();
      const first = severable(storage);
      const mount = (driver: StorageDriver): AgentHost => {
        const host = createHost({ agents: [{ slug: "hello", project: loaded, storage: driver, runtime: createLocalRuntime({ stateRoot }) }], logger: quietLogger, drainTimeoutMs: 50 });
        hosts.push(host);
        return host;
      };
      const crashed = client(mount(first.driver));
      const prompt = `${toolLine("danger", { what: "inner" })}\n/reply sub done`;
      const sessionId = await crashed.create(`${toolLine("task", { subagent: "helper", prompt })}\n/reply parent done`);
      const oldCall = await crashed.parked(sessionId);
      first.sever();

      const restarted = client(mount(storage));
      const newCall = await restarted.parked(sessionId, 2);
      expect(newCall).not.toBe(oldCall);
      expect((await restarted.list(sessionId)).map((a) => a.callId)).toEqual([newCall]);
      expect((await restarted.resolve(sessionId, oldCall, "approve")).status).toBe(409);
      expect((await restarted.resolve(sessionId, newCall, "approve")).status).toBe(200);
      const events = await restarted.settled(sessionId);
      expect(events.find((e) => e.type === "subagent.completed")!.data).toMatchObject({ subagent: "helper", isError: false, result: "sub done" });
      expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("parent done");
      expect(types(events).slice(-2)).toEqual(["turn.completed", "session.waiting"]);
      expect(await restarted.list(sessionId)).toEqual([]);
      expect(openCalls(await storedConversation(storage, sessionId))).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    }
  });
});
