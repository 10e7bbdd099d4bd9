/**
 * `agent-serve/connections`: MCP servers the agent's model can call through the `mcp` harness
 * tool (`bot/mcp-connections/<name>.ts`; the file name is the server name).
 * @module
 */
import type { ConnectionDefinition } from "../base/definitions/harness.ts";

export type { ConnectionDefinition, HttpConnectionDefinition, McpOAuthOptions, StdioConnectionDefinition } from "../base/definitions/harness.ts";
export type { McpOAuthClientAuth, McpOAuthRecord } from "../base/definitions/mcp-oauth.ts";
export { REFRESH_MARGIN_MS, createMcpOAuthTokens, withTokens } from "../engine/harness/mcp-oauth-tokens.ts";
export type { McpOAuthTokens, McpOAuthTokensOptions, TokenAnswer } from "../engine/harness/mcp-oauth-tokens.ts";

/**
 * Declares an MCP connection: remote HTTP (`{url, headers}`) or a local process (`{command,
 * args, env}`). Credentials go in as `${NAME}` templates, resolved from the environment each time a
 * client opens. A typed identity function.
 * @example
 * export default defineConnection({ url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer ${EXAMPLE_TOKEN}" } });
 * @example
 * export default defineConnection({ command: "node", args: ["./servers/notes.mjs"], env: { NOTES_DIR: "${HOME}/notes" } });
 */
export function defineConnection<const T extends ConnectionDefinition>(connection: T): T {
  return connection;
}
