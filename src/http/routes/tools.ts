/**
 * `POST /v1/tools/:toolName`: a server tool called directly, with no model turn (SPEC "Tool route",
 * rules 1-7).
 * @module
 */
import { validate } from "../../_validate.ts";
import { HTTPError, notFound } from "../../errors.ts";
import { isSessionId, newTurnId } from "../../ids.ts";
import { toolCallBody } from "../../schemas/tools.ts";
import { sessionNotFound } from "../../sessions/session-service.ts";
import { runServerTool, toolCallIdForDirectCall } from "../../tools/run-tool.ts";
import { validateToolInput } from "../../tools/schema.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { createToolContext } from "../../turns/tool-context.ts";
import { readJsonBody } from "../body.ts";
import { json } from "../responses.ts";
import { type RouteContext, defineRoute } from "../route.ts";

export const callTool = defineRoute({
  method: "POST",
  path: "/v1/tools/:toolName",
  auth: "agent",
  summary: "Call a server tool directly (optionally inside a session)",
  async handler(context) {
    const { agent } = context;
    const toolName = context.params["toolName"] ?? "";
    const tools = agent.project.tools ?? {};
    const def = Object.hasOwn(tools, toolName) ? tools[toolName] : undefined;
    if (!def) {
      throw notFound("tool_not_found", `no tool named ${JSON.stringify(toolName)}`, { tools: Object.keys(tools).sort() });
    }
    if (def.execution === "agent") {
      throw new HTTPError({ status: 400, code: "agent_tool_not_callable", message: `${toolName} runs where the agent runs and cannot be called on the host` });
    }
    const body = await validate(await readJsonBody(context.request, context.host.maxBodyBytes), toolCallBody);
    const input = await validateToolInput(def, body.input ?? {});
    const callId = toolCallIdForDirectCall(toolName);
    const started = Date.now();
    const outcome = body.sessionId === undefined
      ? await callInScratch(context, def, input, callId)
      : await callInSession(context, def, input, callId, toolName, body.sessionId);
    return json({ ok: true, toolName, callId, isError: outcome.isError, result: outcome.result, durationMs: Date.now() - started });
  },
});

// --- internals ---

type Outcome = Awaited<ReturnType<typeof runServerTool>>;

async function callInScratch(context: RouteContext, def: ToolDefinition, input: unknown, callId: string): Promise<Outcome> {
  const scratch = await context.agent.runtime?.scratchWorkspace();
  try {
    const toolContext = createToolContext(context.agent.toolServices, {
      toolCallId: callId,
      record: undefined,
      turnId: undefined,
      workspaceDir: scratch?.path,
      signal: context.request.signal,
    });
    return await runServerTool(def, input, toolContext);
  } finally {
    await scratch?.remove();
  }
}

async function callInSession(
  context: RouteContext,
  def: ToolDefinition,
  input: unknown,
  callId: string,
  toolName: string,
  sessionId: string,
): Promise<Outcome> {
  const { agent } = context;
  if (!isSessionId(sessionId)) throw sessionNotFound();
  const record = await agent.sessions.owned(sessionId, context.auth);
  return agent.controller.runExclusive(sessionId, async () => {
    const turnId = newTurnId();
    const emit = (type: "actions.requested" | "action.result", data: Record<string, unknown>) =>
      agent.log.append(sessionId, [{ type, turnId, data }]);
    await emit("actions.requested", { actions: [{ toolCallId: callId, toolName, input }] });
    const workspaceDir = await agent.runtime?.sessionWorkspace(sessionId);
    const toolContext = createToolContext(agent.toolServices, { toolCallId: callId, record, turnId, workspaceDir, signal: context.request.signal });
    const outcome = await runServerTool(def, input, toolContext);
    await emit("action.result", { toolCallId: callId, toolName, output: outcome.result, isError: outcome.isError });
    return outcome;
  });
}
