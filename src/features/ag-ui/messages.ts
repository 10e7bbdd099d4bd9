/**
 * A thread's messages as AG-UI's `MESSAGES_SNAPSHOT` carries them, folded from the session's
 * event log (docs/guide/ag-ui.md "Reconnecting"): what a client that reconnects, or opens the
 * thread in another tab, needs to draw the conversation before the live rest arrives.
 * @module
 */
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { type AgUiMessage, callsMessageId, reasoningMessageId, resultMessageId, textMessageId, toolContent, userMessageId } from "./wire.ts";

/** The messages of `events`, in order; ids match those of the live events (./wire.ts). */
export function toMessagesSnapshot(events: Iterable<SessionEvent>): AgUiMessage[] {
  const messages: AgUiMessage[] = [];
  let textStart: number | undefined;
  let reasoningStart: number | undefined;
  /** The assistant message of the current step, which the step's tool calls join. */
  let stepMessage: Extract<AgUiMessage, { role: "assistant" }> | undefined;
  for (const event of events) {
    switch (event.type) {
      case "message.received":
        messages.push({ id: userMessageId(event.index), role: "user", content: event.data.text });
        break;
      case "step.started":
        stepMessage = undefined;
        break;
      case "message.appended":
        if (event.data.delta) textStart ??= event.index;
        break;
      case "message.completed": {
        const id = textMessageId(textStart ?? event.index);
        textStart = undefined;
        if (event.data.text === "") break;
        stepMessage = { id, role: "assistant", content: event.data.text };
        messages.push(stepMessage);
        break;
      }
      case "reasoning.appended":
        if (event.data.delta) reasoningStart ??= event.index;
        break;
      case "reasoning.completed":
        messages.push({ id: reasoningMessageId(reasoningStart ?? event.index), role: "reasoning", content: event.data.text });
        reasoningStart = undefined;
        break;
      case "actions.requested": {
        if (!stepMessage) messages.push((stepMessage = { id: callsMessageId(event.index), role: "assistant" }));
        const calls = (stepMessage.toolCalls ??= []);
        for (const action of event.data.actions) {
          calls.push({ id: action.toolCallId, type: "function", function: { name: action.toolName, arguments: JSON.stringify(action.input ?? {}) } });
        }
        break;
      }
      case "action.result":
        messages.push({
          id: resultMessageId(event.data.toolCallId),
          role: "tool",
          toolCallId: event.data.toolCallId,
          content: toolContent(event.data.output),
          ...(event.data.isError ? { error: toolContent(event.data.output) } : {}),
        });
        break;
      case "turn.failed":
        textStart = reasoningStart = undefined;
        break;
      default:
        break;
    }
  }
  return messages;
}
