/**
 * What MCP `ask` and `check` report about a session: its status after the latest message, the
 * reply and the current continuation token, read from the event log (so it holds across processes
 * sharing storage), optionally waiting a bounded time for the session to settle.
 * @module
 */
import type { AgentRuntime } from "../agent-runtime.ts";
import type { SessionEvent } from "../sessions/events.ts";

export type McpSessionStatus = "running" | "awaiting_approval" | "waiting" | "completed" | "failed";

/** A call parked for a human decision, as `check` and `ask` list it. */
export interface PendingApproval {
  callId: string;
  toolName: string;
  input: unknown;
}

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
  agent: Pick<AgentRuntime, "log" | "sessions">,
  sessionId: string,
  options: WatchOptions,
): Promise<SessionReport> {
  const state: FoldState = { sawMessage: false, pending: new Map() };
  const deadline = Date.now() + options.waitMs;
  let next = options.from;
  let dirty = true;
  let stopped = false;
  let wake: (() => void) | undefined;
  const poke = (): void => {
    dirty = true;
    wake?.();
  };
  const stop = (): void => {
    stopped = true;
    wake?.();
  };
  // Subscribed before the first read, so an event appended in between still wakes the loop.
  const cleanups = [agent.log.subscribe(sessionId, poke), options.closing.subscribe(stop)];
  options.signal.addEventListener("abort", stop);
  try {
    for (;;) {
      if (dirty) {
        dirty = false;
        for (const event of await agent.log.readEvents(sessionId, next)) {
          fold(state, event);
          next = event.index + 1;
        }
      }
      const remaining = deadline - Date.now();
      // A parked call waits for a human, not for time: report it now rather than at the deadline.
      if (settled(state) || state.pending.size > 0 || stopped || options.signal.aborted || remaining <= 0) break;
      if (!dirty) await sleepUntilWoken(remaining, (resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    for (const cleanup of cleanups) cleanup();
    options.signal.removeEventListener("abort", stop);
  }
  const summary = await agent.sessions.find(sessionId);
  const parked = !settled(state) && state.pending.size > 0;
  return {
    status: settled(state) ? state.terminal : parked ? "awaiting_approval" : "running",
    sessionId,
    continuationToken: summary?.continuationToken ?? "",
    ...(state.reply === undefined ? {} : { reply: state.reply }),
    ...(state.error === undefined ? {} : { error: state.error }),
    ...(parked ? { approvals: [...state.pending.values()] } : {}),
  };
}

// --- internals ---

interface FoldState {
  /** A `message.received` was read: there is a turn to report on. */
  sawMessage: boolean;
  /** How the latest turn ended, once the session settled after it. */
  terminal?: Exclude<McpSessionStatus, "running">;
  reply?: string;
  error?: string;
  /** Calls of the latest turn parked for approval and not yet resolved, by call id. */
  pending: Map<string, PendingApproval>;
}

function settled(state: FoldState): state is FoldState & { terminal: Exclude<McpSessionStatus, "running"> } {
  return state.sawMessage && state.terminal !== undefined;
}

/**
 * Every message starts a fresh report: an interrupted turn's failure, or the `session.waiting` of
 * the turn before, never describes the turn that the latest message started.
 */
function fold(state: FoldState, event: SessionEvent): void {
  switch (event.type) {
    case "message.received":
      state.sawMessage = true;
      state.terminal = undefined;
      state.reply = undefined;
      state.error = undefined;
      state.pending.clear();
      break;
    case "action.approval_requested": {
      const { callId, toolName, input } = event.data;
      if (typeof callId === "string") state.pending.set(callId, { callId, toolName: typeof toolName === "string" ? toolName : "", input });
      break;
    }
    case "action.approval_resolved":
      if (typeof event.data.callId === "string") state.pending.delete(event.data.callId);
      break;
    case "message.completed":
      if (event.data.finishReason !== "tool_call" && typeof event.data.text === "string") state.reply = event.data.text;
      break;
    case "turn.failed":
      state.error = textOf(event.data.message);
      state.pending.clear();
      break;
    case "session.waiting":
      state.terminal = "waiting";
      break;
    case "session.completed":
      state.terminal = "completed";
      break;
    case "session.failed":
      state.terminal = "failed";
      state.error = textOf(event.data.message);
      break;
    default:
      break;
  }
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : "failed";
}

function sleepUntilWoken(ms: number, register: (resolve: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    register(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
