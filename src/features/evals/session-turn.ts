/**
 * Waiting for an eval session to settle after a message: reads the event log from the index the
 * message was sent at until the session waits again (or ends), following it live in between.
 * @module
 */
import type { EventLogView } from "../../base/events/log-view.ts";
import { SETTLING_EVENTS, type SessionEvent } from "../../base/events/vocabulary.ts";
import { followLog } from "../../base/events/follow.ts";
import { emptyReplyState, foldReply } from "../../base/events/reply-fold.ts";

/** What one `t.send` observed. */
export interface TurnObservation {
  /** Every event from the send up to and including the settling one. */
  events: SessionEvent[];
  /** The last assistant message that is not a tool-calling step; `""` when there was none. */
  reply: string;
  /** Whether the last turn completed; false when it failed or was interrupted. */
  succeeded: boolean;
  /** The `turn.failed` message of the last turn, when it failed. */
  error?: string;
  /** Tool calls the model requested. */
  toolCalls: Array<{ toolName: string; input: unknown }>;
}

/** Resolves once the session settles after the events from `from`; rejects when `signal` aborts. */
export async function observeTurn(log: EventLogView, sessionId: string, from: number, signal: AbortSignal): Promise<TurnObservation> {
  signal.throwIfAborted();
  const events: SessionEvent[] = [];
  const state = emptyReplyState();
  for await (const { lines } of followLog(log, sessionId, { from, live: true, signal })) {
    for (const line of lines) {
      const event = JSON.parse(line) as SessionEvent;
      events.push(event);
      foldReply(state, event);
      if (SETTLING_EVENTS.has(event.type)) {
        const error = state.completed ? undefined : state.turnError;
        return { events, reply: state.reply ?? "", succeeded: state.completed, ...(error === undefined ? {} : { error }), toolCalls: state.toolCalls };
      }
    }
  }
  signal.throwIfAborted();
  throw new Error("the session's event log ended before the session settled");
}
