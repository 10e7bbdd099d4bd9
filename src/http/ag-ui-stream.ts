/**
 * One AG-UI run as a Server-Sent Events response (docs/guide/ag-ui.md): `RUN_STARTED`, what the
 * route opens with (state, a messages snapshot), then the session's events from the log through
 * `followLog` translated by ../features/ag-ui/run-events.ts, and the run's last event. Everything
 * comes from the log, so a client that reconnects, in this process or another after a restart,
 * gets the same run. When the host closes mid-run the stream just ends: the client sees a run
 * with no end, never a success.
 * @module
 */
import type { AuthContext } from "../base/auth.ts";
import { followLog } from "../base/events/follow.ts";
import type { SessionEvent } from "../base/events/vocabulary.ts";
import { type RunEnd, newRunTranslation, toAgUiEvents } from "../features/ag-ui/run-events.ts";
import { stateDelta } from "../features/ag-ui/state-delta.ts";
import type { AgUiEvent, AgUiInterrupt } from "../features/ag-ui/wire.ts";
import type { AgentRuntime } from "./agent.ts";
import { SSE_HEADERS } from "./sse.ts";

export interface AgUiRun {
  agent: AgentRuntime;
  auth: AuthContext;
  sessionId: string;
  threadId: string;
  runId: string;
  /** Events after `RUN_STARTED` (the state snapshot, a messages snapshot). */
  opening: AgUiEvent[];
  /** The log index the run's events start at, and parked turns it continues. */
  follow?: { from: number; continues: string[] };
  /** How the run ends when it follows nothing (a reconnect to an idle thread). */
  end?: RunEnd;
  /** The channel state the opening snapshot showed, the base of the first `STATE_DELTA`. */
  stateBefore: Record<string, unknown>;
  closing: { subscribe(listener: () => void): () => void };
}

export function agUiRunResponse(run: AgUiRun): Response {
  const stop = new AbortController();
  const unsubscribe = run.closing.subscribe(() => stop.abort());
  const events = runEvents(run, stop.signal);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await events.next();
      if (done) {
        unsubscribe();
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(value.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("")));
    },
    async cancel() {
      unsubscribe();
      stop.abort();
      await events.return(undefined);
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, "x-agent-serve-session-id": run.sessionId, "x-agent-serve-run-id": run.runId } });
}

/** Parked calls as AG-UI interrupts; the interrupt id is the call id the approvals route takes. */
export async function parkedInterrupts(agent: AgentRuntime, sessionId: string): Promise<AgUiInterrupt[]> {
  return (await agent.approvals.list(sessionId)).map((call) => ({
    id: call.callId,
    reason: "tool_approval",
    message: `${call.toolName} needs approval`,
    toolCallId: call.callId,
    metadata: { toolName: call.toolName, input: call.input, turnId: call.turnId },
  }));
}

/** Calls waiting for the front end's result (docs/guide/ag-ui.md "Front-end tools"). */
export async function pendingClientCalls(agent: AgentRuntime, sessionId: string): Promise<string[]> {
  return (await agent.approvals.listClient(sessionId)).map((call) => call.callId);
}

// --- internals ---

async function nothingWaits(run: AgUiRun, end: RunEnd): Promise<boolean> {
  if (end.kind === "interrupt") return (await parkedInterrupts(run.agent, run.sessionId)).length === 0;
  if (end.kind === "client") return (await pendingClientCalls(run.agent, run.sessionId)).length === 0;
  return false;
}

async function* runEvents(run: AgUiRun, signal: AbortSignal): AsyncGenerator<AgUiEvent[]> {
  const { threadId, runId } = run;
  yield [{ type: "RUN_STARTED", threadId, runId }, ...run.opening];
  const state = { shown: run.stateBefore };
  let end = run.end;
  if (run.follow) {
    const translation = newRunTranslation(run.follow.continues);
    follow: for await (const batch of followLog(run.agent.log, run.sessionId, { from: run.follow.from, live: true, signal })) {
      const out: AgUiEvent[] = [];
      for (const line of batch.lines) {
        // SAFETY: the log holds only events the engine wrote (../base/events/vocabulary.ts).
        const translated = toAgUiEvents(JSON.parse(line) as SessionEvent, translation);
        out.push(...translated.events);
        // A call settled before we looked (another client answered) ends nothing.
        if (translated.end && (await nothingWaits(run, translated.end))) continue;
        if (translated.end) {
          end = translated.end;
          if (out.length > 0) yield out;
          break follow;
        }
      }
      // The state as it stands after the batch, so a front end sees it change while the run goes.
      out.push(...(await stateChange(run, state)));
      if (out.length > 0) yield out;
    }
  }
  if (!end) return; // the host is closing: no last event, so no client reads the run as finished
  yield await closingEvents(run, end, state);
}

/**
 * The `STATE_DELTA` from the state the client was last shown to the stored one, if they differ
 * (docs/design/ag-ui-runs.md "State deltas"): channel state lives on the session record, so it is
 * read after each batch of events and once more as the run ends.
 */
async function stateChange(run: AgUiRun, state: { shown: Record<string, unknown> }): Promise<AgUiEvent[]> {
  const now = (await run.agent.sessions.owned(run.sessionId, run.auth)).state ?? {};
  const delta = stateDelta(state.shown, now);
  state.shown = now;
  return delta.length > 0 ? [{ type: "STATE_DELTA", delta }] : [];
}

async function closingEvents(run: AgUiRun, end: RunEnd, state: { shown: Record<string, unknown> }): Promise<AgUiEvent[]> {
  const out: AgUiEvent[] = await stateChange(run, state);
  const { threadId, runId } = run;
  switch (end.kind) {
    case "error":
      out.push({ type: "RUN_ERROR", message: end.message, code: "turn_failed" });
      break;
    case "client":
      out.push({ type: "RUN_FINISHED", threadId, runId, outcome: { type: "success", pendingToolCallIds: await pendingClientCalls(run.agent, run.sessionId) } });
      break;
    case "interrupt":
      out.push({ type: "RUN_FINISHED", threadId, runId, outcome: { type: "interrupt", interrupts: await parkedInterrupts(run.agent, run.sessionId) } });
      break;
    default:
      out.push({ type: "RUN_FINISHED", threadId, runId, outcome: { type: end.kind } });
  }
  return out;
}
