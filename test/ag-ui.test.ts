/**
 * `POST /v1/ag-ui` driven by the official AG-UI client (`HttpAgent` from `@ag-ui/client`) over
 * real HTTP on loopback, every event checked against `@ag-ui/core`'s own schemas: a chat, a server
 * tool, an approval interrupt answered by the next run's `resume[]` (exactly once), a reconnect
 * mid-run, a restart mid-run over one sqlite store, and bad input (docs/guide/ag-ui.md).
 */
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent, Message } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import * as v from "valibot";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, helloOptions, project } from "./_harness.ts";

const refunds: number[] = [];
const tools = {
  lookup: defineTool({ description: "Looks a word up", execute: (input: unknown) => ({ found: true, input }) }),
  refund: defineTool({
    description: "Refunds an amount; always asks first",
    inputSchema: v.object({ amount: v.number() }),
    needsApproval: true,
    execute: (input) => {
      refunds.push(input.amount);
      return { refunded: input.amount };
    },
  }),
};

interface Served {
  host: AgentHost;
  server: NodeServer;
  url: string;
}

const open: Served[] = [];
async function serve(storage: StorageDriver = createMemoryStorage()): Promise<Served> {
  const host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage }] }));
  const server = await serveNode(host, { port: 0, silent: true });
  const served = { host, server, url: `${server.url}/hello/v1/ag-ui` };
  open.push(served);
  return served;
}
async function shut(served: Served): Promise<void> {
  open.splice(open.indexOf(served), 1);
  await served.host.close();
  await served.server.close(true);
}
afterEach(async () => {
  for (const served of [...open].reverse()) await shut(served);
});
beforeEach(() => void refunds.splice(0));

/** A run of the official client: the events it received (each valid per `@ag-ui/core`) and how it ended. */
async function run(agent: HttpAgent, parameters: Parameters<HttpAgent["runAgent"]>[0] = {}): Promise<{ events: BaseEvent[]; error?: unknown }> {
  const events: BaseEvent[] = [];
  try {
    await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
  } catch (error) {
    return { events, error };
  }
  for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
  return { events, error: undefined };
}

function say(agent: HttpAgent, text: string): void {
  agent.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
}

/** The NDJSON log of the host's one session. */
async function eventsText(host: AgentHost): Promise<string> {
  const { sessions } = (await (await host.request("/hello/v1/sessions")).json()) as { sessions: Array<{ sessionId: string }> };
  return sessions[0] ? (await host.request(`/hello/v1/session/${sessions[0].sessionId}/events`)).text() : "";
}

const types = (events: BaseEvent[]): string[] => events.map((event) => event.type);
const finished = (events: BaseEvent[]): Record<string, unknown> | undefined =>
  events.find((event) => event.type === "RUN_FINISHED") as Record<string, unknown> | undefined;
const assistantTexts = (messages: Message[]): string[] => messages.flatMap((m) => (m.role === "assistant" && typeof m.content === "string" ? [m.content] : []));

describe("AG-UI endpoint", () => {
  it("chats: reasoning, text and a success outcome; the thread id keeps the session", async () => {
    const { url, host } = await serve();
    const agent = new HttpAgent({ url, threadId: "t-chat" });
    say(agent, "/reason thinking it over\n/reply hello there");
    const first = await run(agent);
    expect(first.error).toBeUndefined();
    expect(types(first.events)).toEqual(
      expect.arrayContaining(["RUN_STARTED", "STATE_SNAPSHOT", "STEP_STARTED", "REASONING_START", "REASONING_MESSAGE_CONTENT", "REASONING_END", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STEP_FINISHED", "RUN_FINISHED"]),
    );
    expect(finished(first.events)?.["outcome"]).toEqual({ type: "success" });
    expect(assistantTexts(agent.messages)).toEqual(["hello there"]);

    say(agent, "/reply second");
    await run(agent);
    expect(assistantTexts(agent.messages)).toEqual(["hello there", "second"]);
    const sessions = (await (await host.request("/hello/v1/sessions")).json()) as { sessions: Array<{ channel: string; turnCount: number }> };
    expect(sessions.sessions.filter((s) => s.channel === "ag-ui")).toMatchObject([{ turnCount: 2 }]);
  });

  it("merges the run's state into the session's channel state and opens every run with it", async () => {
    const { url } = await serve();
    const agent = new HttpAgent({ url, threadId: "t-state", initialState: { theme: "dark" } });
    say(agent, "/reply noted");
    const first = await run(agent);
    expect(first.events.find((event) => event.type === "STATE_SNAPSHOT")).toMatchObject({ snapshot: { theme: "dark" } });
    const fresh = new HttpAgent({ url, threadId: "t-state" });
    const rejoined = await run(fresh);
    expect(rejoined.events.find((event) => event.type === "STATE_SNAPSHOT")).toMatchObject({ snapshot: { theme: "dark" } });
    expect(fresh.state).toEqual({ theme: "dark" });
  });

  it("streams a server tool's call and result", async () => {
    const { url } = await serve();
    const agent = new HttpAgent({ url, threadId: "t-tool" });
    say(agent, '/tool lookup {"word":"ag-ui"}\n/reply looked up');
    const { events, error } = await run(agent);
    expect(error).toBeUndefined();
    expect(types(events)).toEqual(expect.arrayContaining(["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]));
    const call = agent.messages.find((m) => m.role === "assistant" && m.toolCalls?.length);
    expect(call).toMatchObject({ toolCalls: [{ function: { name: "lookup", arguments: '{"word":"ag-ui"}' } }] });
    const result = agent.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(result?.content))).toEqual({ found: true, input: { word: "ag-ui" } });
    expect(assistantTexts(agent.messages).at(-1)).toBe("looked up");
  });

  it("ends a run on a parked approval with an interrupt, and the next run's resume decides it exactly once", async () => {
    const { url } = await serve();
    const agent = new HttpAgent({ url, threadId: "t-approve" });
    say(agent, '/tool refund {"amount":20}\n/reply refunded');
    const parked = await run(agent);
    expect(parked.error).toBeUndefined();
    const outcome = finished(parked.events)?.["outcome"] as { type: string; interrupts: Array<{ id: string; toolCallId: string }> };
    expect(outcome.type).toBe("interrupt");
    expect(outcome.interrupts).toHaveLength(1);
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual([outcome.interrupts[0]!.id]);
    expect(refunds).toEqual([]);

    // The client itself refuses a run that leaves the interrupt unanswered.
    say(agent, "/reply something else");
    expect((await run(agent)).error).toBeDefined();
    agent.messages.pop();

    const resumed = await run(agent, { resume: [{ interruptId: outcome.interrupts[0]!.id, status: "resolved", payload: { approved: true } }] });
    expect(resumed.error).toBeUndefined();
    expect(finished(resumed.events)?.["outcome"]).toEqual({ type: "success" });
    expect(refunds).toEqual([20]);
    expect(assistantTexts(agent.messages).at(-1)).toBe("refunded");

    // The same answer again is a conflict: decided once.
    const again = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ threadId: "t-approve", runId: "r-again", messages: [], resume: [{ interruptId: outcome.interrupts[0]!.id, status: "resolved", payload: { approved: true } }] }),
    });
    expect(again.status).toBe(409);
    expect(refunds).toEqual([20]);
  });

  it("denies a parked call when the interrupt is cancelled", async () => {
    const { url } = await serve();
    const agent = new HttpAgent({ url, threadId: "t-deny" });
    say(agent, '/tool refund {"amount":5}\n/reply no refund');
    const parked = await run(agent);
    const id = agent.pendingInterrupts[0]!.id;
    expect(finished(parked.events)?.["outcome"]).toMatchObject({ type: "interrupt" });
    const denied = await run(agent, { resume: [{ interruptId: id, status: "cancelled" }] });
    expect(denied.error).toBeUndefined();
    expect(refunds).toEqual([]);
    expect(finished(denied.events)?.["outcome"]).toEqual({ type: "success" });
  });

  it("runs a front-end tool: the run ends with the call pending, its result comes with the next run", async () => {
    const { url, host } = await serve();
    const agent = new HttpAgent({ url, threadId: "t-front" });
    const tools = [{ name: "pick_color", description: "Asks the user to pick a color", parameters: { type: "object", properties: { hint: { type: "string" } } } }];
    say(agent, '/tool pick_color {"hint":"warm"}\n/reply you picked it');
    const asked = await run(agent, { tools });
    expect(asked.error).toBeUndefined();
    const outcome = finished(asked.events)?.["outcome"] as { type: string; pendingToolCallIds: string[] };
    expect(outcome.type).toBe("success");
    expect(outcome.pendingToolCallIds).toHaveLength(1);
    const [callId] = outcome.pendingToolCallIds;
    const start = asked.events.find((event) => event.type === "TOOL_CALL_START") as unknown as { toolCallId: string; toolCallName: string };
    expect(start).toMatchObject({ toolCallId: callId, toolCallName: "pick_color" });
    // Not an approval: the approvals route neither lists nor decides it.
    const sessionId = ((await (await host.request("/hello/v1/sessions")).json()) as { sessions: Array<{ sessionId: string }> }).sessions[0]!.sessionId;
    expect(((await (await host.request(`/hello/v1/session/${sessionId}/approvals`)).json()) as { approvals: unknown[] }).approvals).toEqual([]);
    expect((await host.request(`/hello/v1/session/${sessionId}/approvals/${callId}`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"decision":"approve"}' })).status).toBe(404);
    // A new message before the result is refused.
    say(agent, "/reply too soon");
    expect((await run(agent, { tools })).error).toBeDefined();
    agent.messages.pop();

    agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: callId!, content: "orange" });
    const answered = await run(agent, { tools });
    expect(answered.error).toBeUndefined();
    expect(finished(answered.events)?.["outcome"]).toEqual({ type: "success" });
    const result = answered.events.find((event) => event.type === "TOOL_CALL_RESULT") as unknown as { toolCallId: string; content: string };
    expect(result).toMatchObject({ toolCallId: callId, content: "orange" });
    expect(assistantTexts(agent.messages).at(-1)).toBe("you picked it");

    // The same result again answers nothing: the call no longer waits, so the run is a reconnect.
    const again = await run(agent, { tools });
    expect(types(again.events)).toContain("MESSAGES_SNAPSHOT");
    expect(finished(again.events)?.["outcome"]).toEqual({ type: "success" });
  });

  it("reconnects to a waiting thread: the interrupt or the pending front-end call again, never a success", async () => {
    const { url } = await serve();
    const parked = new HttpAgent({ url, threadId: "t-wait-approval" });
    say(parked, '/tool refund {"amount":3}\n/reply ok');
    await run(parked);
    const rejoined = await run(new HttpAgent({ url, threadId: "t-wait-approval" }));
    expect(finished(rejoined.events)?.["outcome"]).toMatchObject({ type: "interrupt", interrupts: [{ id: parked.pendingInterrupts[0]!.id }] });

    const tools = [{ name: "pick", description: "Picks", parameters: { type: "object", properties: {} } }];
    const front = new HttpAgent({ url, threadId: "t-wait-front" });
    say(front, "/tool pick {}\n/reply ok");
    const asked = await run(front, { tools });
    const pending = (finished(asked.events)!["outcome"] as { pendingToolCallIds: string[] }).pendingToolCallIds;
    const again = await run(new HttpAgent({ url, threadId: "t-wait-front" }));
    expect(finished(again.events)?.["outcome"]).toEqual({ type: "success", pendingToolCallIds: pending });
    expect(refunds).toEqual([]);
  });

  it("reconnects mid-run: a second client on the thread gets the snapshot and the live rest", async () => {
    const { url, host } = await serve();
    const first = new HttpAgent({ url, threadId: "t-reconnect" });
    say(first, "/reply earlier");
    await run(first);
    say(first, "/sleep 600\n/reply late answer");
    const running = run(first);
    // Wait until the turn runs, then connect a fresh client that knows nothing of the thread.
    await eventually(async () => ((await eventsText(host)).match(/"turn\.started"/g)?.length === 2) || undefined);
    const second = new HttpAgent({ url, threadId: "t-reconnect" });
    const rejoined = await run(second);
    expect(rejoined.error).toBeUndefined();
    expect(types(rejoined.events).slice(0, 3)).toEqual(["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT"]);
    expect(finished(rejoined.events)?.["outcome"]).toEqual({ type: "success" });
    expect(assistantTexts(second.messages)).toEqual(["earlier", "late answer"]);
    expect(second.messages.filter((m) => m.role === "user")).toHaveLength(2);
    await running;
    expect(assistantTexts(first.messages)).toEqual(["earlier", "late answer"]);
  });

  it("survives a restart mid-run on one sqlite store: the parked call resumes in the new host, a cut turn is no success", async () => {
    const root = mkdtempSync(join(tmpdir(), "ag-ui-"));
    try {
      const before = await serve(createSqliteStorage({ path: join(root, "state.db") }));
      const agent = new HttpAgent({ url: before.url, threadId: "t-restart" });
      say(agent, '/tool refund {"amount":7}\n/reply refunded after restart');
      await run(agent);
      const id = agent.pendingInterrupts[0]!.id;
      await shut(before);

      let after = await serve(createSqliteStorage({ path: join(root, "state.db") }));
      agent.url = after.url;
      const resumed = await run(agent, { resume: [{ interruptId: id, status: "resolved", payload: { approved: true } }] });
      expect(resumed.error).toBeUndefined();
      expect(refunds).toEqual([7]);
      expect(assistantTexts(agent.messages).at(-1)).toBe("refunded after restart");

      // A front-end tool call waits across a restart too: its result is delivered to the new host.
      const tools = [{ name: "confirm_address", description: "Asks the user to confirm", parameters: { type: "object", properties: {} } }];
      say(agent, "/tool confirm_address {}\n/reply confirmed");
      const asked = await run(agent, { tools });
      const [callId] = (finished(asked.events)!["outcome"] as { pendingToolCallIds: string[] }).pendingToolCallIds;
      await shut(after);
      const again = await serve(createSqliteStorage({ path: join(root, "state.db") }));
      agent.url = again.url;
      agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: callId!, content: "yes" });
      const delivered = await run(agent, { tools });
      expect(delivered.error).toBeUndefined();
      expect(assistantTexts(agent.messages).at(-1)).toBe("confirmed");
      after = again;

      // A turn cut by a restart: the reconnecting client is told it failed.
      say(agent, "/sleep 5000\n/reply never");
      const cut = run(agent);
      await eventually(async () => ((await eventsText(after.host)).match(/"turn\.started"/g)?.length === 3) || undefined);
      await shut(after);
      const lost = await cut;
      expect(finished(lost.events)).toBeUndefined();
      expect(lost.events.find((event) => event.type === "RUN_ERROR")).toBeDefined();

      const third = await serve(createSqliteStorage({ path: join(root, "state.db") }));
      const fresh = new HttpAgent({ url: third.url, threadId: "t-restart" });
      const told = await run(fresh);
      expect(finished(told.events)).toBeUndefined();
      expect(told.events.find((event) => event.type === "RUN_ERROR")).toBeDefined();
      expect(assistantTexts(fresh.messages)).toContain("refunded after restart");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("answers bad input with a clear 4xx", async () => {
    const { url } = await serve();
    const post = (body: unknown): Promise<Response> => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const missing = await post({ runId: "r", messages: [] });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await missing.json())).toContain("threadId");
    expect((await post({ threadId: "t", runId: "r", messages: [{ id: "1", role: "robot", content: "x" }] })).status).toBe(400);
    expect((await post({ threadId: "t-new", runId: "r", messages: [] })).status).toBe(400);
    expect((await post({ threadId: "t", runId: "r", messages: [{ id: "1", role: "user", content: "hi" }], tools: [{ name: "bad name", description: "d" }] })).status).toBe(400);
    expect((await post({ threadId: "t", runId: "r", messages: [{ id: "1", role: "user", content: "hi" }], tools: [{ name: "f" }] })).status).toBe(400);
    expect((await post({ threadId: "t-none", runId: "r", messages: [], resume: [{ interruptId: "x", status: "resolved", payload: { approved: true } }] })).status).toBe(404);
    expect((await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" })).status).toBe(400);
  });
});
