/**
 * `POST /v1/chat` in the AI SDK's UI message stream protocol, driven by the AI SDK's
 * own `DefaultChatTransport` and assembled with its `readUIMessageStream`, as `useChat` does in a
 * browser: text, tool calls with their outputs, one session per chat id and caller.
 */
import { DefaultChatTransport, type UIMessage, readUIMessageStream } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createHost } from "../src/host.ts";
import { createMemoryStorage } from "../src/storage/memory.ts";
import { defineTool } from "../src/tools/index.ts";
import type { AgentHost } from "../src/types.ts";
import { helloOptions, postJson, project } from "./_harness.ts";
import { toolLine } from "./_workspace.ts";

let host: AgentHost;
let server: NodeServer;

const tools = {
  lookup: defineTool({ description: "Looks a word up", execute: (input: unknown) => ({ found: true, input }) }),
  broken: defineTool({ description: "Always throws", execute: () => { throw new Error("dictionary offline"); } }),
};

beforeEach(async () => {
  host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage: createMemoryStorage() }] }));
  server = await serveNode(host, { port: 0, silent: true });
});
afterEach(async () => {
  await host.close();
  await server.close(true);
});

function userMessage(id: string, text: string): UIMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

/** Sends like useChat does and returns the assistant message as the AI SDK assembles it. */
async function send(chatId: string, messages: UIMessage[]): Promise<UIMessage> {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/hello/v1/chat` });
  const stream = await transport.sendMessages({ chatId, messages, trigger: "submit-message", messageId: undefined, abortSignal: undefined });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({ stream, terminateOnError: true })) last = message;
  if (!last) throw new Error("no message");
  return last;
}

describe("AI SDK chat route", () => {
  it("answers DefaultChatTransport with a UI message: text, tool calls and outputs", async () => {
    const reply = await send("chat-1", [userMessage("m1", [toolLine("lookup", { word: "sse" }), toolLine("broken", {}), "/reply All **done**."].join("\n"))]);
    expect(reply.role).toBe("assistant");
    const text = reply.parts.filter((part) => part.type === "text").map((part) => (part as { text: string }).text).join("");
    expect(text).toBe("All **done**.");
    const lookup = reply.parts.find((part) => part.type === "tool-lookup") as Record<string, unknown> | undefined;
    expect(lookup).toMatchObject({ state: "output-available", input: { word: "sse" }, output: { found: true, input: { word: "sse" } } });
    const broken = reply.parts.find((part) => part.type === "tool-broken") as Record<string, unknown> | undefined;
    expect(broken).toMatchObject({ state: "output-error", errorText: "dictionary offline" });
    expect(reply.parts.filter((part) => part.type === "step-start").length).toBeGreaterThanOrEqual(2);
    expect(reply.metadata).toMatchObject({ sessionId: expect.stringMatching(/^ses_/) });
  });

  it("one chat id is one session: a second request continues it, with the conversation so far", async () => {
    const first = await send("chat-2", [userMessage("m1", "/reply one")]);
    const second = await send("chat-2", [userMessage("m1", "/reply one"), first, userMessage("m2", "/reply two")]);
    const sessionId = (first.metadata as { sessionId: string }).sessionId;
    expect((second.metadata as { sessionId: string }).sessionId).toBe(sessionId);
    expect(second.parts.filter((part) => part.type === "text").map((part) => (part as { text: string }).text)).toEqual(["two"]);
    const events = await (await fetch(`${server.url}/hello/v1/session/${sessionId}/events`)).text();
    expect(events.split("\n").filter((line) => line.includes('"message.received"'))).toHaveLength(2);
    const other = await send("chat-3", [userMessage("m1", "/reply three")]);
    expect((other.metadata as { sessionId: string }).sessionId).not.toBe(sessionId);
  });

  it("a failed turn arrives as the protocol's error; bad bodies get a 400 and change nothing", async () => {
    const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/hello/v1/chat` });
    const stream = await transport.sendMessages({ chatId: "chat-4", messages: [userMessage("m1", "/fail the model is down")], trigger: "submit-message", messageId: undefined, abortSignal: undefined });
    const errors: string[] = [];
    for await (const _ of readUIMessageStream<UIMessage>({ stream, onError: (error) => errors.push(String(error)) })) { /* drain */ }
    expect(errors.join("\n")).toContain("the model is down");

    const before = (await (await fetch(`${server.url}/hello/v1/sessions`)).json()) as { sessions: unknown[] };
    for (const body of [{}, { id: "x", messages: [] }, { id: "x", messages: [{ role: "assistant", parts: [{ type: "text", text: "hi" }] }] }, { id: "", messages: [{ role: "user", parts: [] }] }]) {
      const response = await fetch(`${server.url}/hello/v1/chat`, postJson(body));
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toMatchObject({ ok: false });
    }
    const after = (await (await fetch(`${server.url}/hello/v1/sessions`)).json()) as { sessions: unknown[] };
    expect(after.sessions).toHaveLength(before.sessions.length);
  });
});
