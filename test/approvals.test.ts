/**
 * Approval-gated tool calls (docs/design/tools.md "Approvals"),
 * in-process and over a real loopback server: parking, listing, approve and deny, races, stop
 * and preempt while parked, ownership, and closing the host while parked (restarts and several
 * hosts: test/approvals-durable.test.ts).
 */
import * as v from "valibot";
import { beforeEach, expect, it } from "vitest";
import { bearerAuth } from "../src/entries/channels.ts";
import type { AuthContext } from "../src/base/auth.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { ToolDefinition } from "../src/entries/tools.ts";
import type { AgentHostOptions } from "../src/host/types.ts";
import { type HostUnderTest, type TestEvent, describeHost, eventually, helloOptions, postJson, project, readEvents } from "./_harness.ts";

const base = "/hello";

const principals: Record<string, AuthContext> = {
  alice: { authenticator: "test", principalId: "alice", principalType: "user" },
  bob: { authenticator: "test", principalId: "bob", principalType: "user" },
};
const auth = (who: string): Record<string, string> => ({ authorization: `Bearer ${who}` });

/** What tool bodies did, in order: proves a body ran or did not. */
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
    inputSchema: v.object({ amount: v.pipe(v.union([v.number(), v.string()]), v.transform(Number)) }),
    needsApproval: (input) => input.amount > 100,
    execute(input) {
      runs.push(`pay:${input.amount}`);
      return { paid: input.amount };
    },
  }),
};

function options(storage: StorageDriver = createMemoryStorage()): AgentHostOptions {
  return helloOptions({
    agents: [{ slug: "hello", project: project({ tools }), storage }],
    auth: { policies: [bearerAuth((token) => principals[token] ?? null)] },
  });
}

const toolLine = (name: string, input: unknown): string => `/tool ${name} ${JSON.stringify(input)}`;

interface Approval {
  callId: string;
  toolName: string;
  input: unknown;
  turnId: string;
  requestedAt: string;
}

function helpers(target: () => HostUnderTest) {
  const h = {
    async start(message: string, who = "alice"): Promise<{ sessionId: string; continuationToken: string }> {
      const response = await target().fetch(`${base}/v1/session`, postJson({ message }, auth(who)));
      expect(response.status).toBe(200);
      return (await response.json()) as { sessionId: string; continuationToken: string };
    },
    async events(sessionId: string, who = "alice"): Promise<TestEvent[]> {
      const response = await target().fetch(`${base}/v1/session/${sessionId}/events`, { headers: auth(who) });
      expect(response.status).toBe(200);
      return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
    },
    waitFor: (sessionId: string, done: (events: TestEvent[]) => boolean, what: string): Promise<TestEvent[]> =>
      eventually(async () => {
        const all = await h.events(sessionId);
        return done(all) ? all : undefined;
      }, 5000, what),
    /** Starts a turn that parks one call and returns once it is parked. */
    async parked(message: string): Promise<{ sessionId: string; continuationToken: string; callId: string; events: TestEvent[] }> {
      const session = await h.start(message);
      const events = await h.waitFor(session.sessionId, (all) => all.some((e) => e.type === "action.approval_requested"), "a parked call");
      const callId = events.find((e) => e.type === "action.approval_requested")!.data["callId"] as string;
      return { ...session, callId, events };
    },
    async approvals(sessionId: string, who = "alice"): Promise<Response> {
      return target().fetch(`${base}/v1/session/${sessionId}/approvals`, { headers: auth(who) });
    },
    async list(sessionId: string): Promise<Approval[]> {
      const response = await h.approvals(sessionId);
      expect(response.status).toBe(200);
      return ((await response.json()) as { approvals: Approval[] }).approvals;
    },
    resolve: (sessionId: string, callId: string, body: unknown, who = "alice"): Promise<Response> =>
      target().fetch(`${base}/v1/session/${sessionId}/approvals/${callId}`, postJson(body, auth(who))),
    async status(sessionId: string): Promise<string | undefined> {
      const response = await target().fetch(`${base}/v1/sessions`, { headers: auth("alice") });
      const { sessions } = (await response.json()) as { sessions: Array<{ sessionId: string; status: string }> };
      return sessions.find((s) => s.sessionId === sessionId)?.status;
    },
    waiting: (sessionId: string, count = 1): Promise<TestEvent[]> =>
      h.waitFor(sessionId, (all) => all.filter((e) => e.type === "session.waiting").length >= count, "session.waiting"),
  };
  return h;
}

async function errorCode(response: Response, status: number): Promise<string> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { ok: boolean; error: string };
  expect(body.ok).toBe(false);
  return body.error;
}

const types = (events: TestEvent[]): string[] => events.map((e) => e.type);

describeHost("approvals", () => options(), (target) => {
  const h = helpers(target);

  it("parks a gated call: the turn stays running and the call is listed", async () => {
    const { sessionId, callId, events } = await h.parked(toolLine("danger", { what: "prod" }));
    const turnId = events.find((e) => e.type === "turn.started")!.turnId!;
    const requested = events.find((e) => e.type === "actions.requested")!;
    const toolCallId = (requested.data["actions"] as Array<{ toolCallId: string }>)[0]!.toolCallId;
    const parkedEvent = events.find((e) => e.type === "action.approval_requested")!;
    expect(parkedEvent.data).toEqual({ callId: toolCallId, toolName: "danger", input: { what: "prod" } });
    expect(parkedEvent.turnId).toBe(turnId);
    expect(parkedEvent.index).toBeGreaterThan(requested.index);
    expect(callId).toBe(toolCallId);

    const approvals = await h.list(sessionId);
    expect(approvals).toEqual([{ callId, toolName: "danger", input: { what: "prod" }, turnId, requestedAt: expect.any(String) }]);
    expect(new Date(approvals[0]!.requestedAt).toISOString()).toBe(approvals[0]!.requestedAt);
    expect(await h.status(sessionId)).toBe("running");
    const now = await h.events(sessionId);
    expect(types(now)).not.toContain("action.result");
    expect(types(now)).not.toContain("turn.completed");
    expect(runs).toEqual([]);
    // A direct call of a gated tool is refused (docs/design/faults.md), in a session or not.
    const direct = await target().fetch(`${base}/v1/tools/danger`, postJson({ input: { what: "direct" }, sessionId }, auth("alice")));
    expect(await errorCode(direct, 403)).toBe("approval_required");
    expect(runs).toEqual([]);
    await h.resolve(sessionId, callId, { decision: "deny" });
    await h.waiting(sessionId);
  });

  it("approve: the decision is recorded, the tool runs and the turn completes", async () => {
    const { sessionId, callId } = await h.parked(toolLine("danger", { what: "prod" }));
    const response = await h.resolve(sessionId, callId, { decision: "approve" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, sessionId, callId, decision: "approve" });
    const events = await h.waiting(sessionId);
    const after = events.slice(events.findIndex((e) => e.type === "action.approval_requested"));
    expect(types(after).filter((t) => t.startsWith("action") || t.startsWith("turn.") || t === "session.waiting")).toEqual([
      "action.approval_requested",
      "action.approval_resolved",
      "action.result",
      "turn.completed",
      "session.waiting",
    ]);
    expect(after[1]!.data).toEqual({ callId, decision: "approve" });
    expect(events.find((e) => e.type === "action.result")!.data).toEqual({ toolCallId: callId, toolName: "danger", output: "deleted prod", isError: false });
    expect(runs).toEqual(["danger:prod"]);
    expect(await h.list(sessionId)).toEqual([]);
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("done");
    expect(await h.status(sessionId)).toBe("idle");
  });

  it("deny: the model gets the error result denied and the body never runs", async () => {
    const { sessionId, callId } = await h.parked(`${toolLine("danger", { what: "prod" })}\n/reply carried on`);
    expect((await h.resolve(sessionId, callId, { decision: "deny" })).status).toBe(200);
    const events = await h.waiting(sessionId);
    expect(events.find((e) => e.type === "action.approval_resolved")!.data).toEqual({ callId, decision: "deny" });
    expect(events.find((e) => e.type === "action.result")!.data).toEqual({ toolCallId: callId, toolName: "danger", output: "denied", isError: true });
    expect(runs).toEqual([]);
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("carried on");
    expect(types(events)).toContain("turn.completed");
    expect(await h.list(sessionId)).toEqual([]);
  });

  it("a predicate gates on the validated input: small amounts run at once, large ones park", async () => {
    const { sessionId, callId, events } = await h.parked(`${toolLine("pay", { amount: "50" })}\n${toolLine("pay", { amount: 500 })}`);
    // The first call ran without asking.
    expect(events.filter((e) => e.type === "action.approval_requested")).toHaveLength(1);
    const firstResult = events.find((e) => e.type === "action.result")!;
    expect(firstResult.data).toMatchObject({ isError: false, output: { paid: 50 } });
    expect(firstResult.index).toBeLessThan(events.find((e) => e.type === "action.approval_requested")!.index);
    expect(runs).toEqual(["pay:50"]);
    expect(await h.list(sessionId)).toEqual([expect.objectContaining({ callId, toolName: "pay", input: { amount: 500 } })]);
    expect((await h.resolve(sessionId, callId, { decision: "approve" })).status).toBe(200);
    const done = await h.waiting(sessionId);
    expect(done.filter((e) => e.type === "action.result").map((e) => e.data["output"])).toEqual([{ paid: 50 }, { paid: 500 }]);
    expect(runs).toEqual(["pay:50", "pay:500"]);
  });

  it("an unknown callId is 404; a second resolution is 409", async () => {
    const idle = await h.start("hi");
    await h.waiting(idle.sessionId);
    expect(await h.list(idle.sessionId)).toEqual([]);
    expect(await errorCode(await h.resolve(idle.sessionId, "call_nothing", { decision: "approve" }), 404)).toBe("approval_not_found");

    const { sessionId, callId } = await h.parked(toolLine("danger", { what: "x" }));
    expect(await errorCode(await h.resolve(sessionId, `${callId}x`, { decision: "approve" }), 404)).toBe("approval_not_found");
    // A call parked in another session is not found through this one.
    expect(await errorCode(await h.resolve(idle.sessionId, callId, { decision: "approve" }), 404)).toBe("approval_not_found");
    expect(await errorCode(await h.resolve("ses_doesnotexist", callId, { decision: "approve" }), 404)).toBe("session_not_found");
    expect(await errorCode(await h.approvals("ses_doesnotexist"), 404)).toBe("session_not_found");
    expect(await h.list(sessionId)).toHaveLength(1);

    expect((await h.resolve(sessionId, callId, { decision: "approve" })).status).toBe(200);
    expect(await errorCode(await h.resolve(sessionId, callId, { decision: "approve" }), 409)).toBe("approval_already_resolved");
    expect(await errorCode(await h.resolve(sessionId, callId, { decision: "deny" }), 409)).toBe("approval_already_resolved");
    const events = await h.waiting(sessionId);
    expect(events.filter((e) => e.type === "action.approval_resolved")).toHaveLength(1);
    expect(runs).toEqual(["danger:x"]);
  });

  it("two resolutions at once: exactly one wins, the other gets 409, and its decision is the one applied", async () => {
    const { sessionId, callId } = await h.parked(toolLine("danger", { what: "race" }));
    const responses = await Promise.all([
      h.resolve(sessionId, callId, { decision: "approve" }),
      h.resolve(sessionId, callId, { decision: "deny" }),
    ]);
    const statuses = responses.map((r) => r.status);
    expect([...statuses].sort()).toEqual([200, 409]);
    const winner = responses[statuses.indexOf(200)]!;
    const decision = ((await winner.json()) as { decision: string }).decision;
    expect(await errorCode(responses[statuses.indexOf(409)]!, 409)).toBe("approval_already_resolved");
    const events = await h.waiting(sessionId);
    const resolved = events.filter((e) => e.type === "action.approval_resolved");
    expect(resolved.map((e) => e.data)).toEqual([{ callId, decision }]);
    expect(runs).toEqual(decision === "approve" ? ["danger:race"] : []);
    expect(events.filter((e) => e.type === "action.result")).toHaveLength(1);
  });

  it("stop while parked ends the turn cleanly; a later resolution gets 409", async () => {
    const { sessionId, continuationToken, callId, events: before } = await h.parked(toolLine("danger", { what: "x" }));
    const turnId = before.find((e) => e.type === "turn.started")!.turnId;
    const stop = await target().fetch(`${base}/v1/session/${sessionId}/stop`, { method: "POST", headers: auth("alice") });
    expect(await stop.json()).toEqual({ ok: true, stopped: true });
    const events = await h.waiting(sessionId);
    const tail = events.slice(before.length);
    const failed = tail.find((e) => e.type === "turn.failed")!;
    expect(failed).toMatchObject({ turnId, data: { message: "turn interrupted" } });
    expect(types(tail).slice(-2)).toEqual(["turn.failed", "session.waiting"]);
    // The call's request stays paired with an error result; the body never ran.
    expect(tail.filter((e) => e.type === "action.result").map((e) => e.data)).toEqual([
      expect.objectContaining({ toolCallId: callId, isError: true, output: "turn interrupted" }),
    ]);
    expect(types(tail)).not.toContain("turn.completed");
    expect(types(tail)).not.toContain("action.approval_resolved");
    expect(await h.list(sessionId)).toEqual([]);
    expect(await errorCode(await h.resolve(sessionId, callId, { decision: "approve" }), 409)).toBe("approval_already_resolved");
    expect(runs).toEqual([]);
    expect(await h.status(sessionId)).toBe("idle");
    // The session goes on.
    const follow = await target().fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "next" }, auth("alice")));
    expect(follow.status).toBe(200);
    const next = await h.waiting(sessionId, 2);
    expect(next.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("echo: next");
  });

  it("a stop racing a resolution: either the decision lands or it gets 409, and the turn ends cleanly either way", async () => {
    const { sessionId, callId } = await h.parked(toolLine("danger", { what: "race" }));
    const [stop, resolution] = await Promise.all([
      target().fetch(`${base}/v1/session/${sessionId}/stop`, { method: "POST", headers: auth("alice") }),
      h.resolve(sessionId, callId, { decision: "approve" }),
    ]);
    expect(stop.status).toBe(200);
    expect([200, 409]).toContain(resolution.status);
    const events = await h.waiting(sessionId);
    const resolved = events.filter((e) => e.type === "action.approval_resolved");
    if (resolution.status === 200) {
      expect(resolved.map((e) => e.data)).toEqual([{ callId, decision: "approve" }]);
    } else {
      expect(await errorCode(resolution, 409)).toBe("approval_already_resolved");
      expect(resolved).toEqual([]);
      expect(runs).toEqual([]);
    }
    expect(types(events).slice(-2)).toEqual(["turn.failed", "session.waiting"]);
    expect(events.at(-2)!.data).toEqual({ message: "turn interrupted" });
    expect(events.filter((e) => e.type === "action.result")).toHaveLength(1);
    expect(await h.list(sessionId)).toEqual([]);
  });

  it("a follow-up while parked preempts: the parked turn ends cleanly and the new message runs", async () => {
    const { sessionId, continuationToken, callId, events: before } = await h.parked(toolLine("danger", { what: "x" }));
    const firstTurn = before.find((e) => e.type === "turn.started")!.turnId;
    const follow = await target().fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "never mind" }, auth("alice")));
    expect(follow.status).toBe(200);
    const events = await h.waiting(sessionId);
    const tail = events.slice(before.length);
    expect(tail.find((e) => e.type === "turn.failed")).toMatchObject({ turnId: firstTurn, data: { message: "turn interrupted" } });
    // No idle moment between the interrupted turn and the new one.
    expect(types(tail).filter((t) => t === "session.waiting")).toHaveLength(1);
    expect(types(tail).indexOf("turn.failed")).toBeLessThan(types(tail).indexOf("turn.started"));
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("echo: never mind");
    expect(types(events).filter((t) => t === "turn.completed")).toHaveLength(1);
    expect(await h.list(sessionId)).toEqual([]);
    expect(await errorCode(await h.resolve(sessionId, callId, { decision: "approve" }), 409)).toBe("approval_already_resolved");
    expect(runs).toEqual([]);
  });

  it("only the owner may list or resolve; an invalid decision is 400; the call stays parked", async () => {
    const { sessionId, callId } = await h.parked(toolLine("danger", { what: "x" }));
    expect(await errorCode(await h.resolve(sessionId, callId, { decision: "approve" }, "bob"), 403)).toBe("forbidden");
    expect(await errorCode(await h.approvals(sessionId, "bob"), 403)).toBe("forbidden");
    const anonymous = await target().fetch(`${base}/v1/session/${sessionId}/approvals/${callId}`, postJson({ decision: "approve" }));
    expect(await errorCode(anonymous, 401)).toBe("unauthorized");
    for (const body of [{ decision: "maybe" }, {}, { decision: "approve", extra: true }, { decision: "APPROVE" }, []]) {
      expect(await errorCode(await h.resolve(sessionId, callId, body), 400), JSON.stringify(body)).toBe("invalid_request");
    }
    const notJson = await target().fetch(`${base}/v1/session/${sessionId}/approvals/${callId}`, {
      method: "POST",
      headers: { ...auth("alice"), "content-type": "application/json" },
      body: "{",
    });
    expect(await errorCode(notJson, 400)).toBe("invalid_request");
    expect(await h.list(sessionId)).toEqual([expect.objectContaining({ callId })]);
    expect(types(await h.events(sessionId))).not.toContain("action.approval_resolved");
    expect(runs).toEqual([]);
    expect((await h.resolve(sessionId, callId, { decision: "approve" })).status).toBe(200);
    await h.waiting(sessionId);
    expect(runs).toEqual(["danger:x"]);
  });

  it("closing the host while a call is parked suspends the turn: nothing ends it, the call stays parked in storage", async () => {
    const { sessionId, events: before } = await h.parked(toolLine("danger", { what: "x" }));
    const stream = await target().fetch(`${base}/v1/session/${sessionId}/stream?startIndex=${before.length}`, { headers: auth("alice") });
    expect(stream.status).toBe(200);
    const closing = target().host.close();
    // Close ends live streams; the parked turn recorded nothing more (test/approvals-durable.test.ts resumes it).
    const tail = await readEvents(stream, () => false);
    await closing;
    expect(tail).toEqual([]);
    expect(runs).toEqual([]);
  });
});
