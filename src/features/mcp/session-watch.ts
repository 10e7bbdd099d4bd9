/**
 * What MCP `ask` and `check` report about a session: its status after the latest message, the
 * reply and the current continuation token, read from the event log (so it holds across processes
 * sharing storage), optionally waiting a bounded time for the session to settle.
 * @module
 */
import type { DirectCallAgent } from "../../engine/direct-calls/direct-call.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { followLog } from "../../base/events/follow.ts";
import { type PendingApproval, type ReplyState, emptyReplyState, foldReply } from "../../base/events/reply-fold.ts";

export type McpSessionStatus = "running" | "awaiting_approval" | "waiting" | "completed" | "failed";

export type { PendingApproval };

/** `{status, sessionId, continuationToken, reply?, error?, approvals?}` (docs/design/faults.md). */
export interface SessionReport {
  status: McpSessionStatus;
  sessionId: string;
  continuationToken: string;
  /** The last assistant message of the latest turn (not a tool-calling step). */
  reply?: string;
  /** Why the latest turn or task failed. */
  error?: string;
  /** With `awaiting_approval`: the calls waiting for a decision (resolve them over HTTP). */
  approvals?: PendingApproval[];
  [key: string]: unknown;
}

export interface WatchOptions {
  /**
   * First log index to read. `ask` passes the log length before its message was admitted, so only
   * the turn it started counts; `check` reads the whole log.
   */
  from: number;
  /** How long to wait for the session to settle; 0 reports at once. */
  waitMs: number;
  /** Ends the wait early (the client went away). */
  signal: AbortSignal;
  /** Ends the wait early when the host closes. */
  closing: { subscribe(listener: () => void): () => void };
}

/** Reads the session's state from `from`, waiting up to `waitMs` for it to stop running. */
export async function watchSession(
  agent: Pick<DirectCallAgent, "log" | "sessions">,
  sessionId: string,
  options: WatchOptions,
): Promise<SessionReport> {
  const state = emptyReplyState();
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), Math.max(0, options.waitMs));
  const onStop = (): void => stop.abort();
  const unsubscribe = options.closing.subscribe(onStop);
  options.signal.addEventListener("abort", onStop);
  const live = options.waitMs > 0 && !options.signal.aborted;
  try {
    for await (const { lines } of followLog(agent.log, sessionId, { from: options.from, live, signal: stop.signal })) {
      for (const line of lines) foldReply(state, JSON.parse(line) as SessionEvent);
      // A parked call waits for a human, not for time: report it now rather than at the deadline.
      if (settled(state) || state.pending.size > 0) break;
    }
  } finally {
    clearTimeout(timer);
    unsubscribe();
    options.signal.removeEventListener("abort", onStop);
  }
  const summary = await agent.sessions.find(sessionId);
  const error = state.settled === "failed" ? (state.sessionError ?? state.turnError) : state.turnError;
  const parked = !settled(state) && state.pending.size > 0;
  return {
    status: settled(state) ? state.settled : parked ? "awaiting_approval" : "running",
    sessionId,
    continuationToken: summary?.continuationToken ?? "",
    ...(state.reply === undefined ? {} : { reply: state.reply }),
    ...(error === undefined ? {} : { error }),
    ...(parked ? { approvals: [...state.pending.values()] } : {}),
  };
}

// --- internals ---

/** Settled after the latest message: a session that never got one has no turn to report on. */
function settled(state: ReplyState): state is ReplyState & { settled: NonNullable<ReplyState["settled"]> } {
  return state.sawMessage && state.settled !== undefined;
}
