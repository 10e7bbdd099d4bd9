/**
 * `POST /v1/chat`: the AI SDK's chat protocol, so a `useChat` front end (or any
 * `DefaultChatTransport`) talks to the agent with no glue code (see `docs/guide/http-api.md`,
 * "AI SDK chat"). The chat id names the session: the first request opens it on the `ui` channel,
 * later ones continue it. The key includes the caller's principal, so two callers who pick the
 * same chat id get two sessions. The answer streams the new turn as a UI message stream.
 * @module
 */
import { validate } from "../../_validate.ts";
import { badRequest } from "../../errors.ts";
import { uiChatBody } from "../../schemas/ui-chat.ts";
import type { SessionEvent } from "../../sessions/events.ts";
import { readJsonBody } from "../body.ts";
import { eventStreamResponse } from "../event-stream.ts";
import { defineRoute } from "../route.ts";
import { newChunkState, toUiMessageChunks } from "../ui-message-chunks.ts";

/** The channel of sessions opened through this route. */
export const UI_CHAT_CHANNEL = "ui";

export const uiChat = defineRoute({
  method: "POST",
  path: "/v1/chat",
  auth: "agent",
  summary: "Chat in the AI SDK's UI message stream protocol (useChat, DefaultChatTransport); the chat id names the session",
  async handler({ request, agent, auth, host }) {
    const body = await validate(await readJsonBody(request, host.maxBodyBytes), uiChatBody);
    const last = body.messages.at(-1)!;
    const text = last.role === "user" ? last.parts.flatMap((part) => (part.type === "text" && part.text ? [part.text] : [])).join("\n") : "";
    if (text.trim() === "") throw badRequest("the last message must be the user's, with text");
    const key = `${auth.principalId}:${body.id}`;
    const existing = await agent.sessions.lookup(UI_CHAT_CHANNEL, key);
    const from = existing === undefined ? 0 : await agent.log.length(existing);
    const sent = await agent.sessions.send(UI_CHAT_CHANNEL, text, { auth, continuationToken: key, ...(existing ? {} : { title: text.slice(0, 80) }) });
    const events = eventStreamResponse(agent.log, sent.sessionId, { startIndex: from, follow: true, endOnTerminal: false, closing: host.closing });
    // `ai` loads on first use, as for models: a host that never serves this route never pays for it.
    const { createUIMessageStream, createUIMessageStreamResponse } = await import("ai");
    const stream = createUIMessageStream({
      async execute({ writer }) {
        writer.write({ type: "start", messageMetadata: { sessionId: sent.sessionId } });
        const state = newChunkState();
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
