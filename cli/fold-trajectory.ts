/**
 * A session's trajectory folded from its recorded events: each tool call paired with its result
 * by `toolCallId`, durations from the event timestamps, per-turn spans and totals.
 * @module
 */
import type { CliEvent } from "./events.ts";

export interface TrajectoryCall {
  toolCallId: string;
  toolName: string;
  turnId: string | null;
  input: unknown;
  /** Absent while the call is pending. */
  output?: unknown;
  status: "ok" | "error" | "pending";
  requestedAt: string;
  completedAt: string | null;
  /** From `actions.requested` to `action.result`, approval wait included. */
  durationMs: number | null;
  /** Present when the call was parked for approval. */
  approval?: { decision: string | null; waitedMs: number | null };
}

export interface TrajectoryTurn {
  turnId: string;
  status: "completed" | "failed" | "running";
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  toolCalls: number;
}

export interface Trajectory {
  sessionId: string;
  calls: TrajectoryCall[];
  turns: TrajectoryTurn[];
  totals: {
    calls: number;
    ok: number;
    errors: number;
    pending: number;
    /** Sum of the finished calls' durations. */
    toolTimeMs: number;
    turns: number;
    /** Sum of the finished turns' durations. */
    turnTimeMs: number;
    byTool: Record<string, { calls: number; errors: number; toolTimeMs: number }>;
  };
}

export function foldTrajectory(sessionId: string, events: Iterable<CliEvent>): Trajectory {
  const calls = new Map<string, TrajectoryCall>();
  const approvals = new Map<string, string>();
  const turns = new Map<string, TrajectoryTurn>();
  for (const event of events) {
    const d = event.data;
    const turnId = event.turnId ?? null;
    if (event.type === "turn.started" && turnId !== null && !turns.has(turnId)) {
      turns.set(turnId, { turnId, status: "running", startedAt: event.at, endedAt: null, durationMs: null, toolCalls: 0 });
    } else if ((event.type === "turn.completed" || event.type === "turn.failed") && turnId !== null) {
      const turn = turns.get(turnId);
      if (turn) {
        turn.status = event.type === "turn.completed" ? "completed" : "failed";
        turn.endedAt = event.at;
        turn.durationMs = between(turn.startedAt, event.at);
      }
    } else if (event.type === "actions.requested" && Array.isArray(d.actions)) {
      for (const action of d.actions as Array<Record<string, unknown>>) {
        const toolCallId = String(action.toolCallId);
        calls.set(toolCallId, {
          toolCallId,
          toolName: String(action.toolName),
          turnId,
          input: action.input,
          status: "pending",
          requestedAt: event.at,
          completedAt: null,
          durationMs: null,
        });
        const turn = turnId === null ? undefined : turns.get(turnId);
        if (turn) turn.toolCalls++;
      }
    } else if (event.type === "action.result") {
      const call = calls.get(String(d.toolCallId));
      if (call) {
        call.output = d.output;
        call.status = d.isError === true ? "error" : "ok";
        call.completedAt = event.at;
        call.durationMs = between(call.requestedAt, event.at);
      }
    } else if (event.type === "action.approval_requested") {
      const call = calls.get(String(d.callId));
      approvals.set(String(d.callId), event.at);
      if (call) call.approval = { decision: null, waitedMs: null };
    } else if (event.type === "action.approval_resolved") {
      const call = calls.get(String(d.callId));
      const requestedAt = approvals.get(String(d.callId));
      if (call) call.approval = { decision: String(d.decision), waitedMs: requestedAt === undefined ? null : between(requestedAt, event.at) };
    }
  }
  const list = [...calls.values()];
  const byTool: Trajectory["totals"]["byTool"] = {};
  for (const call of list) {
    const entry = (byTool[call.toolName] ??= { calls: 0, errors: 0, toolTimeMs: 0 });
    entry.calls++;
    if (call.status === "error") entry.errors++;
    entry.toolTimeMs += call.durationMs ?? 0;
  }
  const turnList = [...turns.values()];
  return {
    sessionId,
    calls: list,
    turns: turnList,
    totals: {
      calls: list.length,
      ok: list.filter((c) => c.status === "ok").length,
      errors: list.filter((c) => c.status === "error").length,
      pending: list.filter((c) => c.status === "pending").length,
      toolTimeMs: list.reduce((sum, c) => sum + (c.durationMs ?? 0), 0),
      turns: turnList.length,
      turnTimeMs: turnList.reduce((sum, t) => sum + (t.durationMs ?? 0), 0),
      byTool,
    },
  };
}

// --- internals ---

function between(from: string, to: string): number | null {
  const ms = new Date(to).getTime() - new Date(from).getTime();
  return Number.isNaN(ms) ? null : Math.max(0, ms);
}
