import { HTTPError } from "../base/errors.ts";
import { allowAll, bearerAuth, localDevStrict } from "../base/auth-policies.ts";
import type { AuthContext, AuthPolicy, AuthRequestInfo } from "../base/auth.ts";

/** Runs the policies in order; the first non-null principal wins, none means 401. */
export async function authenticate(
  policies: readonly AuthPolicy[],
  request: Request,
  info: AuthRequestInfo,
): Promise<AuthContext> {
  for (const policy of policies) {
    const principal = await policy(request, info);
    if (principal) return principal;
  }
  throw new HTTPError({
    status: 401,
    code: "unauthorized",
    message: "no auth policy admitted this request",
    headers: { "www-authenticate": 'Bearer realm="agent-serve"' },
  });
}

/** The default chain of the built-in HTTP channel, as swapped by `--bearer-token` / `--allow-anonymous`. */
export function defaultPolicies(auth: { bearerToken?: string; allowAnonymous?: boolean; policies?: AuthPolicy[] } = {}): AuthPolicy[] {
  if (auth.bearerToken && auth.allowAnonymous) {
    throw new Error("[agent-serve] [auth] bearerToken and allowAnonymous are mutually exclusive");
  }
  if (auth.policies) return auth.policies;
  if (auth.bearerToken) return [bearerAuth(auth.bearerToken)];
  if (auth.allowAnonymous) return [allowAll()];
  return [localDevStrict()];
}
