/**
 * The tools of `POST /v1/mcp` (docs/design/mcp-and-discovery.md): `ask` delegates a message to the
 * agent and waits a bounded time for the reply, `check` polls a session, `call_tool` passes through
 * to a server tool (listed only when the agent has one). They act as the caller's principal, with
 * the same ownership rules as the session API.
 * @module
 */
import { validate } from "../../base/validate.ts";
import { badRequest } from "../../base/errors.ts";
import type { AuthContext } from "../../base/auth.ts";
import { isSessionId } from "../../base/ids.ts";
import { sessionNotFound } from "../../engine/sessions/session-service.ts";
import { type DirectCallAgent, callServerTool, findServerTool, serverTools } from "../../engine/direct-calls/direct-call.ts";
import { toolInputJsonSchema } from "../../engine/tools/schema.ts";
import { jsonToolResult } from "./results.ts";
import { type AskArgs, DEFAULT_ASK_WAIT_SECONDS, MAX_WAIT_SECONDS, askArgs, callToolArgs, checkArgs } from "./schemas.ts";
import { watchSession } from "./session-watch.ts";
import type { McpTool } from "./stateless.ts";

/** Sessions started over MCP record this channel. */
export const MCP_CHANNEL = "mcp";

export interface AgentToolsContext {
  agent: DirectCallAgent;
  auth: AuthContext;
  /** Whether the caller may read sessions it does not own (dev loopback, anonymous deployments). */
  wide: boolean;
  closing: { subscribe(listener: () => void): () => void };
}

export function agentMcpTools(context: AgentToolsContext): McpTool[] {
  const tools = [askTool(context), checkTool(context)];
  const callable = serverTools(context.agent);
  if (callable.length > 0) tools.push(callTool(context, callable.map((tool) => tool.name)));
  return tools;
}

// --- internals ---

/**
 * What `ask` does before it waits: the message starts a session, or follows one up with its
 * token. Resolves with the session and the log index the answer starts at. `ask` run as a task
 * (./tasks.ts) starts the same way.
 */
export async function startAsk({ agent, auth }: Pick<AgentToolsContext, "agent" | "auth">, args: AskArgs): Promise<{ sessionId: string; from: number }> {
  if (args.sessionId === undefined) {
    if (args.continuationToken !== undefined) throw badRequest("continuationToken needs the sessionId it belongs to");
    const record = await agent.sessions.create({ message: args.message, auth, channel: MCP_CHANNEL });
    return { sessionId: record.sessionId, from: 0 };
  }
  if (args.continuationToken === undefined) throw badRequest("continuing a session needs its continuationToken (from the latest ask or check)");
  const sessionId = args.sessionId;
  if (!isSessionId(sessionId)) throw sessionNotFound();
  const from = await agent.log.length(sessionId);
  await agent.sessions.followUp(sessionId, { message: args.message, auth, continuationToken: args.continuationToken, admission: "preempt" });
  return { sessionId, from };
}

function askTool({ agent, auth, closing }: AgentToolsContext): McpTool {
  return {
    name: "ask",
    description:
      `Send a message to the ${agent.project.name} agent and wait for its reply. Without sessionId a new ` +
      "conversation starts; pass sessionId and the continuationToken of the latest answer to continue one " +
      "(a turn still running there is interrupted). Returns {status, sessionId, continuationToken, reply?, error?, approvals?}; " +
      "status \"awaiting_approval\" lists calls parked for a human decision; " +
      `status "running" means the reply was not ready within waitSeconds (default ${DEFAULT_ASK_WAIT_SECONDS}): poll with check.`,
    inputSchema: toolInputJsonSchema({ inputSchema: askArgs }),
    async call(raw, signal) {
      const args = await validate(raw, askArgs, "ask arguments");
      const { sessionId, from } = await startAsk({ agent, auth }, args);
      const report = await watchSession(agent, sessionId, { from, waitMs: waitMs(args.waitSeconds, DEFAULT_ASK_WAIT_SECONDS), signal, closing });
      return jsonToolResult(report);
    },
  };
}

function checkTool({ agent, auth, wide, closing }: AgentToolsContext): McpTool {
  return {
    name: "check",
    description:
      "Report on a session: {status: running|awaiting_approval|waiting|completed|failed, sessionId, continuationToken, reply?, error?, approvals?}; " +
      "awaiting_approval lists the calls parked for a human decision (resolve them with POST /v1/session/:id/approvals/:callId). " +
      "waiting means the agent answered and awaits the next message. With waitSeconds, waits that long at most " +
      "for a running session to settle.",
    inputSchema: toolInputJsonSchema({ inputSchema: checkArgs }),
    async call(raw, signal) {
      const args = await validate(raw, checkArgs, "check arguments");
      if (!isSessionId(args.sessionId)) throw sessionNotFound();
      await agent.sessions.readable(args.sessionId, { auth, wide });
      const report = await watchSession(agent, args.sessionId, { from: 0, waitMs: waitMs(args.waitSeconds, 0), signal, closing });
      return jsonToolResult(report);
    },
  };
}

function callTool({ agent, auth }: AgentToolsContext, names: string[]): McpTool {
  return {
    name: "call_tool",
    description:
      `Call one of the agent's server tools directly, without a model turn: ${names.join(", ")}. ` +
      "With sessionId the call runs inside that session. Returns {ok, toolName, callId, isError, result, durationMs}.",
    inputSchema: toolInputJsonSchema({ inputSchema: callToolArgs }),
    async call(raw, signal) {
      const args = await validate(raw, callToolArgs, "call_tool arguments");
      const outcome = await callServerTool(agent, findServerTool(agent, args.name), {
        input: args.input,
        ...(args.sessionId === undefined ? {} : { sessionId: args.sessionId }),
        auth,
        signal,
      });
      return jsonToolResult({ ...outcome }, outcome.isError);
    },
  };
}

function waitMs(seconds: number | undefined, fallback: number): number {
  return Math.min(seconds ?? fallback, MAX_WAIT_SECONDS) * 1000;
}
