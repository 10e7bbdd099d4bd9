/**
 * Delivery of a reminder's message into its conversation, as a coalesced follow-up: a running
 * turn is never interrupted by a reminder; the message joins the next turn instead.
 *
 * A reminder armed inside a session follows that session directly, so the built-in HTTP
 * channel's rotating token does not strand it, and the client's token stays valid (the
 * follow-up does not rotate it). Otherwise the channel key decides, as any channel send does.
 * @module
 */
import { HTTPError } from "../errors.ts";
import type { SessionService } from "../sessions/session-service.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { ReminderRecord } from "./types.ts";

/** A delivery that can never succeed: the reminder is disarmed with this reason. */
export class ConversationGone extends Error {
  override readonly name = "ConversationGone";
  readonly reason: "session_not_found" | "session_not_followable";
  constructor(reason: "session_not_found" | "session_not_followable") {
    super(`[agent-serve] [reminders] ${reason}`);
    this.reason = reason;
  }
}

export interface DeliveryDeps {
  sessions: SessionService;
  store: SessionStore;
}

/** Sends `text` into the reminder's conversation; resolves with the session it went to. */
export async function deliverToConversation(deps: DeliveryDeps, record: ReminderRecord, text: string): Promise<string> {
  if (record.sessionId === undefined) {
    try {
      const sent = await deps.sessions.send(record.channelId, text, { continuationToken: record.continuationToken, admission: "coalesce" });
      return sent.sessionId;
    } catch (error) {
      throw gone(error) ?? error;
    }
  }
  // The token is read fresh and may rotate in between (an HTTP client's own follow-up): retry.
  for (let attempt = 0; ; attempt++) {
    const session = await deps.store.get(record.sessionId);
    if (!session) throw new ConversationGone("session_not_found");
    if (session.mode !== "chat") throw new ConversationGone("session_not_followable");
    try {
      await deps.sessions.followUp(session.sessionId, {
        message: text,
        auth: session.owner,
        continuationToken: session.continuationToken,
        admission: "coalesce",
        rotate: false,
      });
      return session.sessionId;
    } catch (error) {
      if (attempt < 3 && HTTPError.isError(error) && error.code === "stale_continuation_token") continue;
      throw gone(error) ?? error;
    }
  }
}

/** The follow-up text of a prompt-form reminder: the prompt, then its standing condition. */
export function reminderMessage(record: ReminderRecord, cancelTool: boolean): string {
  const prompt = record.prompt ?? `Reminder: ${record.purpose}`;
  if (record.until === undefined) return prompt;
  const how = cancelTool ? ` by calling reminders_cancel with {"id": "${record.id}"}` : "";
  return `${prompt}\n\n(Standing instruction for reminder ${record.id} "${record.purpose}": once this holds, stop the reminder${how} instead of acting on it: ${record.until})`;
}

// --- internals ---

function gone(error: unknown): ConversationGone | undefined {
  if (!HTTPError.isError(error)) return undefined;
  if (error.code === "session_not_found") return new ConversationGone("session_not_found");
  if (error.code === "session_not_followable") return new ConversationGone("session_not_followable");
  return undefined;
}
