/**
 * Session events as chunks of the AI SDK's UI message stream (the protocol `useChat` reads; see
 * `docs/guide/http-api.md`, "AI SDK chat"). One assistant message per request: it starts with
 * the request's turn and finishes when the session waits again, or when the turn parks a tool
 * call for approval: the call becomes the protocol's tool approval request, and the client's
 * answer comes back in the next request, whose stream continues the same message.
 * @module
 */
import type { UIMessageChunk } from "ai";
import { plainMessage } from "../base/logger.ts";
import type { SessionEvent } from "../base/events/vocabulary.ts";

export interface ChunkState {
  /** The id of the text or reasoning part open now. */
  text?: string;
  reasoning?: string;
  /** Whether a step is open (between start-step and finish-step). */
  step: boolean;
  parts: number;
  /** Calls the user denied: the protocol marks them denied, so their error result is not sent. */
  denied: Set<string>;
  /**
   * The turns this message shows: those that start in the stream, and a parked turn the request
   * continues. The last events of a turn the request interrupted belong to an earlier message.
   */
  turns: Set<string>;
}

export const newChunkState = (continued: Iterable<string> = []): ChunkState => ({ step: false, parts: 0, denied: new Set(), turns: new Set(continued) });

/** The chunks one event becomes, and whether the message is finished. */
export function toUiMessageChunks(event: SessionEvent, state: ChunkState): { chunks: UIMessageChunk[]; done: boolean } {
  if (event.turnId !== undefined && !state.turns.has(event.turnId)) {
    if (event.type !== "turn.started") return { chunks: [], done: false };
    state.turns.add(event.turnId);
  }
  const chunks: UIMessageChunk[] = [];
  const data = event.data;
  const closeText = (): void => {
    if (state.text) chunks.push({ type: "text-end", id: state.text });
    state.text = undefined;
  };
  const closeReasoning = (): void => {
    if (state.reasoning) chunks.push({ type: "reasoning-end", id: state.reasoning });
    state.reasoning = undefined;
  };
  switch (event.type) {
    case "step.started":
      state.step = true;
      chunks.push({ type: "start-step" });
      break;
    case "message.appended":
      if (!state.text) chunks.push({ type: "text-start", id: (state.text = `text_${event.index}`) });
      chunks.push({ type: "text-delta", id: state.text, delta: String(event.data.delta ?? "") });
      break;
    case "message.completed":
      closeText();
      break;
    case "reasoning.appended":
      if (!state.reasoning) chunks.push({ type: "reasoning-start", id: (state.reasoning = `reasoning_${event.index}`) });
      chunks.push({ type: "reasoning-delta", id: state.reasoning, delta: String(event.data.delta ?? "") });
      break;
    case "reasoning.completed":
      closeReasoning();
      break;
    case "step.completed":
      closeReasoning();
      closeText();
      if (state.step) chunks.push({ type: "finish-step" });
      state.step = false;
      break;
    case "actions.requested":
      for (const action of event.data.actions) {
        chunks.push({ type: "tool-input-available", toolCallId: action.toolCallId, toolName: action.toolName, input: action.input ?? {} });
      }
      break;
    case "action.approval_requested":
      // The turn waits for the answer, which only the next request can bring: the message ends here.
      closeReasoning();
      closeText();
      chunks.push({ type: "tool-approval-request", approvalId: event.data.callId, toolCallId: event.data.callId }, { type: "finish" });
      return { chunks, done: true };
    case "action.approval_resolved":
      if (event.data.decision === "deny") {
        state.denied.add(event.data.callId);
        chunks.push({ type: "tool-output-denied", toolCallId: event.data.callId });
      }
      break;
    case "action.result":
      if (state.denied.has(String(event.data.toolCallId))) break;
      chunks.push(
        event.data.isError === true
          ? { type: "tool-output-error", toolCallId: String(event.data.toolCallId), errorText: errorText(event.data.output) }
          : { type: "tool-output-available", toolCallId: String(event.data.toolCallId), output: event.data.output ?? null },
      );
      break;
    case "artifact.tagged":
      chunks.push({ type: "data-artifact", id: String((data as { id?: unknown }).id ?? event.index), data });
      break;
    case "turn.failed": {
      closeReasoning();
      closeText();
      const message = String(event.data.message ?? "the turn failed");
      // A stop is no error: the message ends where it was stopped.
      if (message !== "turn interrupted") chunks.push({ type: "error", errorText: plainMessage(message) });
      break;
    }
    case "session.waiting":
    case "session.completed":
    case "session.failed":
      closeReasoning();
      closeText();
      chunks.push({ type: "finish" });
      return { chunks, done: true };
    default:
      break;
  }
  state.parts += chunks.length;
  return { chunks, done: false };
}

// --- internals ---

function errorText(output: unknown): string {
  if (typeof output === "string") return plainMessage(output);
  const content = (output as { content?: Array<{ text?: unknown }> } | null)?.content;
  const texts = Array.isArray(content) ? content.map((part) => part.text).filter((t): t is string => typeof t === "string") : [];
  return texts.length > 0 ? plainMessage(texts.join(" ")) : JSON.stringify(output);
}
