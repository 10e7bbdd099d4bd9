/**
 * Tool calls a crash cut short (docs/design/tools.md "Side effects and crashes"). A step's calls
 * run one after another, each result recorded before the next call starts, so of the calls a
 * turn requested and never answered the first may have been running (its side effect may or may
 * not have happened: `outcome_unknown`) and the rest never started. Recovery records a result for
 * each and never runs any of them again on its own; the model reads which is which.
 * @module
 */
import type { ActionRequest, ActionResultData, EventDraft, SessionEvent } from "../../base/events/vocabulary.ts";

/** Whether a tool's body may run twice for one call with no harm (`defineTool({ idempotent })`). */
export type IsIdempotent = (toolName: string) => boolean;

export interface CutShortCall {
  turnId: string;
  result: ActionResultData;
}

/** The result of every call of an open turn that has none, in request order. */
export function cutShortCalls(events: readonly SessionEvent[], isIdempotent: IsIdempotent = () => false): CutShortCall[] {
  const requested = new Map<string, { turnId: string; call: ActionRequest }>();
  const closedTurns = new Set<string>();
  for (const event of events) {
    if (event.type === "actions.requested" && event.turnId) {
      for (const call of (event.data as { actions: ActionRequest[] }).actions) requested.set(call.toolCallId, { turnId: event.turnId, call });
    } else if (event.type === "action.result") {
      requested.delete((event.data as ActionResultData).toolCallId);
    } else if (event.turnId && (event.type === "turn.completed" || event.type === "turn.failed")) {
      closedTurns.add(event.turnId);
    }
  }
  const results: CutShortCall[] = [];
  const seenTurn = new Set<string>();
  for (const { turnId, call } of requested.values()) {
    if (closedTurns.has(turnId)) continue;
    // The first unanswered call of a turn is the one that may have been running.
    const first = !seenTurn.has(turnId);
    seenTurn.add(turnId);
    results.push({ turnId, result: first ? unknownOutcome(call, isIdempotent(call.toolName)) : notRun(call) });
  }
  return results;
}

/** The `action.result` events of {@link cutShortCalls}, for the commit that closes the turn. */
export function cutShortDrafts(calls: readonly CutShortCall[]): EventDraft[] {
  return calls.map(({ turnId, result }) => ({ type: "action.result", turnId, data: result }));
}

/** What the model reads for each cut call, by call id. */
export function cutShortReasons(calls: readonly CutShortCall[]): Map<string, string> {
  return new Map(calls.map(({ result }) => [result.toolCallId, String(result.output)]));
}

function unknownOutcome(call: ActionRequest, idempotent: boolean): ActionResultData {
  const advice = idempotent
    ? "The tool is idempotent: calling it again is safe."
    : "It was not run again: check whether it took effect before calling it again.";
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: `outcome_unknown: the host restarted while this call ran, so whether it took effect is unknown. ${advice}`,
    isError: true,
    outcome: "outcome_unknown",
    idempotent,
  };
}

function notRun(call: ActionRequest): ActionResultData {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: "the host restarted before this call ran: it never ran",
    isError: true,
  };
}
