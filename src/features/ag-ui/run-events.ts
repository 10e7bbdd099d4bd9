/**
 * A session's events as the AG-UI events of one run (docs/guide/ag-ui.md "Events"). A run shows
 * the turns that start in it, and a parked turn it resumes; it ends with its turn: completed is
 * `RUN_FINISHED` (success), failed is `RUN_ERROR`, stopped is `RUN_FINISHED` (cancelled), a call
 * parked for approval ends it with an interrupt the route fills in, and a call of a front-end tool
 * ends it with the call pending for the front end. Nothing here reads storage.
 * @module
 */
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { type AgUiEvent, callsMessageId, reasoningMessageId, resultMessageId, textMessageId, toolContent } from "./wire.ts";

/** How a run ended, before the route adds what needs storage (interrupts, state). */
export type RunEnd = { kind: "success" } | { kind: "interrupt" } | { kind: "client" } | { kind: "cancelled" } | { kind: "error"; message: string };

export interface RunTranslation {
  turns: Set<string>;
  text?: string;
  reasoning?: string;
  step?: string;
  /** The assistant message of the open step, the parent of its tool calls. */
  stepMessage?: string;
}

/** The message a stopped turn fails with (docs/guide/http-api.md "Events"). */
const INTERRUPTED = "turn interrupted";

export const newRunTranslation = (continued: Iterable<string> = []): RunTranslation => ({ turns: new Set(continued) });

/** The AG-UI events one session event becomes, and how the run ended when it did. */
export function toAgUiEvents(event: SessionEvent, state: RunTranslation): { events: AgUiEvent[]; end?: RunEnd } {
  if (event.turnId !== undefined && !state.turns.has(event.turnId)) {
    if (event.type !== "turn.started") return { events: [] };
    state.turns.add(event.turnId);
  }
  const events: AgUiEvent[] = [];
  const close = (): void => {
    closeReasoning(state, events);
    closeText(state, events);
    if (state.step) events.push({ type: "STEP_FINISHED", stepName: state.step });
    state.step = undefined;
  };
  switch (event.type) {
    case "step.started":
      close();
      state.step = `step ${event.data.stepIndex}`;
      state.stepMessage = undefined;
      events.push({ type: "STEP_STARTED", stepName: state.step });
      break;
    case "message.appended":
      if (!event.data.delta) break;
      if (!state.text) {
        state.text = state.stepMessage = textMessageId(event.index);
        events.push({ type: "TEXT_MESSAGE_START", messageId: state.text, role: "assistant" });
      }
      events.push({ type: "TEXT_MESSAGE_CONTENT", messageId: state.text, delta: event.data.delta });
      break;
    case "message.completed":
      if (!state.text && event.data.text) {
        // A message with no streamed deltas (a channel's emitted message): sent whole.
        const messageId = (state.stepMessage = textMessageId(event.index));
        events.push({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" }, { type: "TEXT_MESSAGE_CONTENT", messageId, delta: event.data.text });
        state.text = messageId;
      }
      closeText(state, events);
      break;
    case "reasoning.appended":
      if (!event.data.delta) break;
      if (!state.reasoning) {
        state.reasoning = reasoningMessageId(event.index);
        events.push({ type: "REASONING_START", messageId: state.reasoning }, { type: "REASONING_MESSAGE_START", messageId: state.reasoning, role: "reasoning" });
      }
      events.push({ type: "REASONING_MESSAGE_CONTENT", messageId: state.reasoning, delta: event.data.delta });
      break;
    case "reasoning.completed":
      closeReasoning(state, events);
      break;
    case "actions.requested": {
      closeReasoning(state, events);
      closeText(state, events);
      const parentMessageId = (state.stepMessage ??= callsMessageId(event.index));
      for (const { toolCallId, toolName, input } of event.data.actions) {
        events.push(
          { type: "TOOL_CALL_START", toolCallId, toolCallName: toolName, parentMessageId },
          { type: "TOOL_CALL_ARGS", toolCallId, delta: JSON.stringify(input ?? {}) },
          { type: "TOOL_CALL_END", toolCallId },
        );
      }
      break;
    }
    case "action.result":
      events.push({
        type: "TOOL_CALL_RESULT",
        messageId: resultMessageId(event.data.toolCallId),
        toolCallId: event.data.toolCallId,
        content: toolContent(event.data.output),
        role: "tool",
      });
      break;
    case "step.completed":
      close();
      break;
    case "action.approval_requested":
      close();
      return { events, end: { kind: "interrupt" } };
    case "action.client_requested":
      // The front end runs the call: the run ends, and its result comes with the next run.
      close();
      return { events, end: { kind: "client" } };
    case "turn.completed":
      close();
      return { events, end: { kind: "success" } };
    case "turn.failed":
      close();
      return { events, end: event.data.message === INTERRUPTED ? { kind: "cancelled" } : { kind: "error", message: event.data.message } };
    case "session.failed":
      close();
      return { events, end: { kind: "error", message: event.data.message } };
    default:
      break;
  }
  return { events };
}

// --- internals ---

function closeText(state: RunTranslation, events: AgUiEvent[]): void {
  if (state.text) events.push({ type: "TEXT_MESSAGE_END", messageId: state.text });
  state.text = undefined;
}

function closeReasoning(state: RunTranslation, events: AgUiEvent[]): void {
  if (state.reasoning) events.push({ type: "REASONING_MESSAGE_END", messageId: state.reasoning }, { type: "REASONING_END", messageId: state.reasoning });
  state.reasoning = undefined;
}
