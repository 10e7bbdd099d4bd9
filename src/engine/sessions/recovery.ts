/**
 * Crash recovery (docs/design/foundation.md "Guarantees"): on start, every turn that was admitted
 * but never ended gets
 * `turn.failed {message: "host restarted"}` and the session returns to waiting (chat) or failed
 * (task). A turn parked for approval is the exception: it resumes, still parked
 * (docs/design/tools.md "Approvals"). Only sessions with an active marker are read, so start-up
 * cost does not grow with the number of stored sessions.
 * @module
 */
import type { ConversationLog } from "../turns/conversation.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { EventLog } from "./event-log.ts";
import type { EventDraft, SessionEvent } from "../../base/events/vocabulary.ts";
import type { SessionStore } from "./session-store.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { TurnLeases } from "./turn-leases.ts";
import { cutShortCalls, cutShortDrafts, cutShortReasons, type IsIdempotent } from "./cut-short-calls.ts";

export const RESTART_MESSAGE = "host restarted";

export async function recoverSessions(deps: RecoveryDeps): Promise<number> {
  const { store, logger } = deps;
  let recovered = 0;
  for (const sessionId of await store.listActive()) {
    try {
      if (await recoverSession(deps, sessionId)) recovered++;
    } catch (error) {
      logger.error(`could not recover session ${sessionId}`, error);
    }
  }
  if (recovered > 0) logger.info(`recovered ${recovered} session(s) interrupted by a restart`);
  return recovered;
}

export interface RecoveryDeps {
  store: SessionStore;
  log: EventLog;
  logger: HostLogger;
  conversation?: ConversationLog;
  /** The turn leases: a crashed turn's lease would shut the session for its ttl. */
  leases?: TurnLeases;
  /** Parked calls of the turns recovery fails are closed (docs/design/tools.md "Approvals"). */
  approvals?: { closeAll(sessionId: string): Promise<void> };
  /**
   * Continues a turn parked for approval instead of failing it; resolves false when the session
   * has none (`resumeParkedTurn` in ./parked-turns.ts). Restart recovery passes it.
   */
  resumeParked?: (record: SessionRecord, events: SessionEvent[]) => Promise<boolean>;
  /** Which tools declared `idempotent` (what the model is told of a cut call); none without it. */
  isIdempotent?: IsIdempotent;
}

/**
 * Closes what was left open in one session: its turns fail with `message`, the session rests, the
 * model history gets a result for every call without one, and the active marker goes. Also used
 * without a restart, once the store takes writes again after an outage (docs/design/faults.md).
 * Resolves false when the session no longer exists.
 */
export async function recoverSession(deps: RecoveryDeps, sessionId: string, message = RESTART_MESSAGE): Promise<boolean> {
  const { store, log } = deps;
  const record = await store.get(sessionId);
  if (!record) {
    await store.clearActive(sessionId);
    return false;
  }
  const events = await log.readEvents(sessionId);
  if (await deps.resumeParked?.(record, events)) return true;
  // A call cut short mid-run is `outcome_unknown`, never run again here (./cut-short-calls.ts).
  const cut = cutShortCalls(events, deps.isIdempotent);
  // Before the turn is closed: a provider refuses a history with a call that has no result.
  await deps.conversation?.closeOpenToolCalls(sessionId, message, cutShortReasons(cut));
  await deps.approvals?.closeAll(sessionId);
  const drafts = [...cutShortDrafts(cut), ...closingEvents(events, record.mode, message)];
  const failedTask = record.mode === "task" && drafts.some((draft) => draft.type === "session.failed");
  const rest = (r: SessionRecord): void => {
    r.status = record.mode === "chat" ? "idle" : failedTask ? "failed" : r.status === "completed" ? "completed" : "failed";
  };
  // The closing events and the status they give the session are one commit, as a turn's end is
  // (docs/design/storage.md "How the sessions use it").
  if (drafts.length > 0) await store.updateWith(sessionId, rest, (records) => log.append(sessionId, drafts, { records }));
  else await store.update(sessionId, rest);
  // The marker names the lease's owner (the crashed process, or this one after an outage).
  const owner = await store.activeTurn(sessionId);
  if (owner !== undefined) await deps.leases?.release(sessionId, owner);
  await store.clearActive(sessionId);
  return true;
}

/** The events that close what a crash left open, in order. */
export function closingEvents(events: SessionEvent[], mode: "chat" | "task", message = RESTART_MESSAGE): EventDraft[] {
  const open: string[] = [];
  let terminal = false;
  for (const event of events) {
    const turnId = event.turnId;
    if (turnId && (event.type === "message.received" || event.type === "turn.queued" || event.type === "turn.started")) {
      if (!open.includes(turnId)) open.push(turnId);
    } else if (turnId && (event.type === "turn.completed" || event.type === "turn.failed")) {
      const at = open.indexOf(turnId);
      if (at >= 0) open.splice(at, 1);
    } else if (event.type === "session.completed" || event.type === "session.failed") {
      terminal = true;
    }
  }
  const drafts: EventDraft[] = open.map((turnId) => ({
    type: "turn.failed",
    turnId,
    data: { message },
  }));
  const last = events.at(-1);
  if (mode === "chat" && (drafts.length > 0 || (last && last.type !== "session.waiting"))) {
    drafts.push({ type: "session.waiting", data: {} });
  }
  if (mode === "task" && !terminal) drafts.push({ type: "session.failed", data: { message } });
  return drafts;
}
