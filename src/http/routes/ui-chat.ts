/**
 * `POST /v1/chat`: the AI SDK's chat protocol, so a `useChat` front end (or any
 * `DefaultChatTransport`) talks to the agent with no glue code (see `docs/guide/http-api.md`,
 * "AI SDK chat"). The chat id names the session: the first request opens it on the `ui` channel,
 * later ones continue it. The key includes the caller's principal, so two callers who pick the
 * same chat id get two sessions. The answer streams the new turn as a UI message stream.
 *
 * A call the turn parks for approval ends the message with the protocol's tool approval request.
 * `useChat`'s `addToolApprovalResponse` then sends the assistant message back with the call's part
 * answered (`approval-responded`); that request decides the parked call, as the approval route
 * does, and streams the rest of the turn into the same message.
 * @module
 */
import { validate } from "../../base/validate.ts";
import type { AgentRuntime } from "../agent.ts";
import { badRequest } from "../../base/errors.ts";
import { type UiChatBody, uiChatBody } from "../schemas/ui-chat.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { sessionNotFound } from "../../engine/sessions/session-service.ts";
import type { AuthContext } from "../../base/auth.ts";
import { readJsonBody } from "../../base/body.ts";
import { eventStreamResponse } from "../event-stream.ts";
import { defineRoute } from "../route.ts";
import { newChunkState, toUiMessageChunks } from "../ui-message-chunks.ts";
import { decideApproval } from "./approvals.ts";

/** The channel of sessions opened through this route. */
export const UI_CHAT_CHANNEL = "ui";

export const uiChat = defineRoute({
  method: "POST",
  path: "/v1/chat",
  auth: "agent",
  summary: "Chat in the AI SDK's UI message stream protocol (useChat, DefaultChatTransport); the chat id names the session",
  bodySchema: uiChatBody,
  async handler({ request, agent, auth, host }) {
    const body = await validate(await readJsonBody(request, host.maxBodyBytes), uiChatBody);
    const key = `${auth.principalId}:${body.id}`;
    const last = body.messages.at(-1)!;
    const answers = last.role === "assistant" ? approvalAnswers(last.parts) : [];
    const sent = answers.length > 0 ? await answerApprovals(agent, auth, key, answers) : await sendText(agent, auth, key, last);
    // Answers continue the assistant message they answer; its id keeps the client from starting another.
    const sameMessage = answers.length > 0 && typeof last["id"] === "string" ? { messageId: last["id"] } : {};
    const events = eventStreamResponse(agent.log, sent.sessionId, { startIndex: sent.from, follow: true, endOnTerminal: false, closing: host.closing });
    // `ai` loads on first use, as for models: a host that never serves this route never pays for it.
    const { createUIMessageStream, createUIMessageStreamResponse } = await import("../../engine/model/ai-sdk-runtime.ts");
    const stream = createUIMessageStream({
      async execute({ writer }) {
        writer.write({ type: "start", ...sameMessage, messageMetadata: { sessionId: sent.sessionId } });
        const state = newChunkState(sent.continues);
        for await (const event of readEvents(events)) {
          const { chunks, done } = toUiMessageChunks(event, state);
          for (const chunk of chunks) writer.write(chunk);
          if (done) return;
        }
      },
    });
    return createUIMessageStreamResponse({ stream, headers: { "x-agent-serve-session-id": sent.sessionId } });
  },
});

// --- internals ---

type Message = UiChatBody["messages"][number];

interface Sent {
  sessionId: string;
  /** Where the answer's events start. */
  from: number;
  /** Turns already running that the answer continues (a parked turn). */
  continues: string[];
}

/** Sends the user's text: the first request of a chat opens its session, later ones continue it. */
async function sendText(agent: AgentRuntime, auth: AuthContext, key: string, last: Message): Promise<Sent> {
  const text = last.role === "user" ? last.parts.flatMap((part) => (part.type === "text" && part.text ? [part.text] : [])).join("\n") : "";
  if (text.trim() === "") throw badRequest("the last message must be the user's, with text, or the assistant's with tool approval responses");
  const existing = await agent.sessions.lookup(UI_CHAT_CHANNEL, key);
  const from = existing === undefined ? 0 : await agent.log.length(existing);
  const sent = await agent.sessions.send(UI_CHAT_CHANNEL, text, { auth, continuationToken: key, ...(existing ? {} : { title: text.slice(0, 80) }) });
  return { sessionId: sent.sessionId, from, continues: [] };
}

interface ApprovalAnswer {
  /** The approval request's id, which is the parked call's id. */
  id: string;
  approved: boolean;
}

/** The tool parts the user has answered and the host has not yet heard of. */
function approvalAnswers(parts: Message["parts"]): ApprovalAnswer[] {
  return parts.flatMap((part) =>
    part.state === "approval-responded" && part.approval?.approved !== undefined ? [{ id: part.approval.id, approved: part.approval.approved }] : [],
  );
}

/**
 * Decides the answered calls through the approval route's own logic. All or nothing: when one is
 * not parked, its 404 or 409 comes before any call is decided.
 */
async function answerApprovals(agent: AgentRuntime, auth: AuthContext, key: string, answers: ApprovalAnswer[]): Promise<Sent> {
  const sessionId = await agent.sessions.lookup(UI_CHAT_CHANNEL, key);
  if (sessionId === undefined) throw sessionNotFound();
  await agent.sessions.owned(sessionId, auth);
  const parked = new Map((await agent.approvals.list(sessionId)).map((call) => [call.callId, call.turnId]));
  const unparked = answers.find((answer) => !parked.has(answer.id));
  if (unparked) await decideApproval(agent, auth, sessionId, unparked.id, unparked.approved ? "approve" : "deny");
  // The stream starts before the decisions, so it carries everything they set off.
  const from = await agent.log.length(sessionId);
  for (const answer of answers) await decideApproval(agent, auth, sessionId, answer.id, answer.approved ? "approve" : "deny");
  return { sessionId, from, continues: answers.map((answer) => parked.get(answer.id)!) };
}

/** The events of an NDJSON event-stream response, until it ends or the reader stops. */
async function* readEvents(response: Response): AsyncGenerator<SessionEvent> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      pending += value;
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line) yield JSON.parse(line) as SessionEvent;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
