/**
 * The one way the core says "this work was aborted": an `AbortError` (by `name`, as `fetch` and
 * the AI SDK throw it), so callers tell an interruption from a failure without caring who threw.
 * @module
 */

/** What an aborted model call throws. */
export const MODEL_ABORTED = "the model call was aborted";
/** What an aborted turn (or subagent run) throws, and what an aborted tool call reads as. */
export const TURN_INTERRUPTED = "turn interrupted";

export function abortError(message: string = MODEL_ABORTED): Error {
  const error = new Error(message);
  error.name = "AbortError";
  return error;
}

export function throwIfAborted(signal: AbortSignal, message: string = MODEL_ABORTED): void {
  if (signal.aborted) throw abortError(message);
}

/**
 * What a turn throws when it stops without an ending because it will be resumed later: the host
 * is closing while a call waits for approval (docs/design/tools.md "Approvals"). Nothing closes
 * the turn; the next start (or another process sharing the store) continues it.
 */
export function turnSuspended(): Error {
  const error = new Error("turn suspended until the host starts again");
  error.name = "TurnSuspended";
  return error;
}

export function isTurnSuspended(error: unknown): boolean {
  return error instanceof Error && error.name === "TurnSuspended";
}
