/**
 * What a session's events say about its latest message: the reply, whether the turn completed,
 * why it failed, the tools it called and how the session settled. Evals (`t.send`) and MCP
 * (`ask` / `check`) both report from this one fold.
 * @module
 */
import type { SessionEvent } from "./vocabulary.ts";

export interface ReplyState {
  /** A `message.received` was read: there is a turn to report on. */
  sawMessage: boolean;
  /** The last assistant message since that message that is not a tool-calling step. */
  reply?: string;
  /** Whether the latest turn completed. */
  completed: boolean;
  /** The `turn.failed` message of the latest turn, when it failed. */
  turnError?: string;
  /** The `session.failed` message, when the session failed after the latest message. */
  sessionError?: string;
  /** Tool calls the model requested (all of them, across messages). */
  toolCalls: Array<{ toolName: string; input: unknown }>;
  /** How the session settled after the latest message; undefined while it runs. */
  settled?: "waiting" | "completed" | "failed";
  /** Calls of the latest turn parked for approval and not yet resolved, by call id. */
  pending: Map<string, PendingApproval>;
}

/** A call parked for a human decision, as MCP `check` and `ask` list it. */
export interface PendingApproval {
  callId: string;
  toolName: string;
  input: unknown;
}

export function emptyReplyState(): ReplyState {
  return { sawMessage: false, completed: false, toolCalls: [], pending: new Map() };
}

/**
 * Applies one event. Every message starts a fresh report: an interrupted turn's failure, or the
 * `session.waiting` of the turn before, never describes the turn the latest message started.
 */
export function foldReply(state: ReplyState, event: SessionEvent): ReplyState {
  switch (event.type) {
    case "message.received":
      state.sawMessage = true;
      state.completed = false;
      state.reply = undefined;
      state.turnError = undefined;
      state.sessionError = undefined;
      state.settled = undefined;
      state.pending.clear();
      break;
    case "message.completed":
      if (event.data.finishReason !== "tool_call") state.reply = event.data.text;
      break;
    case "actions.requested":
      for (const { toolName, input } of event.data.actions) state.toolCalls.push({ toolName, input });
      break;
    case "turn.completed":
      state.completed = true;
      state.turnError = undefined;
      break;
    case "turn.failed":
      state.completed = false;
      state.turnError = event.data.message;
      state.pending.clear();
      break;
    case "action.approval_requested": {
      const { callId, toolName, input } = event.data;
      state.pending.set(callId, { callId, toolName, input });
      break;
    }
    case "action.approval_resolved":
      state.pending.delete(event.data.callId);
      break;
    case "session.waiting":
      state.settled = "waiting";
      break;
    case "session.completed":
      state.settled = "completed";
      break;
    case "session.failed":
      state.settled = "failed";
      state.sessionError = event.data.message;
      break;
    default:
      break;
  }
  return state;
}
