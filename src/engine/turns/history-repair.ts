/**
 * Tool calls left without a result in the model history. A provider refuses a history where an
 * assistant tool call has no matching result ("Tool result is missing for tool call …"), so a
 * crash, a stop or a storage outage between a step and its tool results would break the session
 * for good. Recovery appends the missing results; loading also fills any still missing, right
 * after the step that made the calls (docs/design/faults.md).
 * @module
 */
import type { ConversationMessage, ToolCallPart, ToolResultPart } from "../../base/ports/model.ts";

/** Error results for the calls of `messages` that have none, in call order. */
export function missingToolResults(messages: readonly ConversationMessage[], reason: string): ToolResultPart[] {
  const open = new Map<string, ToolCallPart>();
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const part of message.content) if (part.type === "tool-call") open.set(part.toolCallId, part);
    } else if (message.role === "tool") {
      for (const part of message.content) open.delete(part.toolCallId);
    }
  }
  return [...open.values()].map((call) => errorResult(call, reason));
}

/**
 * The history with every call answered: missing results are inserted right after the step that
 * made the call (merged into the tool message that follows it, if any), where providers expect
 * them. Returns `messages` itself when nothing is missing.
 */
export function withToolResults(messages: ConversationMessage[], reason: string): ConversationMessage[] {
  if (missingToolResults(messages, reason).length === 0) return messages;
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role === "tool") for (const part of message.content) answered.add(part.toolCallId);
  }
  const repaired: ConversationMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    repaired.push(message);
    if (message.role !== "assistant") continue;
    const missing = message.content
      .filter((part): part is ToolCallPart => part.type === "tool-call" && !answered.has(part.toolCallId))
      .map((call) => errorResult(call, reason));
    if (missing.length === 0) continue;
    const next = messages[i + 1];
    if (next?.role === "tool") {
      repaired.push({ role: "tool", content: [...next.content, ...missing] });
      i++;
    } else {
      repaired.push({ role: "tool", content: missing });
    }
  }
  return repaired;
}

// --- internals ---

function errorResult(call: ToolCallPart, reason: string): ToolResultPart {
  return { type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output: { type: "error-text", value: reason } };
}
