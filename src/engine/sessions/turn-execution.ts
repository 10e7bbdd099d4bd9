/**
 * One admitted turn from its turn slot to its outcome (docs/design/foundation.md "Admission"):
 * it waits for a slot (`turn.queued` while it waits behind others), records `turn.started`, and
 * runs the model turn, or resumes a parked one from its stored events. A turn whose slot was free
 * when its message was accepted arrives holding it, its `turn.started` already committed with
 * the message (./session-writer.ts). What it ends with is the controller's to record.
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
import type { SessionWriter } from "./session-writer.ts";
import type { Release, SlotPool } from "./turn-slots.ts";

export interface ExecutionDeps {
  log: EventLog;
  conversation: ConversationLog;
  slots: SlotPool;
  runner: TurnRunner;
  writer: SessionWriter;
}

/** How a turn begins: `resume` continues the parked turn; `slot` is held when it started at admission. */
export interface TurnStart {
  text: string;
  resume: boolean;
  slot?: Release;
  /** Its first step's `step.started` was committed with the message (./session-writer.ts). */
  firstStepRecorded?: boolean;
}

export async function executeTurn(deps: ExecutionDeps, record: SessionRecord, turn: LiveTurn, start: TurnStart): Promise<TurnOutcome> {
  const { sessionId } = record;
  const signal = turn.abort.signal;
  let release: Release | undefined;
  try {
    release = start.slot ?? (await takeSlot(deps, sessionId, turn));
    turn.state = "running";
    // A resumed turn started before (its events say so) and its session is still running.
    if (!start.resume && !start.slot) await deps.writer.start(sessionId, { turnId: turn.turnId, text: start.text });
    const emit = deps.writer.turnEmit(sessionId);
    const input = {
      ...(await deps.runner.prepare(record, { turnId: turn.turnId, emit, signal })),
      sessionId,
      turnId: turn.turnId,
      conversation: deps.conversation,
      signal,
      emit,
      ...(start.firstStepRecorded ? { firstStepRecorded: true } : {}),
    };
    return start.resume ? await resumeTurn({ ...input, events: await deps.log.readEvents(sessionId) }) : await runTurn(input);
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
  await deps.writer.queued(sessionId, turn.turnId, position);
  return slot;
}
