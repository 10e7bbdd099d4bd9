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
