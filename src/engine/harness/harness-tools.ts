/**
 * The harness tools of one turn as built-in tools (so `actions.requested` / `action.result` pair
 * them like any other call): `shell read edit grep glob ls` run through the runtime's harness in
 * the session workspace, `mcp` calls the project's MCP connections, `task` runs a subagent.
 * @module
 */
import type { JsonValue, Usage } from "../../base/ports/model.ts";
import type { McpConnectionConfig, RuntimePort } from "../../base/ports/runtime.ts";
import type { EventDraft } from "../../base/events/vocabulary.ts";
import { TURN_INTERRUPTED } from "../../base/abort.ts";
import { errorMessage } from "../../base/errors.ts";
import type { ToolOutcome } from "../../base/definitions/tools.ts";
import type { BuiltinTool } from "../../base/definitions/tools.ts";
import type { HarnessToolId } from "./allowlist.ts";
import { MCP_INPUT_SCHEMA, TASK_INPUT_SCHEMA, WORKSPACE_TOOL_SPECS, parseHarnessInput } from "./tool-specs.ts";
import type { ConnectionDefinition } from "../../base/definitions/harness.ts";
import type { McpOAuthTokens } from "./mcp-oauth-tokens.ts";

/** Runs a subagent to its final answer (the runner supplies it). */
/** Runs a subagent to its answer; `model` is the id of the model it ran on, for the cost report. */
export type SubagentRunner = (id: string, prompt: string, signal: AbortSignal) => Promise<{ text: string; usage: Usage; model: string }>;

export interface HarnessToolsInput {
  runtime: RuntimePort;
  /** The session workspace. */
  cwd: string;
  /** `local.sandbox`. */
  sandbox: boolean;
  /** The harness tools the allowlist grants. */
  allowed: ReadonlySet<HarnessToolId>;
  connections: Record<string, ConnectionDefinition>;
  /** The stored tokens of connections that take OAuth (`oauth` set). */
  oauthTokens?: McpOAuthTokens;
  /** Project root: stdio connections start there. */
  projectRoot: string | undefined;
  /** Subagent ids and descriptions, and how to run one; absent where `task` is not offered. */
  subagents?: { list: Array<{ id: string; description: string }>; run: SubagentRunner };
  turnId: string;
  emit: (draft: EventDraft) => Promise<unknown>;
}

const WORKSPACE_TOOLS = ["shell", "read", "edit", "grep", "glob", "ls"] as const;

export function harnessTools(input: HarnessToolsInput): BuiltinTool[] {
  const tools: BuiltinTool[] = [];
  const { runtime, allowed } = input;
  const harness = runtime.harness;
  if (harness) {
    for (const name of WORKSPACE_TOOLS) {
      if (!allowed.has(name)) continue;
      tools.push({
        spec: WORKSPACE_TOOL_SPECS[name],
        async execute(raw, scope) {
          const parsed = parseHarnessInput(name, raw);
          if ("error" in parsed) return { output: parsed.error, isError: true };
          return harness.execute(name, parsed.input, { cwd: input.cwd, signal: scope.signal ?? neverAborted(), sandbox: input.sandbox });
        },
      });
    }
  }
  if (input.subagents && input.subagents.list.length > 0 && allowed.has("task")) tools.push(taskTool(input, input.subagents));
  const servers = Object.keys(input.connections).sort();
  if (servers.length > 0 && allowed.has("mcp")) tools.push(mcpTool(input, servers));
  return tools;
}

// --- internals ---

/** Made on first use: workerd refuses an AbortController made while a module loads. */
let idleSignal: AbortSignal | undefined;
const neverAborted = (): AbortSignal => (idleSignal ??= new AbortController().signal);

function taskTool(input: HarnessToolsInput, subagents: NonNullable<HarnessToolsInput["subagents"]>): BuiltinTool {
  const known = new Set(subagents.list.map((s) => s.id));
  return {
    spec: {
      name: "task",
      description: [
        "Delegates a task to a subagent. It works with its own instructions and tools, sees only the prompt you give it, and returns its final answer.",
        "Subagents:",
        ...subagents.list.map(({ id, description }) => `- ${id}: ${description.replace(/\s+/g, " ").trim()}`),
      ].join("\n"),
      inputSchema: TASK_INPUT_SCHEMA,
    },
    async execute(raw, scope): Promise<ToolOutcome> {
      const args = raw as { subagent?: unknown; prompt?: unknown } | null; // SAFETY: members checked below
      const subagent = args?.subagent;
      const prompt = args?.prompt;
      if (typeof subagent !== "string" || typeof prompt !== "string") return { output: "task: subagent and prompt must be strings", isError: true };
      if (!known.has(subagent)) return { output: `task: no subagent ${JSON.stringify(subagent)}; known: ${[...known].join(", ")}`, isError: true };
      const emit = (draft: EventDraft<"subagent.called" | "subagent.completed">): Promise<unknown> => input.emit({ ...draft, turnId: input.turnId });
      await emit({ type: "subagent.called", data: { subagent, prompt } });
      const signal = scope.signal ?? neverAborted();
      try {
        const { text, usage, model } = await subagents.run(subagent, prompt, signal);
        await emit({ type: "subagent.completed", data: { subagent, isError: false, result: text, usage, model } });
        return { output: text, isError: false };
      } catch (error) {
        const message = signal.aborted ? TURN_INTERRUPTED : errorMessage(error);
        await emit({ type: "subagent.completed", data: { subagent, isError: true, error: message } });
        return { output: `the subagent failed: ${message}`, isError: true };
      }
    },
  };
}

function mcpTool(input: HarnessToolsInput, servers: string[]): BuiltinTool {
  const lines = servers.map((name) => {
    const description = input.connections[name]?.description;
    return `- ${name}${description ? `: ${description.replace(/\s+/g, " ").trim()}` : ""}`;
  });
  return {
    spec: {
      name: "mcp",
      description: ["Calls a tool of a connected MCP server. Without tool, lists the server's tools and their input schemas.", "Servers:", ...lines].join("\n"),
      inputSchema: MCP_INPUT_SCHEMA,
    },
    async execute(raw, scope): Promise<ToolOutcome> {
      // docs/guide/agent-projects.md "Agent configuration": under local.sandbox MCP tool calls fail closed.
      if (input.sandbox) return { output: "mcp: MCP tool calls are disabled while local.sandbox is on (they fail closed)", isError: true };
      const mcp = input.runtime.mcp;
      if (!mcp) return { output: "mcp: this runtime cannot open MCP connections", isError: true };
      const args = raw as { server?: unknown; tool?: unknown; arguments?: unknown } | null; // SAFETY: members checked below
      const server = args?.server;
      if (typeof server !== "string") return { output: "mcp: server must be a string", isError: true };
      const connection = Object.hasOwn(input.connections, server) ? input.connections[server] : undefined;
      if (!connection) return { output: `mcp: no server ${JSON.stringify(server)}; servers: ${servers.join(", ")}`, isError: true };
      const tool = args?.tool;
      const toolArgs = args?.arguments ?? {};
      if (tool !== undefined && typeof tool !== "string") return { output: "mcp: tool must be a string", isError: true };
      if (typeof toolArgs !== "object" || toolArgs === null || Array.isArray(toolArgs)) return { output: "mcp: arguments must be an object", isError: true };
      const options = { signal: scope.signal ?? neverAborted(), ...(input.projectRoot === undefined ? {} : { base: input.projectRoot }) };
      try {
        const config = await configFor(server, connection, input.oauthTokens);
        if (tool === undefined) {
          const listed = await mcp.listTools(config, options);
          // SAFETY: tool infos are JSON from the server (name, description, JSON Schema)
          return { output: { server, tools: listed as unknown as JsonValue }, isError: false };
        }
        // SAFETY: checked to be a non-null, non-array object above
        return await mcp.callTool(config, tool, toolArgs as Record<string, unknown>, options);
      } catch (error) {
        return { output: `mcp: ${server}: ${errorMessage(error)}`, isError: true };
      }
    },
  };
}

/** What the runtime opens; a connection that takes OAuth gets its stored token (docs/guide/mcp.md). */
async function configFor(name: string, connection: ConnectionDefinition, tokens: McpOAuthTokens | undefined): Promise<McpConnectionConfig> {
  if (!("url" in connection) || !connection.oauth) return toConfig(connection);
  if (!tokens) throw new Error(`connection ${name} takes OAuth, and this host keeps no OAuth tokens`);
  return { ...toConfig(connection), accessToken: await tokens.accessToken(name, connection), renewAccessToken: () => tokens.accessToken(name, connection, { renew: true }) };
}

function toConfig(connection: ConnectionDefinition): McpConnectionConfig {
  if ("url" in connection) return { url: connection.url, ...(connection.headers ? { headers: connection.headers } : {}) };
  return {
    command: connection.command,
    ...(connection.args ? { args: connection.args } : {}),
    ...(connection.env ? { env: connection.env } : {}),
    ...(connection.cwd ? { cwd: connection.cwd } : {}),
  };
}
