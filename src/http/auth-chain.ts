import { HTTPError } from "../base/errors.ts";
import { type TokenVerifier, allowAll, bearerAuth, localDevStrict } from "../base/auth-policies.ts";
import type { AuthContext, AuthPolicy, AuthRequestInfo } from "../base/auth.ts";

/** Runs the policies in order; the first non-null principal wins, none means 401. */
export async function authenticate(
  policies: readonly AuthPolicy[],
  request: Request,
  info: AuthRequestInfo,
  challenge: string = DEFAULT_CHALLENGE,
): Promise<AuthContext> {
  for (const policy of policies) {
    const principal = await policy(request, info);
    if (principal) return principal;
  }
  throw new HTTPError({
    status: 401,
    code: "unauthorized",
    message: "no auth policy admitted this request",
    headers: { "www-authenticate": challenge },
  });
}

/** The `WWW-Authenticate` of a 401 where no protected-resource metadata is published. */
export const DEFAULT_CHALLENGE = 'Bearer realm="agent-serve"';

/** The default chain of the built-in HTTP channel, as swapped by `--bearer-token` / `--allow-anonymous`. */
export function defaultPolicies(
  auth: { bearerToken?: string; allowAnonymous?: boolean; policies?: AuthPolicy[]; oauth?: { verifier: TokenVerifier } } = {},
): AuthPolicy[] {
  if ((auth.bearerToken || auth.oauth) && auth.allowAnonymous) {
    throw new Error("[agent-serve] [auth] bearer tokens (bearerToken, oauth) and allowAnonymous are mutually exclusive");
  }
  if (auth.policies) return auth.policies;
  // An OAuth verifier decides first; a static token, when also given, still admits its holder.
  if (auth.oauth) return [bearerAuth(auth.oauth.verifier), ...(auth.bearerToken ? [bearerAuth(auth.bearerToken)] : [])];
  if (auth.bearerToken) return [bearerAuth(auth.bearerToken)];
  if (auth.allowAnonymous) return [allowAll()];
  return [localDevStrict()];
}
