/**
 * What an AG-UI run can answer (docs/guide/ag-ui.md "Approvals", "Front-end tools"): `resume[]`
 * entries decide calls parked for approval, through the approvals route's own path; tool messages
 * deliver the results of front-end tool calls. Each is settled exactly once, and all or nothing:
 * one answer that has nothing waiting (404) or was already given (409) fails the request before
 * any is recorded.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import { badRequest } from "../../base/errors.ts";
import type { JsonValue } from "../../base/ports/model.ts";
import type { AgentRuntime } from "../agent.ts";
import type { AgUiRunBody } from "../schemas/ag-ui.ts";
import { decideApproval } from "./approvals.ts";

export interface Answers {
  decisions: Array<{ callId: string; decision: "approve" | "deny" }>;
  results: Array<{ callId: string; output: JsonValue; isError: boolean }>;
}

/** The answers a run carries for calls that wait in the session now. */
export async function answersIn(agent: AgentRuntime, sessionId: string | undefined, body: AgUiRunBody): Promise<Answers> {
  const decisions = (body.resume ?? []).map((entry) => ({ callId: entry.interruptId, decision: decisionOf(entry) }));
  if (sessionId === undefined) return { decisions, results: [] };
  // Tool messages the client keeps from earlier runs answer nothing now: only waiting calls count.
  const waiting = new Set((await agent.approvals.listClient(sessionId)).map((call) => call.callId));
  const results = body.messages.flatMap((message) => {
    const callId = message["toolCallId"];
    if (message.role !== "tool" || typeof callId !== "string" || !waiting.has(callId)) return [];
    const error = message["error"];
    const text = contentText(message.content);
    return [typeof error === "string" ? { callId, output: error || text, isError: true } : { callId, output: text, isError: false }];
  });
  return { decisions, results };
}

/**
 * Records the answers; resolves with where the run's events start (before the first answer, so
 * the run carries everything they set off) and the parked turns they continue.
 */
export async function recordAnswers(agent: AgentRuntime, auth: AuthContext, sessionId: string, answers: Answers): Promise<{ from: number; continues: string[] }> {
  await agent.sessions.owned(sessionId, auth);
  const parked = new Map([...(await agent.approvals.list(sessionId)), ...(await agent.approvals.listClient(sessionId))].map((call) => [call.callId, call.turnId]));
  const unparked = answers.decisions.find((answer) => !parked.has(answer.callId));
  if (unparked) await decideApproval(agent, auth, sessionId, unparked.callId, unparked.decision);
  const from = await agent.log.length(sessionId);
  for (const { callId, decision } of answers.decisions) await decideApproval(agent, auth, sessionId, callId, decision);
  for (const { callId, output, isError } of answers.results) await agent.approvals.deliver(sessionId, callId, { output, isError });
  const calls = [...answers.decisions, ...answers.results].map((answer) => parked.get(answer.callId)!);
  return { from, continues: [...new Set(calls)] };
}

/** A message's text: a string, or its text parts joined. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.flatMap((part: { type?: unknown; text?: unknown }) => (part?.type === "text" && typeof part.text === "string" ? [part.text] : [])).join("\n");
}

// --- internals ---

/** `cancelled` denies; `resolved` carries `{approved: boolean}`. */
function decisionOf(entry: NonNullable<AgUiRunBody["resume"]>[number]): "approve" | "deny" {
  if (entry.status === "cancelled") return "deny";
  const approved = (entry.payload as { approved?: unknown } | undefined)?.approved;
  if (typeof approved !== "boolean") throw badRequest(`resume entry ${entry.interruptId}: a resolved interrupt's payload must be {"approved": true} or {"approved": false}`);
  return approved ? "approve" : "deny";
}
