/**
 * `POST /v1/chat` in the AI SDK's UI message stream protocol, driven by the AI SDK's
 * own `DefaultChatTransport` and assembled with its `readUIMessageStream`, as `useChat` does in a
 * browser: text, tool calls with their outputs, one session per chat id and caller. Approvals run
 * through the AI SDK's own `Chat` machinery (`AbstractChat`, which `useChat` wraps):
 * `addToolApprovalResponse` answers the tool approval request and the chat sends it back by itself.
 */
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  type UIMessage,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
} from "ai";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { AgentHost } from "../src/host/types.ts";
import { helloOptions, postJson, project } from "./_harness.ts";
import { toolLine } from "./_workspace.ts";

let host: AgentHost;
let server: NodeServer;

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

/** The chat state `useChat` keeps in React state, kept in plain fields. */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage): void => void (this.messages = [...this.messages, message]);
  popMessage = (): void => void (this.messages = this.messages.slice(0, -1));
  replaceMessage = (index: number, message: UIMessage): void => void (this.messages = this.messages.map((m, i) => (i === index ? message : m)));
  snapshot = <T,>(thing: T): T => structuredClone(thing);
}

/** What `useChat` is in a browser, without React. */
class Chat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ChatInit<UIMessage>, "messages">) {
    super({ ...init, state: new PlainChatState() });
  }
}

function approvalChat(id: string): Chat {
  return new Chat({
    id,
    transport: new DefaultChatTransport<UIMessage>({ api: `${server.url}/hello/v1/chat` }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
}

type ToolPart = { type: string; state: string; toolCallId: string; approval?: { id: string; approved?: boolean }; output?: unknown };
/** expect.poll gives up after 1 s by default: too little for a turn on a loaded machine. */
const PATIENCE = { timeout: 10_000 };
const refundPart = (chat: Chat): ToolPart | undefined => chat.messages.at(-1)?.parts.find((part) => part.type === "tool-refund") as ToolPart | undefined;
const textOf = (message: UIMessage | undefined): string => (message?.parts ?? []).filter((part) => part.type === "text").map((part) => (part as { text: string }).text).join("");

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

  it("a call parked for approval becomes a tool approval request; the chat's approval resolves it and the turn goes on in the same message", async () => {
    const chat = approvalChat("chat-approve");
    await chat.sendMessage({ text: `${toolLine("refund", { amount: 5 })}\n/reply Refunded.` });
    const requested = refundPart(chat);
    expect(requested).toMatchObject({ state: "approval-requested", approval: { id: requested?.toolCallId } });
    const sessionId = (chat.messages.at(-1)!.metadata as { sessionId: string }).sessionId;
    const parked = (await (await fetch(`${server.url}/hello/v1/session/${sessionId}/approvals`)).json()) as { approvals: Array<{ callId: string }> };
    expect(parked.approvals.map((call) => call.callId)).toEqual([requested!.toolCallId]);
    expect(refunds).not.toContain(5);

    await chat.addToolApprovalResponse({ id: requested!.approval!.id, approved: true });
    await expect.poll(() => refundPart(chat)?.state, PATIENCE).toBe("output-available");
    await expect.poll(() => chat.status, PATIENCE).toBe("ready");
    expect(refundPart(chat)?.output).toEqual({ refunded: 5 });
    expect(refunds).toContain(5);
    // One user message and one assistant message, which the approval's request continued.
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(chat.messages.at(-1))).toBe("Refunded.");
    const events = await (await fetch(`${server.url}/hello/v1/session/${sessionId}/events`)).text();
    expect(events).toContain(`"decision":"approve"`);
    expect(events.split("\n").filter((line) => line.includes('"message.received"'))).toHaveLength(1);
  });

  it("a denied call is marked denied and never runs", async () => {
    const chat = approvalChat("chat-deny");
    await chat.sendMessage({ text: `${toolLine("refund", { amount: 7 })}\n/reply Not refunded.` });
    const requested = refundPart(chat)!;
    expect(requested.state).toBe("approval-requested");
    await chat.addToolApprovalResponse({ id: requested.approval!.id, approved: false, reason: "too much" });
    await expect.poll(() => refundPart(chat)?.state, PATIENCE).toBe("output-denied");
    await expect.poll(() => chat.status, PATIENCE).toBe("ready");
    await expect.poll(() => textOf(chat.messages.at(-1)), PATIENCE).toBe("Not refunded.");
    expect(refunds).not.toContain(7);
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a new message instead of an answer interrupts the parked call; the reply holds only the new turn", async () => {
    const chat = approvalChat("chat-move-on");
    await chat.sendMessage({ text: toolLine("refund", { amount: 11 }) });
    expect(refundPart(chat)?.state).toBe("approval-requested");
    await chat.sendMessage({ text: "/reply Moved on." });
    await expect.poll(() => chat.status, PATIENCE).toBe("ready");
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const reply = chat.messages.at(-1)!;
    expect(textOf(reply)).toBe("Moved on.");
    expect(reply.parts.some((part) => part.type.startsWith("tool-"))).toBe(false);
    expect(refunds).not.toContain(11);
  });

  it("an answer to a call that is not parked gets 404, a second answer 409, and neither changes anything", async () => {
    const chat = approvalChat("chat-bad-answer");
    await chat.sendMessage({ text: toolLine("refund", { amount: 9 }) });
    const assistant = chat.messages.at(-1)!;
    const requested = refundPart(chat)!;
    const answered = (id: string, approved: boolean): UIMessage => ({
      ...assistant,
      parts: assistant.parts.map((part) => (part.type === "tool-refund" ? ({ ...part, state: "approval-responded", approval: { id, approved } } as UIMessage["parts"][number]) : part)),
    });
    const post = (message: UIMessage) => fetch(`${server.url}/hello/v1/chat`, postJson({ id: "chat-bad-answer", messages: [chat.messages[0], message] }));

    const unknown = await post(answered("call_nope", true));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ ok: false, error: "approval_not_found" });
    const stranger = await fetch(`${server.url}/hello/v1/chat`, postJson({ id: "chat-never-opened", messages: [chat.messages[0], answered(requested.toolCallId, true)] }));
    expect(stranger.status).toBe(404);
    const sessionId = (assistant.metadata as { sessionId: string }).sessionId;
    const stillParked = (await (await fetch(`${server.url}/hello/v1/session/${sessionId}/approvals`)).json()) as { approvals: unknown[] };
    expect(stillParked.approvals).toHaveLength(1);

    const first = await post(answered(requested.toolCallId, false));
    expect(first.status).toBe(200);
    await first.text();
    const again = await post(answered(requested.toolCallId, true));
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ ok: false, error: "approval_already_resolved" });
    expect(refunds).not.toContain(9);
  });
});
