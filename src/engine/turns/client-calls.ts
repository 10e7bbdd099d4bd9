/**
 * Calls of tools the front end runs (docs/guide/ag-ui.md "Front-end tools"): the model sees the
 * specs the session's latest message offered; a call parks like an approval (one record in
 * storage, so it outlives the process and is settled exactly once) and the turn waits for the
 * front end's result, which becomes the call's output.
 * @module
 */
import { isTurnSuspended } from "../../base/abort.ts";
import type { ClientToolSpec, SessionRecord } from "../../base/definitions/sessions.ts";
import type { ModelToolSpec } from "../../base/ports/model.ts";
import type { ApprovalRecord, ApprovalStore } from "../approvals/approval-store.ts";
import type { TurnEmit } from "./run-turn.ts";
import type { ToolCall } from "./tool-executor.ts";
import type { ToolOutcome } from "../../base/definitions/tools.ts";

/** The session's client tools the model may call: a server tool of the same name wins. */
export function clientSpecs(record: SessionRecord, serverSpecs: readonly ModelToolSpec[]): ClientToolSpec[] {
  const taken = new Set(serverSpecs.map((spec) => spec.name));
  return (record.clientTools ?? []).filter((spec) => !taken.has(spec.name));
}

/**
 * Parks a client call and waits for its result. A call already parked in this turn (a turn
 * resumed after a restart) is not requested again. When the turn ends first, the call closes.
 */
export async function runClientCall(
  approvals: ApprovalStore,
  turn: { record: SessionRecord; turnId: string; emit: TurnEmit },
  call: ToolCall,
  signal: AbortSignal,
  now: () => number,
): Promise<ToolOutcome> {
  const { sessionId } = turn.record;
  const callId = call.toolCallId;
  const existing = await approvals.get(sessionId, callId);
  if (existing === undefined || existing.status === "closed" || existing.turnId !== turn.turnId || existing.kind !== "client") {
    const view = { callId, toolName: call.toolName, input: call.input, turnId: turn.turnId, requestedAt: new Date(now()).toISOString() };
    await turn.emit(
      { type: "action.client_requested", turnId: turn.turnId, data: { callId, toolName: call.toolName, input: call.input } },
      { records: [approvals.parkWrite(sessionId, view, "client")] },
    );
  }
  let settled: ApprovalRecord;
  try {
    settled = await approvals.wait(sessionId, callId, signal);
  } catch (error) {
    if (!isTurnSuspended(error)) await approvals.abandon(sessionId, callId).catch(() => undefined);
    throw error;
  }
  await approvals.close(sessionId, [settled]);
  return settled.result ?? { output: "the front end sent no result", isError: true };
}
