/**
 * A server tool called directly, with no model turn (docs/design/tools.md "Direct calls"). Shared
 * by
 * `POST /v1/tools/:toolName`, the MCP `call_tool` tool and the `/v1/mcp/tools` endpoint, so all
 * three validate, run and record a call the same way.
 * @module
 */
import { HTTPError, notFound } from "../../base/errors.ts";
import type { EventDraft } from "../../base/events/vocabulary.ts";
import type { AuthContext } from "../../base/auth.ts";
import { isSessionId, newTurnId } from "../../base/ids.ts";
import type { JsonValue } from "../../base/ports/model.ts";
import type { Sessions } from "../../base/definitions/session-face.ts";
import { sessionNotFound } from "../sessions/session-errors.ts";
import { type ToolContextServices, createToolContext } from "../turns/tool-context.ts";
import type { ProjectDefinition } from "../../base/definitions/project.ts";
import type { RuntimePort } from "../../base/ports/runtime.ts";
import type { EventLog } from "../sessions/event-log.ts";
import type { TurnController } from "../sessions/turn-controller.ts";
import { approvalRequired, needsApproval } from "../tools/approval-gate.ts";
import { type ToolRunResult, runServerTool, toolCallIdForDirectCall } from "../tools/run-tool.ts";
import { validateToolInput } from "../tools/schema.ts";
import type { ToolDefinition } from "../../base/definitions/tools.ts";
import { scratchSession } from "../tools/scratch-session.ts";

/** The parts of an agent a direct call uses. */
export interface DirectCallAgent {
  project: ProjectDefinition;
  runtime: RuntimePort | undefined;
  toolServices: ToolContextServices;
  sessions: Sessions;
  controller: TurnController;
  log: EventLog;
}

/** A tool of the agent that may be called directly. */
export interface ServerTool {
  name: string;
  definition: ToolDefinition;
}

export interface DirectCallRequest {
  /** Raw input; validated here when the tool has a Standard Schema. */
  input: unknown;
  /** Run inside this session (the caller must own it); without one, in a scratch workspace. */
  sessionId?: string;
  auth: AuthContext;
  /** Aborts the tool body (client gone). */
  signal: AbortSignal;
}

/** The body of the tool route: `{ok, toolName, callId, isError, result, durationMs}`. */
export interface DirectCallOutcome {
  ok: true;
  toolName: string;
  callId: string;
  isError: boolean;
  result: JsonValue;
  durationMs: number;
}

/** Tools that run on the host, sorted by name (agent-execution tools are not directly callable). */
export function serverTools(agent: Pick<DirectCallAgent, "project">): ServerTool[] {
  return Object.entries(agent.project.tools ?? {})
    .filter(([, definition]) => definition.execution !== "agent")
    .map(([name, definition]) => ({ name, definition }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The tool named `toolName`: 404 `tool_not_found` (with the names) or 400 for an agent tool. */
export function findServerTool(agent: Pick<DirectCallAgent, "project">, toolName: string): ServerTool {
  const tools = agent.project.tools ?? {};
  const definition = Object.hasOwn(tools, toolName) ? tools[toolName] : undefined;
  if (!definition) {
    throw notFound("tool_not_found", `no tool named ${JSON.stringify(toolName)}`, { tools: Object.keys(tools).sort() });
  }
  if (definition.execution === "agent") {
    throw new HTTPError({
      status: 400,
      code: "agent_tool_not_callable",
      message: `${toolName} runs where the agent runs and cannot be called on the host`,
    });
  }
  return { name: toolName, definition };
}

/**
 * Validates the input, then runs the tool in a scratch workspace and scratch session
 * (./scratch-session.ts) or inside the session (recorded
 * on its stream under a per-call turnId, 409 `session_busy` while a turn runs). A throwing tool
 * body is an `isError` outcome, never an exception. A call its `needsApproval` gate holds is
 * refused with 403 `approval_required`, on every direct path (route, MCP, CLI).
 */
export async function callServerTool(agent: DirectCallAgent, tool: ServerTool, request: DirectCallRequest): Promise<DirectCallOutcome> {
  const input = await validateToolInput(tool.definition, request.input ?? {});
  if (await needsApproval(tool.definition, input)) throw approvalRequired(tool.name);
  const { sessionId } = request;
  // A session living in another host runs its calls there, where its turns and stream are
  // (docs/design/cloudflare.md "Where turns run"); that host validates the raw input again.
  if (sessionId !== undefined && isSessionId(sessionId) && !agent.sessions.isHere(sessionId)) {
    return (await agent.sessions.sendToHome(sessionId, { op: "callTool", toolName: tool.name, input: request.input ?? {}, auth: request.auth })) as DirectCallOutcome;
  }
  const callId = toolCallIdForDirectCall(tool.name);
  const started = Date.now();
  const outcome =
    request.sessionId === undefined
      ? await callInScratch(agent, tool, input, callId, request)
      : await callInSession(agent, tool, input, callId, request.sessionId, request);
  return { ok: true, toolName: tool.name, callId, isError: outcome.isError, result: outcome.result, durationMs: Date.now() - started };
}

// --- internals ---

async function callInScratch(
  agent: DirectCallAgent,
  tool: ServerTool,
  input: unknown,
  callId: string,
  request: DirectCallRequest,
): Promise<ToolRunResult> {
  const scratch = await agent.runtime?.scratchWorkspace();
  try {
    const toolContext = createToolContext(agent.toolServices, {
      toolCallId: callId,
      record: undefined,
      scratch: scratchSession(request.auth),
      turnId: undefined,
      workspaceDir: scratch?.path,
      signal: request.signal,
    });
    return await runServerTool(tool.definition, input, toolContext);
  } finally {
    await scratch?.remove();
  }
}

async function callInSession(
  agent: DirectCallAgent,
  tool: ServerTool,
  input: unknown,
  callId: string,
  sessionId: string,
  request: DirectCallRequest,
): Promise<ToolRunResult> {
  if (!isSessionId(sessionId)) throw sessionNotFound();
  const record = await agent.sessions.owned(sessionId, request.auth);
  return agent.controller.runExclusive(sessionId, async () => {
    const turnId = newTurnId();
    const emit = (draft: EventDraft<"actions.requested" | "action.result">) => agent.log.append(sessionId, [{ ...draft, turnId }]);
    await emit({ type: "actions.requested", data: { actions: [{ toolCallId: callId, toolName: tool.name, input }] } });
    const workspaceDir = await agent.runtime?.sessionWorkspace(sessionId);
    const toolContext = createToolContext(agent.toolServices, { toolCallId: callId, record, turnId, workspaceDir, signal: request.signal });
    const outcome = await runServerTool(tool.definition, input, toolContext);
    await emit({ type: "action.result", data: { toolCallId: callId, toolName: tool.name, output: outcome.result, isError: outcome.isError } });
    return outcome;
  });
}
