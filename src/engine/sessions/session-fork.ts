/**
 * Forking a session at one of its events (docs/guide/forking.md): a new session, owned by the
 * source's owner, holding the source's events up to `atIndex` (same indexes, same times), the
 * model conversation as it stood there (./fork-conversation.ts), and `session.forked`. A turn
 * the cut falls inside is closed in the copy with `turn.failed`, so its log reads as every
 * session's does, unless the cut is at a call waiting for approval: then the fork's turn stays
 * parked on its own copy of the call, decided apart from the source's. The source is only read;
 * the fork commits in one write through the session's writer, so a crash leaves all of it or none.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import { badRequest, conflict } from "../../base/errors.ts";
import { newHttpToken } from "../../base/ids.ts";
import type { EventDraft, SessionEvent } from "../../base/events/vocabulary.ts";
import type { ConversationMessage } from "../../base/ports/model.ts";
import type { ApprovalStore } from "../approvals/approval-store.ts";
import type { ConversationLog } from "../turns/conversation.ts";
import type { EventLog } from "./event-log.ts";
import { conversationAt, parkedConversationAt } from "./fork-conversation.ts";
import type { SessionStore } from "./session-store.ts";
import type { SessionWriter } from "./session-writer.ts";

export interface ForkDeps {
  store: SessionStore;
  log: EventLog;
  conversation: ConversationLog;
  writer: SessionWriter;
  now: () => number;
  /** Where a fork at a parked approval parks its copy of the call; without it, such a fork cuts back. */
  approvals?: Pick<ApprovalStore, "parkWrite">;
}

/** What a turn the fork cuts through records in the copy. */
export const FORK_CUT_MESSAGE = "the session was forked inside this turn";

/** Forks `source` (already checked to be the caller's) into `sessionId` at `atIndex`. */
export async function forkSession(deps: ForkDeps, source: SessionRecord, sessionId: string, atIndex: number, auth: AuthContext): Promise<SessionRecord> {
  if (!Number.isInteger(atIndex) || atIndex < 0) throw badRequest("atIndex must be a non-negative integer");
  const events = (await deps.log.readEvents(source.sessionId)).filter((event) => event.index <= atIndex);
  const length = await deps.log.length(source.sessionId);
  if (atIndex >= length) throw badRequest(`atIndex ${atIndex} is past the session's last event (${length - 1})`, { eventCount: length });
  const stored = await deps.conversation.stored(source.sessionId);
  const open = openTurn(events);
  const parked = open === undefined || !deps.approvals ? undefined : parkedAt(events, stored, open);
  const conversation = parked?.conversation ?? conversationAt(events, stored);
  if (!conversation) throw conflict("fork_unavailable", "the session's conversation does not line up with its events at that index");
  const drafts: EventDraft[] = events.map(copy);
  const times: Array<string | undefined> = events.map((event) => event.at);
  if (open !== undefined && !parked) drafts.push({ type: "turn.failed", turnId: open, data: { message: FORK_CUT_MESSAGE } });
  drafts.push({ type: "session.forked", data: { sourceSessionId: source.sessionId, atIndex } });
  // A parked fork's turn is still open: it rests when its call is decided and the turn ends.
  if (!parked) drafts.push(source.mode === "chat" ? { type: "session.waiting", data: {} } : { type: "session.completed", data: {} });
  const started = events.filter((event) => event.type === "turn.started").length;
  const at = new Date(deps.now()).toISOString();
  const record: SessionRecord = {
    sessionId,
    channel: "http",
    mode: source.mode,
    ...(source.title === undefined ? {} : { title: source.title }),
    owner: auth,
    continuationToken: newHttpToken(),
    status: parked ? "running" : source.mode === "chat" ? "idle" : "completed",
    // A turn is counted when it ends; the parked one has not yet.
    turnCount: parked ? started - 1 : started,
    createdAt: at,
    updatedAt: at,
    ...(source.ab === undefined ? {} : { ab: source.ab }),
    ...(source.clientTools === undefined ? {} : { clientTools: source.clientTools }),
  };
  const records = [deps.store.tokenWrite(record.channel, record.continuationToken, sessionId)];
  if (parked && open !== undefined && deps.approvals) {
    // The fork's own copy of each call, pending whatever the source decided since, and the active
    // marker of its open turn: no process runs it, so the first decision (or a follow-up, or a
    // stop) takes it over as it takes over a turn a stopped process left parked.
    for (const call of parked.calls) {
      const view = { callId: call.data.callId, toolName: call.data.toolName, input: call.data.input, turnId: open, requestedAt: call.at };
      records.push(deps.approvals.parkWrite(sessionId, view));
    }
    records.push(deps.store.activeWrite(sessionId, open));
  }
  await deps.writer.fork(sessionId, record, drafts, times, conversation, records);
  return record;
}

// --- internals ---

function copy(event: SessionEvent): EventDraft {
  // SAFETY: an event's type and payload travel together, as the draft's do.
  return { type: event.type, ...(event.turnId === undefined ? {} : { turnId: event.turnId }), data: event.data } as EventDraft;
}

/**
 * A cut at a parked approval: the open turn's calls still waiting for a decision at the end of
 * `events` (not resolved, no result), when they belong to the step that ends the conversation
 * there (calls parked inside a subagent do not, and are asked again when it runs again). A call
 * already decided by the index is not parked: the fork cuts back before its step instead of
 * running it a second time.
 */
function parkedAt(events: readonly SessionEvent[], stored: readonly ConversationMessage[], turnId: string): { calls: Array<SessionEvent<"action.approval_requested">>; conversation: ConversationMessage[] } | undefined {
  const settled = new Set<string>();
  for (const event of events) {
    if (event.turnId !== turnId) continue;
    if (event.type === "action.approval_resolved") settled.add(event.data.callId);
    else if (event.type === "action.result") settled.add(event.data.toolCallId);
  }
  const pending = events.filter((event): event is SessionEvent<"action.approval_requested"> => event.type === "action.approval_requested" && event.turnId === turnId && !settled.has(event.data.callId));
  const last = pending.at(-1);
  if (!last) return undefined;
  const conversation = parkedConversationAt(events, stored, last.data.callId);
  if (!conversation) return undefined;
  const step = conversation.at(-1);
  const inStep = new Set(step?.role === "assistant" ? step.content.flatMap((part) => (part.type === "tool-call" ? [part.toolCallId] : [])) : []);
  return { calls: pending.filter((call) => inStep.has(call.data.callId)), conversation };
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
