/**
 * AG-UI runs beyond the basics (docs/design/ag-ui-runs.md): the run id is the client's, minted by
 * the server when the input has none; and channel state changed by the project's own `ag-ui`
 * channel while the run goes arrives as nested JSON Patch `STATE_DELTA`s before the run ends,
 * checked against `@ag-ui/core`'s schemas and applied by the official `HttpAgent`.
 */
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import { afterEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineChannel } from "../src/entries/channels.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { helloOptions, project } from "./_harness.ts";

const tools = { lookup: defineTool({ description: "Looks a word up", execute: (input: unknown) => ({ found: true, input }) }) };

/** The project's own `ag-ui` channel: counts lookups deep inside the state as results arrive. */
const agUiChannel = defineChannel({
  events: {
    "action.result"(_event, binding) {
      const progress = (binding.state["progress"] ?? {}) as { lookups?: number; detail?: Record<string, unknown> };
      binding.state["progress"] = { ...progress, lookups: (progress.lookups ?? 0) + 1, detail: { ...progress.detail, last: "lookup" } };
    },
  },
});

const open: Array<{ host: AgentHost; server: NodeServer }> = [];
async function serve(): Promise<string> {
  const host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools, channels: { "ag-ui": agUiChannel } }), storage: createMemoryStorage() }] }));
  const server = await serveNode(host, { port: 0, silent: true });
  open.push({ host, server });
  return `${server.url}/hello/v1/ag-ui`;
}
afterEach(async () => {
  for (const { host, server } of open.splice(0)) {
    await host.close();
    await server.close(true);
  }
});

/** The SSE events of one raw POST. */
async function post(url: string, body: Record<string, unknown>): Promise<{ response: Response; events: Array<Record<string, unknown>> }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify(body) });
  const text = await response.text();
  const events = text
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => JSON.parse(block.slice("data: ".length)) as Record<string, unknown>);
  return { response, events };
}

describe("AG-UI run ids", () => {
  it("echoes the client's run id, and mints one when the input has none", async () => {
    const url = await serve();
    const theirs = await post(url, { threadId: "t-ids", runId: "client-run-1", messages: [{ id: "m1", role: "user", content: "/reply one" }] });
    expect(theirs.response.headers.get("x-agent-serve-run-id")).toBe("client-run-1");
    expect(theirs.events.filter((event) => event.type === "RUN_STARTED" || event.type === "RUN_FINISHED").map((event) => event["runId"])).toEqual(["client-run-1", "client-run-1"]);

    const minted = await post(url, { threadId: "t-ids", messages: [{ id: "m1", role: "user", content: "/reply one" }, { id: "m2", role: "user", content: "/reply two" }] });
    expect(minted.response.status).toBe(200);
    const runId = minted.response.headers.get("x-agent-serve-run-id");
    expect(runId).toMatch(/^run_[A-Za-z0-9_-]{16}$/);
    const ends = minted.events.filter((event) => event.type === "RUN_STARTED" || event.type === "RUN_FINISHED");
    expect(ends.map((event) => event["runId"])).toEqual([runId, runId]);
    for (const event of minted.events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);

    const another = await post(url, { threadId: "t-ids" });
    expect(another.response.status).toBe(400);
    const empty = await post(url, { threadId: "t-ids", runId: "", messages: [] });
    expect(empty.response.status).toBe(400);
  });
});

describe("AG-UI state deltas", () => {
  it("sends nested JSON Patch deltas while the run goes, and HttpAgent's state follows them", async () => {
    const url = await serve();
    const agent = new HttpAgent({ url, threadId: "t-delta", initialState: { theme: "dark", progress: { lookups: 0, label: "kept" } } });
    agent.addMessage({ id: "u1", role: "user", content: '/tool lookup {"word":"a"}\n/sleep 1500\n/reply looked' });
    const events: BaseEvent[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);

    const deltas = events.flatMap((event, index) => (event.type === "STATE_DELTA" ? [{ index, delta: (event as unknown as { delta: unknown[] }).delta }] : []));
    expect(deltas.flatMap((entry) => entry.delta)).toEqual([
      { op: "replace", path: "/progress/lookups", value: 1 },
      { op: "add", path: "/progress/detail", value: { last: "lookup" } },
    ]);
    // Sent during the run, not only at its end: before the reply that follows the tool's result ends
    // (the scripted model sleeps inside its reply, so the reply ends 1.5 s after the result).
    const reply = events.findIndex((event) => event.type === "TEXT_MESSAGE_END");
    expect(deltas[0]!.index).toBeLessThan(reply);
    expect(agent.state).toEqual({ theme: "dark", progress: { lookups: 1, label: "kept", detail: { last: "lookup" } } });
  });
});
