/**
 * Runs a matched route, the same way for host and agent routes (docs/design/routing.md): decode its
 * parameters, run its auth chain when it asks for one, then its handler with the context its table
 * adds.
 * @module
 */
import type { AuthContext, AuthPolicy } from "../base/auth.ts";
import type { Route, RouteCall } from "../base/route.ts";
import { authenticate } from "./auth-chain.ts";

export interface RouteInput {
  request: Request;
  ip: string | undefined;
  /** As the router matched them, still percent-encoded. */
  params: Record<string, string>;
  /** The chain of `auth: "agent"` routes that name none of their own. */
  policies: readonly AuthPolicy[];
  /** `request.url` parsed, when the caller has it; otherwise parsed on first read. */
  url?: URL;
  /** The `WWW-Authenticate` of a 401 here, when the route's resource publishes metadata. */
  challenge?: string;
}

/**
 * `context` adds its table's members to the call; it must keep the call's `url` getter (assign onto
 * the call rather than spread it), so a route that never reads the URL never parses it: the host
 * routes answer health checks (bench/README.md).
 */
export async function runRoute<Context extends RouteCall>(
  route: Route<Context>,
  input: RouteInput,
  context: (call: RouteCall) => Context,
): Promise<Response> {
  const { request, ip } = input;
  const params = decodeParams(input.params);
  const auth = route.auth === "agent" ? await authenticate(route.policies ?? input.policies, request, ip === undefined ? {} : { ip }, input.challenge) : anonymous();
  let url = input.url;
  const call: RouteCall = {
    request,
    get url() {
      return (url ??= new URL(request.url));
    },
    params,
    auth,
    ip,
  };
  return route.handler(context(call));
}

// --- internals ---

const anonymous = (): AuthContext => ({ authenticator: "none", principalId: "anonymous", principalType: "anonymous" });

function decodeParams(raw: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    try {
      params[key] = decodeURIComponent(value);
    } catch {
      // Left encoded: no route accepts a `%`, so the parameter reads as unknown to its handler.
      params[key] = value;
    }
  }
  return params;
}
