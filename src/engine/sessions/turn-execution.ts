/**
 * One admitted turn from its turn slot to its outcome (docs/design/foundation.md "Admission"):
 * it waits for a slot (`turn.queued` while it waits behind others), records `turn.started`, and
 * runs the model turn, or resumes a parked one from its stored events. What it ends with is the
 * controller's to record.
 * @module
 */
import { errorMessage } from "../../base/errors.ts";
import { plainMessage } from "../../base/logger.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { ConversationLog } from "../turns/conversation.ts";
import { type TurnOutcome, resumeTurn, runTurn } from "../turns/run-turn.ts";
import type { TurnRunner } from "../turns/turn-runner.ts";
import type { EventLog } from "./event-log.ts";
import type { LiveTurn } from "./live-session.ts";
import type { TurnRecords } from "./turn-records.ts";
import type { Release, SlotPool } from "./turn-slots.ts";

export interface ExecutionDeps {
  log: EventLog;
  conversation: ConversationLog;
  slots: SlotPool;
  runner: TurnRunner;
  records: TurnRecords;
}

/** `resume`: continue the parked turn `turn.turnId` instead of answering `text`. */
export async function executeTurn(deps: ExecutionDeps, record: SessionRecord, turn: LiveTurn, text: string, resume: boolean): Promise<TurnOutcome> {
  const { sessionId } = record;
  const signal = turn.abort.signal;
  let release: Release | undefined;
  try {
    release = await takeSlot(deps, sessionId, turn);
    turn.state = "running";
    // A resumed turn started before (its events say so) and its session is still running.
    if (!resume) await deps.records.emitWithStatus(sessionId, { type: "turn.started", turnId: turn.turnId, data: {} }, "running");
    const emit = deps.records.turnEmit(sessionId);
    const input = {
      ...(await deps.runner.prepare(record, { turnId: turn.turnId, emit, signal })),
      sessionId,
      turnId: turn.turnId,
      conversation: deps.conversation,
      signal,
      emit,
    };
    return resume ? await resumeTurn({ ...input, events: await deps.log.readEvents(sessionId) }) : await runTurn({ ...input, userText: text });
  } catch (error) {
    return signal.aborted ? { status: "interrupted" } : { status: "failed", message: plainMessage(errorMessage(error)) };
  } finally {
    release?.();
  }
}

async function takeSlot(deps: ExecutionDeps, sessionId: string, turn: LiveTurn): Promise<Release> {
  const now = deps.slots.tryAcquire();
  if (now) return now;
  const { position, slot } = await deps.slots.enqueue(turn.abort.signal, sessionId);
  if (position === 0) return slot;
  await deps.records.emitWithStatus(sessionId, { type: "turn.queued", turnId: turn.turnId, data: { position } }, "queued");
  return slot;
}
