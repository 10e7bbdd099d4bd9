/**
 * Delivery of a reminder's message into its conversation, as a coalesced follow-up: a running
 * turn is never interrupted by a reminder; the message joins the next turn instead.
 *
 * A reminder armed inside a session follows that session directly, so the built-in HTTP
 * channel's rotating token does not strand it, and the client's token stays valid (the
 * follow-up does not rotate it). Otherwise the channel key decides, as any channel send does.
 * @module
 */
import type { ToolHostServices } from "../../base/definitions/tools.ts";
import { HTTPError } from "../../base/errors.ts";
import type { SessionEntry } from "../../base/definitions/session-face.ts";
import type { SessionRecordsView } from "../../base/definitions/sessions.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { ReminderRecord, ReminderRunContext, ReminderRunResult } from "../../base/definitions/reminders.ts";

export type RunHandler = (context: ReminderRunContext) => ReminderRunResult | Promise<ReminderRunResult>;

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
  sessions: SessionEntry;
  store: SessionRecordsView;
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

/**
 * Calls a run-form handler and reads its decision. A throw, or a value that is not
 * `{action: "stop" | "skip" | "delivered"}`, is logged and counts as `skip`; only a conversation
 * that is gone propagates (the reminder is then disarmed).
 */
export async function runReminderHandler(
  deps: DeliveryDeps & { logger: HostLogger; host: () => ToolHostServices },
  handler: RunHandler,
  record: ReminderRecord,
): Promise<ReminderRunResult["action"]> {
  const name = `reminder ${record.id} (${record.purpose})`;
  let result: unknown;
  try {
    result = await handler({
      fireCount: record.fireCount,
      reminder: record,
      host: deps.host(),
      followup: async ({ message }) => {
        if (typeof message !== "string" || message.trim() === "") throw new TypeError("followup needs a non-empty message");
        await deliverToConversation(deps, record, message);
      },
    });
  } catch (error) {
    if (error instanceof ConversationGone) throw error;
    deps.logger.error(`${name}: run threw; counted as skip`, error);
    return "skip";
  }
  const action = typeof result === "object" && result !== null && "action" in result ? result.action : undefined;
  if (action === "stop" || action === "skip" || action === "delivered") return action;
  deps.logger.warn(`${name}: run returned ${JSON.stringify(result) ?? "undefined"}, not {action: "stop" | "skip" | "delivered"}; counted as skip`);
  return "skip";
}

// --- internals ---

function gone(error: unknown): ConversationGone | undefined {
  if (!HTTPError.isError(error)) return undefined;
  if (error.code === "session_not_found") return new ConversationGone("session_not_found");
  if (error.code === "session_not_followable") return new ConversationGone("session_not_followable");
  return undefined;
}
