/**
 * `POST /v1/ag-ui`: the agent as an AG-UI 1.0 agent (docs/guide/ag-ui.md), for `HttpAgent`,
 * CopilotKit and any AG-UI front end. The thread id names the session (per caller, as `/v1/chat`
 * does); a run is the turn its request starts or resumes. What a run does depends on what its
 * input brings that the thread has not seen:
 *
 * - answers (./ag-ui-answers.ts): `resume[]` for calls parked for approval, decided exactly once
 *   through the approvals route's own path, and tool messages with the results of front-end tool
 *   calls; the run streams the rest of the parked turn.
 * - a new user message (more user messages than the session has received): sent as a turn, with
 *   the run's `tools` as the front-end tools the model may call.
 * - neither, on a known thread: a reconnect; the run opens with `MESSAGES_SNAPSHOT` and follows
 *   the turn still running, or reports how the last one ended.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import { readJsonBody } from "../../base/body.ts";
import { badRequest, conflict } from "../../base/errors.ts";
import { randomId } from "../../base/ids.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { foldReply, emptyReplyState } from "../../base/events/reply-fold.ts";
import { validate } from "../../base/validate.ts";
import { sessionNotFound } from "../../engine/sessions/session-service.ts";
import { toMessagesSnapshot } from "../../features/ag-ui/messages.ts";
import type { RunEnd } from "../../features/ag-ui/run-events.ts";
import type { AgentRuntime } from "../agent.ts";
import { agUiRunResponse, parkedInterrupts, pendingClientCalls } from "../ag-ui-stream.ts";
import { defineRoute } from "../route.ts";
import { type AgUiRunBody, agUiRunBody } from "../schemas/ag-ui.ts";
import { answersIn, contentText, recordAnswers } from "./ag-ui-answers.ts";

/** The channel of sessions opened through this route. */
export const AG_UI_CHANNEL = "ag-ui";

export const agUiRun = defineRoute({
  method: "POST",
  path: "/v1/ag-ui",
  auth: "agent",
  summary: "Run the agent as an AG-UI 1.0 agent (HttpAgent, CopilotKit): RunAgentInput in, the run's events as SSE; the thread id names the session",
  bodySchema: agUiRunBody,
  async handler({ request, agent, auth, host }) {
    const body = await validate(await readJsonBody(request, host.maxBodyBytes), agUiRunBody);
    const key = `${auth.principalId}:${body.threadId}`;
    const existing = await agent.sessions.lookup(AG_UI_CHANNEL, key);
    const events = existing === undefined ? [] : await agent.log.readEvents(existing);
    // The run id is the client's; one that sent none gets one minted (docs/design/ag-ui-runs.md).
    const common = { agent, auth, threadId: body.threadId, runId: body.runId ?? `run_${randomId(16)}`, closing: host.closing };

    const answers = await answersIn(agent, existing, body);
    if (answers.decisions.length > 0 || answers.results.length > 0) {
      if (existing === undefined) throw sessionNotFound();
      const stateBefore = (await agent.sessions.owned(existing, auth)).state ?? {};
      const follow = await recordAnswers(agent, auth, existing, answers);
      return agUiRunResponse({ ...common, sessionId: existing, follow, stateBefore, opening: [{ type: "STATE_SNAPSHOT", snapshot: stateBefore }] });
    }

    const text = newUserText(body, events);
    if (text !== undefined) {
      if (existing !== undefined) await refuseWhileWaiting(agent, existing);
      const state = body.state ?? undefined;
      const clientTools = (body.tools ?? []).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters ?? { type: "object", properties: {} } }));
      const sent = await agent.sessions.send(AG_UI_CHANNEL, text, {
        auth,
        continuationToken: key,
        clientTools,
        ...(state ? { state } : {}),
        ...(existing ? {} : { title: text.slice(0, 80) }),
      });
      const snapshot = (await agent.sessions.owned(sent.sessionId, auth)).state ?? {};
      return agUiRunResponse({ ...common, sessionId: sent.sessionId, follow: { from: events.length, continues: [] }, stateBefore: snapshot, opening: [{ type: "STATE_SNAPSHOT", snapshot }] });
    }

    if (existing === undefined) throw badRequest("messages must end with the user's message to start a thread (or resume[] answers to its interrupts)");
    return reconnect(agent, auth, existing, events, common);
  },
});

// --- internals ---

type Common = Pick<Parameters<typeof agUiRunResponse>[0], "agent" | "auth" | "threadId" | "runId" | "closing">;

/**
 * The text of the user messages the thread has not received: the input's user messages past the
 * count of `message.received` in the log. Counting, not ids, so a client that took the ids of a
 * snapshot, or kept its own, is read the same way.
 */
function newUserText(body: AgUiRunBody, events: SessionEvent[]): string | undefined {
  const users = body.messages.filter((message) => message.role === "user");
  const received = events.filter((event) => event.type === "message.received").length;
  if (users.length <= received) return undefined;
  const text = users.slice(received).map((message) => contentText(message.content)).join("\n");
  if (text.trim() === "") throw badRequest("the user's message must have text content");
  return text;
}

/**
 * A run that brings nothing new: the thread's messages so far, then the turn still running (from
 * its start, so the snapshot never holds half a message), else how the last turn ended.
 */
async function reconnect(agent: AgentRuntime, auth: AuthContext, sessionId: string, events: SessionEvent[], common: Common): Promise<Response> {
  const stateBefore = (await agent.sessions.owned(sessionId, auth)).state ?? {};
  const running = runningTurn(events);
  const interrupts = await parkedInterrupts(agent, sessionId);
  const pending = await pendingClientCalls(agent, sessionId);
  const waits = interrupts.length > 0 || pending.length > 0;
  const cut = running && !waits ? running.index : events.length;
  const opening = [{ type: "STATE_SNAPSHOT" as const, snapshot: stateBefore }, { type: "MESSAGES_SNAPSHOT" as const, messages: toMessagesSnapshot(events.slice(0, cut)) }];
  const run = { ...common, sessionId, stateBefore, opening };
  if (interrupts.length > 0) return agUiRunResponse({ ...run, end: { kind: "interrupt" } });
  if (pending.length > 0) return agUiRunResponse({ ...run, end: { kind: "client" } });
  if (running) return agUiRunResponse({ ...run, follow: { from: running.index, continues: [running.turnId] } });
  return agUiRunResponse({ ...run, end: lastEnd(events) });
}

/** A new message while calls wait would cut their turn: the client answers them first. */
async function refuseWhileWaiting(agent: AgentRuntime, sessionId: string): Promise<void> {
  if ((await parkedInterrupts(agent, sessionId)).length > 0) throw conflict("interrupts_pending", "the thread has calls parked for approval: answer them with resume[] first");
  if ((await pendingClientCalls(agent, sessionId)).length > 0) {
    throw conflict("tool_results_pending", "the thread has front-end tool calls waiting: send their results as tool messages first");
  }
}

/** The `turn.started` of a turn with no end yet. */
function runningTurn(events: SessionEvent[]): { index: number; turnId: string } | undefined {
  const open = new Map<string, number>();
  for (const event of events) {
    if (event.turnId === undefined) continue;
    if (event.type === "turn.started") open.set(event.turnId, event.index);
    else if (event.type === "turn.completed" || event.type === "turn.failed") open.delete(event.turnId);
  }
  const last = [...open].at(-1);
  return last && { turnId: last[0], index: last[1] };
}

/** How the thread's last turn ended: never a success for one that failed or was stopped. */
function lastEnd(events: SessionEvent[]): RunEnd {
  const reply = events.reduce(foldReply, emptyReplyState());
  if (reply.turnError === "turn interrupted") return { kind: "cancelled" };
  if (reply.turnError !== undefined) return { kind: "error", message: reply.turnError };
  if (reply.sessionError !== undefined) return { kind: "error", message: reply.sessionError };
  return { kind: "success" };
}
