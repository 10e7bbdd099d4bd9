/**
 * `agent-serve/channels`: auth policies for channel auth chains.
 * @module
 */
export { allowAll, bearerAuth, localDev, localDevStrict, loopbackOnly } from "../http/auth-policies.ts";
export type { TokenVerifier } from "../http/auth-policies.ts";
export type { AuthContext, AuthPolicy, AuthRequestInfo } from "../http/auth-types.ts";
