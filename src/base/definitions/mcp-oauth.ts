/**
 * What the agent's store keeps of an MCP connection's OAuth authorization (docs/guide/mcp.md
 * "Connections that need OAuth"): written by `agent-serve mcp oauth <connection>`, read and
 * refreshed by the `mcp` harness tool when it opens the connection.
 * @module
 */

/** How the client proves itself at the token endpoint (RFC 6749 §2.3, RFC 7591). */
export type McpOAuthClientAuth = "client_secret_basic" | "client_secret_post" | "none";

export interface McpOAuthRecord {
  /** The connection's name (its file name under `bot/mcp-connections/`). */
  connection: string;
  /** The connection's URL when it was authorized: another URL makes the authorization unusable. */
  serverUrl: string;
  /** The `resource` sent with every token request (RFC 8707), the server's canonical URL. */
  resource?: string;
  /** The authorization server's issuer. */
  issuer: string;
  tokenEndpoint: string;
  /** Where `mcp oauth --revoke` revokes the tokens (RFC 7009), when the server has one. */
  revocationEndpoint?: string;
  clientId: string;
  clientSecret?: string;
  clientAuth: McpOAuthClientAuth;
  accessToken: string;
  refreshToken?: string;
  /** Milliseconds since the epoch; absent when the server said nothing of the token's lifetime. */
  expiresAt?: number;
  scope?: string;
  /** When the access token was obtained (ISO 8601), by the flow or a refresh. */
  obtainedAt: string;
}
