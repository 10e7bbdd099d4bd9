/**
 * MCP authorization's discovery (docs/guide/mcp.md "Authorization"): with an OAuth verifier, each
 * MCP endpoint is a protected resource (RFC 9728) whose metadata document, at the well-known path
 * built from the endpoint's own path, names the authorization servers; a 401 from the endpoint
 * points at it with `WWW-Authenticate: Bearer resource_metadata="..."`, as the MCP authorization
 * spec asks, so a client learns where to get a token from the first refusal.
 * @module
 */
import type { ProtectedResource } from "../base/auth.ts";

/** The well-known prefix of RFC 9728 §3.1. */
export const METADATA_PREFIX = "/.well-known/oauth-protected-resource";

/** The MCP endpoints below an agent's base: the resources that publish metadata. */
const MCP_PATHS: ReadonlySet<string> = new Set(["/v1/mcp", "/v1/mcp/tools"]);

export const isMcpResource = (pathBelowBase: string): boolean => MCP_PATHS.has(pathBelowBase.replace(/\/+$/, ""));

/** The `WWW-Authenticate` of a 401 from the resource at `url`. */
export function resourceChallenge(url: URL, oauth: ProtectedResource): string {
  const scope = oauth.scopesSupported?.length ? `, scope="${oauth.scopesSupported.join(" ")}"` : "";
  return `Bearer resource_metadata="${url.origin}${METADATA_PREFIX}${url.pathname.replace(/\/+$/, "")}"${scope}`;
}

/** The metadata document of the resource at `origin` + `path`. */
export function resourceMetadata(origin: string, path: string, oauth: ProtectedResource): Record<string, unknown> {
  return {
    resource: `${origin}${path}`,
    authorization_servers: oauth.authorizationServers,
    bearer_methods_supported: ["header"],
    ...(oauth.scopesSupported ? { scopes_supported: oauth.scopesSupported } : {}),
    ...(oauth.resourceName ? { resource_name: oauth.resourceName } : {}),
  };
}
