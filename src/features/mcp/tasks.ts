/**
 * MCP's Tasks extension (2026-07-28) backed by sessions, not memory (docs/design/mcp-and-discovery.md
 * "Tasks"): `ask` run as a task returns at once, and the task id names the session and the log
 * index its message starts at, so `tasks/get` folds the answer from the event log in any process
 * sharing the store, or after a restart. A call parked for approval is `input_required`, one
 * elicitation per call; `tasks/update` decides them through the approvals route's path; and
 * `tasks/cancel` stops the turn. The endpoint's other tools run as tasks too, as stored records
 * (./tool-tasks.ts).
 * @module
 */
import { badRequest, notFound } from "../../base/errors.ts";
import { validate } from "../../base/validate.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { type AgentToolsContext, startAsk } from "./agent-tools.ts";
import { jsonToolResult } from "./results.ts";
import { askArgs } from "./schemas.ts";
import { type SessionReport, watchSession } from "./session-watch.ts";
import type { McpTasks } from "./stateless-2026.ts";
import { isToolTaskId } from "./tool-tasks.ts";

export interface TasksContext extends AgentToolsContext {
  /** Decides a parked call as the approvals route does: by the owner, exactly once. */
  decide(sessionId: string, callId: string, decision: "approve" | "deny"): Promise<void>;
}

/** How often a client should poll a working task. */
const POLL_INTERVAL_MS = 1000;

/**
 * `ask` as a task from the session's log; any other tool of the endpoint as a task of `others`
 * (./tool-tasks.ts), told apart by the task id.
 */
export function agentMcpTasks(context: TasksContext, others?: McpTasks): McpTasks {
  const { agent, auth, wide, closing } = context;

  async function view(taskId: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    const { sessionId, from } = parseTaskId(taskId);
    await agent.sessions.readable(sessionId, { auth, wide }).catch(() => {
      throw unknownTask(taskId);
    });
    const events = await agent.log.readEvents(sessionId, from);
    if (events.length === 0) throw unknownTask(taskId);
    const report = await watchSession(agent, sessionId, { from, waitMs: 0, signal, closing });
    return { taskId, ...times(events), ttlMs: null, ...statusOf(report) };
  }

  return {
    async start(name, args, task) {
      // An `ask` task is its session, which lives and expires as sessions do: no ttl of its own.
      if (name !== "ask") return others?.start(name, args, task);
      const { sessionId, from } = await startAsk(context, await validate(args, askArgs, "ask arguments"));
      const now = new Date().toISOString();
      return { taskId: `${sessionId}.${from}`, status: "working", createdAt: now, lastUpdatedAt: now, ttlMs: null, pollIntervalMs: POLL_INTERVAL_MS };
    },
    get: (taskId, signal) => (others && isToolTaskId(taskId) ? others.get(taskId, signal) : view(taskId, signal)),
    async update(taskId, responses) {
      if (others && isToolTaskId(taskId)) return others.update(taskId, responses);
      const { sessionId } = parseTaskId(taskId);
      for (const [callId, response] of Object.entries(responses)) {
        const action = (response as { action?: unknown } | null)?.action;
        if (action !== "accept" && action !== "decline" && action !== "cancel") throw badRequest(`inputResponses.${callId}.action must be accept, decline or cancel`);
        await context.decide(sessionId, callId, action === "accept" ? "approve" : "deny");
      }
    },
    async cancel(taskId) {
      if (others && isToolTaskId(taskId)) return others.cancel(taskId);
      const { sessionId } = parseTaskId(taskId);
      await agent.sessions.stop(sessionId, auth);
    },
  };
}

// --- internals ---

/** `<sessionId>.<log index>`: everything `tasks/get` needs, with nothing kept in memory. */
function parseTaskId(taskId: string): { sessionId: string; from: number } {
  const match = /^(ses_[A-Za-z0-9_-]{1,64})\.(\d{1,12})$/.exec(taskId);
  if (!match) throw unknownTask(taskId);
  return { sessionId: match[1]!, from: Number(match[2]) };
}

const unknownTask = (taskId: string) => notFound("task_not_found", `no task ${JSON.stringify(taskId.slice(0, 120))} is visible to this caller`);

function times(events: SessionEvent[]): { createdAt: string; lastUpdatedAt: string } {
  return { createdAt: events[0]!.at, lastUpdatedAt: events.at(-1)!.at };
}

/** The task status of an `ask` report; a stopped turn is `cancelled`, any other ending `completed`. */
function statusOf(report: SessionReport): Record<string, unknown> {
  switch (report.status) {
    case "running":
      return { status: "working", pollIntervalMs: POLL_INTERVAL_MS };
    case "awaiting_approval":
      return {
        status: "input_required",
        statusMessage: "a tool call waits for approval",
        inputRequests: Object.fromEntries(
          (report.approvals ?? []).map((call) => [
            call.callId,
            {
              method: "elicitation/create",
              params: {
                mode: "form",
                message: `Approve ${call.toolName} with ${JSON.stringify(call.input)}? Accept approves, decline denies.`,
                requestedSchema: { type: "object", properties: {} },
              },
            },
          ]),
        ),
      };
    default:
      if (report.error === "turn interrupted") return { status: "cancelled", statusMessage: "the turn was stopped" };
      // Framed as the revision frames every result: a task requester checks it (./tool-tasks.ts).
      return { status: "completed", result: { resultType: "complete", ...jsonToolResult(report) } };
  }
}
