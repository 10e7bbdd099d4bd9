/**
 * Forking a session at one of its events (docs/guide/forking.md): a new session, owned by the
 * source's owner, holding the source's events up to `atIndex` (same indexes, same times), the
 * model conversation as it stood there (./fork-conversation.ts), and `session.forked`. A turn
 * the cut falls inside is closed in the copy with `turn.failed`, so its log reads as every
 * session's does. The source is only read; the fork commits in one write through the session's
 * writer, so a crash leaves all of it or none.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import { badRequest, conflict } from "../../base/errors.ts";
import { newHttpToken } from "../../base/ids.ts";
import type { EventDraft, SessionEvent } from "../../base/events/vocabulary.ts";
import type { ConversationLog } from "../turns/conversation.ts";
import type { EventLog } from "./event-log.ts";
import { conversationAt } from "./fork-conversation.ts";
import type { SessionStore } from "./session-store.ts";
import type { SessionWriter } from "./session-writer.ts";

export interface ForkDeps {
  store: SessionStore;
  log: EventLog;
  conversation: ConversationLog;
  writer: SessionWriter;
  now: () => number;
}

/** What a turn the fork cuts through records in the copy. */
export const FORK_CUT_MESSAGE = "the session was forked inside this turn";

/** Forks `source` (already checked to be the caller's) into `sessionId` at `atIndex`. */
export async function forkSession(deps: ForkDeps, source: SessionRecord, sessionId: string, atIndex: number, auth: AuthContext): Promise<SessionRecord> {
  if (!Number.isInteger(atIndex) || atIndex < 0) throw badRequest("atIndex must be a non-negative integer");
  const events = (await deps.log.readEvents(source.sessionId)).filter((event) => event.index <= atIndex);
  const length = await deps.log.length(source.sessionId);
  if (atIndex >= length) throw badRequest(`atIndex ${atIndex} is past the session's last event (${length - 1})`, { eventCount: length });
  const conversation = conversationAt(events, await deps.conversation.stored(source.sessionId));
  if (!conversation) throw conflict("fork_unavailable", "the session's conversation does not line up with its events at that index");
  const drafts: EventDraft[] = events.map(copy);
  const times: Array<string | undefined> = events.map((event) => event.at);
  const open = openTurn(events);
  if (open !== undefined) drafts.push({ type: "turn.failed", turnId: open, data: { message: FORK_CUT_MESSAGE } });
  drafts.push({ type: "session.forked", data: { sourceSessionId: source.sessionId, atIndex } });
  drafts.push(source.mode === "chat" ? { type: "session.waiting", data: {} } : { type: "session.completed", data: {} });
  const at = new Date(deps.now()).toISOString();
  const record: SessionRecord = {
    sessionId,
    channel: "http",
    mode: source.mode,
    ...(source.title === undefined ? {} : { title: source.title }),
    owner: auth,
    continuationToken: newHttpToken(),
    status: source.mode === "chat" ? "idle" : "completed",
    turnCount: events.filter((event) => event.type === "turn.started").length,
    createdAt: at,
    updatedAt: at,
    ...(source.ab === undefined ? {} : { ab: source.ab }),
    ...(source.clientTools === undefined ? {} : { clientTools: source.clientTools }),
  };
  await deps.writer.fork(sessionId, record, drafts, times, conversation, [deps.store.tokenWrite(record.channel, record.continuationToken, sessionId)]);
  return record;
}

// --- internals ---

function copy(event: SessionEvent): EventDraft {
  // SAFETY: an event's type and payload travel together, as the draft's do.
  return { type: event.type, ...(event.turnId === undefined ? {} : { turnId: event.turnId }), data: event.data } as EventDraft;
}

/** The turn started and not yet ended at the end of `events`, if any. */
function openTurn(events: readonly SessionEvent[]): string | undefined {
  let open: string | undefined;
  for (const event of events) {
    if (event.type === "turn.started") open = event.turnId;
    else if ((event.type === "turn.completed" || event.type === "turn.failed") && event.turnId === open) open = undefined;
  }
  return open;
}
