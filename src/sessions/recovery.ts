/**
 * Crash recovery (DESIGN.md §6): on start, every turn that was admitted but never ended gets
 * `turn.failed {message: "host restarted"}` and the session returns to waiting (chat) or failed
 * (task). Only sessions with an active marker are read, so start-up cost does not grow with the
 * number of stored sessions.
 * @module
 */
import type { HostLogger } from "../types.ts";
import type { EventLog } from "./event-log.ts";
import type { EventDraft, SessionEvent } from "./events.ts";
import type { SessionStore } from "./session-store.ts";
import type { TurnLeases } from "./turn-leases.ts";

export const RESTART_MESSAGE = "host restarted";

export async function recoverSessions(deps: { store: SessionStore; log: EventLog; logger: HostLogger; leases?: TurnLeases }): Promise<number> {
  const { store, log, logger, leases } = deps;
  let recovered = 0;
  for (const sessionId of await store.listActive()) {
    try {
      const record = await store.get(sessionId);
      if (!record) {
        await store.clearActive(sessionId);
        continue;
      }
      const drafts = closingEvents(await log.readEvents(sessionId), record.mode);
      if (drafts.length > 0) await log.append(sessionId, drafts);
      const failedTask = record.mode === "task" && drafts.some((draft) => draft.type === "session.failed");
      await store.update(sessionId, (r) => {
        r.status = record.mode === "chat" ? "idle" : failedTask ? "failed" : r.status === "completed" ? "completed" : "failed";
      });
      // The crashed process's turn lease would shut the session for its ttl; the marker names it.
      const owner = await store.activeTurn(sessionId);
      if (owner !== undefined) await leases?.release(sessionId, owner);
      await store.clearActive(sessionId);
      recovered++;
    } catch (error) {
      logger.error(`could not recover session ${sessionId}`, error);
    }
  }
  if (recovered > 0) logger.info(`recovered ${recovered} session(s) interrupted by a restart`);
  return recovered;
}

/** The events that close what a crash left open, in order. */
export function closingEvents(events: SessionEvent[], mode: "chat" | "task"): EventDraft[] {
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
    data: { message: RESTART_MESSAGE },
  }));
  const last = events.at(-1);
  if (mode === "chat" && (drafts.length > 0 || (last && last.type !== "session.waiting"))) {
    drafts.push({ type: "session.waiting", data: {} });
  }
  if (mode === "task" && !terminal) drafts.push({ type: "session.failed", data: { message: RESTART_MESSAGE } });
  return drafts;
}
