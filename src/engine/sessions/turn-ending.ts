/**
 * What a turn that ran ends with on the session's log (docs/design/foundation.md "Sessions and
 * events"): its one terminal event, and the event the session rests with after it. The turn
 * controller hands both to the session's writer, which commits them together.
 * @module
 */
import type { EventDraft } from "../../base/events/vocabulary.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { TurnOutcome } from "../turns/run-turn.ts";
import { ABORT_MESSAGES, type AbortKind, type LiveTurn } from "./live-session.ts";

/** The turn's terminal event: `turn.completed` with its usage, or `turn.failed` with why. */
export function turnEnding(turn: LiveTurn, outcome: Exclude<TurnOutcome, { status: "suspended" }>): EventDraft {
  if (outcome.status === "completed") {
    return { type: "turn.completed", turnId: turn.turnId, data: { usage: outcome.usage, model: outcome.model } };
  }
  const reason = turn.abort.signal.reason as AbortKind | undefined;
  const message = outcome.status === "failed" ? outcome.message : ABORT_MESSAGES[reason ?? "interrupt"];
  return { type: "turn.failed", turnId: turn.turnId, data: { message } };
}

/** What the session rests with after its turn: a chat waits, a task ends. */
export function restingEvent(record: SessionRecord, outcome: TurnOutcome): [EventDraft, SessionRecord["status"]] {
  if (record.mode !== "task") return [{ type: "session.waiting", data: {} }, "idle"];
  if (outcome.status === "completed") return [{ type: "session.completed", data: {} }, "completed"];
  const message = outcome.status === "failed" ? outcome.message : ABORT_MESSAGES.interrupt;
  return [{ type: "session.failed", data: { message } }, "failed"];
}
