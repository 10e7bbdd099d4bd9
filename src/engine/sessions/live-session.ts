/**
 * What the turn controller keeps in memory per session (docs/design/foundation.md "Admission"):
 * the running or queued turn, an admission in progress, coalesced messages waiting for the next
 * turn, and whether a turn could not record its end; and the refusals admission answers with.
 * @module
 */
import { HTTPError, conflict } from "../../base/errors.ts";

/**
 * Why a turn was aborted; decides the `turn.failed` message. `lost`: the turn's lease went to
 * another process's recovery, which has recorded the turn's end (docs/design/processes.md).
 */
export type AbortKind = "interrupt" | "shutdown" | "lost";

export const ABORT_MESSAGES: Record<AbortKind, string> = {
  interrupt: "turn interrupted",
  shutdown: "host shutting down",
  lost: "host restarted",
};

export interface LiveTurn {
  turnId: string;
  abort: AbortController;
  state: "queued" | "running";
  /** Set when a preempting message runs next, so no `session.waiting` is emitted in between. */
  followedBy: boolean;
  settled: Promise<void>;
  /** Stops renewing the turn's lease. */
  stopRenewing: () => void;
}

/** Messages accepted while a turn ran under `coalesce`, run together by the next turn. */
export interface Coalesced {
  turnId: string;
  texts: string[];
}

export interface LiveSession {
  turn?: LiveTurn;
  /** An admission is between its checks and its turn start; racing admissions get 409. */
  admitting: boolean;
  coalesced?: Coalesced;
  /** A turn could not record its end (the store stopped taking writes): its log needs closing. */
  damaged?: boolean;
}

/** True while a turn is running or queued, an admission is under way, or the log needs closing. */
export function isHeld(live: LiveSession): boolean {
  return Boolean(live.turn || live.admitting || live.coalesced || live.damaged);
}

export function abortTurn(turn: LiveTurn, kind: AbortKind): void {
  if (!turn.abort.signal.aborted) turn.abort.abort(kind);
}

export const busy = (): HTTPError => conflict("session_busy", "the session is busy and cannot be interrupted right now");
export const busyElsewhere = (): HTTPError => conflict("session_busy", "a turn of this session is running in another process");
export const shuttingDown = (): HTTPError =>
  new HTTPError({ status: 503, code: "shutting_down", message: "the host is shutting down" });
