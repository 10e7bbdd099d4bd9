/**
 * The tools of `POST /v1/mcp/tools` (docs/design/mcp-and-discovery.md): each deterministic server
 * tool under its own name and JSON Schema, run as a session-less direct call. Hosted turns reach
 * the host's tools through this endpoint (`--cloud-tools-url`).
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import { type DirectCallAgent, callServerTool, serverTools } from "../../engine/direct-calls/direct-call.ts";
import { toolInputJsonSchema } from "../../engine/tools/schema.ts";
import { toolResultToMcp } from "./results.ts";
import type { McpTool } from "./stateless.ts";

export function serverToolsAsMcp(agent: DirectCallAgent, auth: AuthContext): McpTool[] {
  return serverTools(agent).map((tool) => ({
    name: tool.name,
    description: tool.definition.description,
    inputSchema: toolInputJsonSchema(tool.definition),
    async call(args, signal) {
      const outcome = await callServerTool(agent, tool, { input: args, auth, signal });
      return toolResultToMcp(outcome.result, outcome.isError);
    },
  }));
}
