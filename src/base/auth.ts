/** The resolved request principal (docs/guide/http-api.md "Auth"). */
export interface AuthContext {
  authenticator: string;
  principalId: string;
  principalType: "user" | "service" | "anonymous" | "local";
  attributes?: Record<string, unknown>;
}

export interface AuthRequestInfo {
  /** TCP peer address, when the adapter knows it. */
  ip?: string;
}

/** Returns the principal it admits, or null to let the next policy decide. */
export type AuthPolicy = (
  request: Request,
  info: AuthRequestInfo,
) => AuthContext | null | Promise<AuthContext | null>;

/**
 * OAuth protected-resource facts of a host whose bearer tokens an authorization server issues
 * (RFC 9728; docs/guide/mcp.md "Authorization"): what its metadata document tells MCP clients.
 */
export interface ProtectedResource {
  /** Issuer URLs of the authorization servers whose tokens the verifier accepts. */
  authorizationServers: string[];
  /** Scopes a client may ask for. */
  scopesSupported?: string[];
  /** A name for people, shown by clients. */
  resourceName?: string;
}
