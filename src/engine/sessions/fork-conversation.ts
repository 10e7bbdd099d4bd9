/**
 * The model conversation of a session as it stood at one event (docs/guide/forking.md "What the
 * fork holds"). The conversation log has no indexes of its own: each message was committed with
 * one event (docs/design/storage.md), so walking the events in order walks the messages in order.
 * A user message commits with `turn.started`, an assistant step with `step.completed`, a step's
 * tool results with its last `action.result`; recovery and an interrupted queue add tool or user
 * messages with no event of their own, which the walk takes as it meets them at a turn's end.
 * Inside a turn the cut goes back to the last whole step: an assistant step whose tool results
 * are not all in is left out.
 * @module
 */
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import type { ConversationMessage } from "../../base/ports/model.ts";

/**
 * The messages of `stored` as they stood after `events` (the log up to the fork's index), or
 * undefined when the two logs do not line up (the caller refuses the fork rather than guess).
 */
export function conversationAt(events: readonly SessionEvent[], stored: readonly ConversationMessage[]): ConversationMessage[] | undefined {
  const at = walk(events, stored);
  return at && stored.slice(0, at.whole);
}

/**
 * The messages of `stored` through the step whose call `callId` waits for approval at the end of
 * `events` (a fork at a parked approval keeps it parked, docs/guide/forking.md "At a parked
 * approval"): the conversation ends with that assistant step, as a parked turn's stored
 * conversation does. Undefined when the cut is not inside that step's tool round.
 */
export function parkedConversationAt(events: readonly SessionEvent[], stored: readonly ConversationMessage[], callId: string): ConversationMessage[] | undefined {
  const at = walk(events, stored);
  if (!at || at.next === at.whole) return undefined;
  const step = stored[at.next - 1];
  if (step?.role !== "assistant" || !step.content.some((part) => part.type === "tool-call" && part.toolCallId === callId)) return undefined;
  return stored.slice(0, at.next);
}

// --- internals ---

/** How far the events reach into `stored`: `next` messages taken, the first `whole` of them whole. */
function walk(events: readonly SessionEvent[], stored: readonly ConversationMessage[]): { next: number; whole: number } | undefined {
  let next = 0;
  let whole = 0;
  const answered = new Set<string>();
  const started = new Set<string>();
  const take = (role: ConversationMessage["role"]): ConversationMessage | undefined => (stored[next]?.role === role ? stored[next++] : undefined);
  // Messages written with no event of their own, met where a turn ends.
  const skipUnmarked = (): void => {
    while (stored[next]?.role === "tool") whole = ++next;
  };
  for (const event of events) {
    switch (event.type) {
      case "turn.started":
        skipUnmarked();
        if (!take("user")) return undefined;
        if (event.turnId) started.add(event.turnId);
        whole = next;
        break;
      case "step.completed": {
        const step = take("assistant");
        if (!step || step.role !== "assistant") return undefined;
        if (!step.content.some((part) => part.type === "tool-call")) whole = next;
        break;
      }
      case "action.result": {
        answered.add(event.data.toolCallId);
        const results = stored[next];
        if (results?.role === "tool" && results.content.every((part) => answered.has(part.toolCallId))) whole = ++next;
        break;
      }
      case "turn.completed":
      case "turn.failed":
        skipUnmarked();
        // A turn closed before it started (its queued messages interrupted) keeps their text.
        if (event.type === "turn.failed" && event.turnId && !started.has(event.turnId) && take("user")) whole = next;
        break;
      default:
        break;
    }
  }
  return { next, whole };
}
