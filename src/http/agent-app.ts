/**
 * One agent's HTTP surface: its route table under the agent's base path, matched by the host's one
 * router and run by ./run-route.ts (docs/design/routing.md). A path the table knows with another
 * method is 405 with `Allow`; anything else is 404.
 * @module
 */
import type { AgentRuntime } from "./agent.ts";
import { HTTPError, notFound } from "../base/errors.ts";
import { isLoopbackAddress } from "../base/auth-policies.ts";
import type { HostServices, RouteDefinition } from "./route.ts";
import { createRouter } from "./router.ts";
import { runRoute } from "./run-route.ts";
import { isMcpResource, resourceChallenge } from "./oauth-resource.ts";

export type AgentApp = (request: Request, ip: string | undefined) => Promise<Response>;

export function createAgentApp(agent: AgentRuntime, routes: readonly RouteDefinition[], host: HostServices): AgentApp {
  const router = createRouter(routes);
  const base = agent.basePath;
  return async (request, ip) => {
    // The parsed path, so dot segments are resolved before matching; a path outside the base
    // matches nothing.
    const url = new URL(request.url);
    const pathname = url.pathname;
    const local = pathname === base || pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : undefined;
    const found = local === undefined ? undefined : router.match(request.method, local);
    if (!found) throw notFound("not_found", "no such route");
    if (!found.route) {
      throw new HTTPError({
        status: 405,
        code: "method_not_allowed",
        message: `use ${found.allow.join(" or ")} for this route`,
        headers: { allow: found.allow.join(", ") },
      });
    }
    const challenge = host.oauth && isMcpResource(local!) ? resourceChallenge(url, host.oauth) : undefined;
    return runRoute(found.route, { request, ip, params: found.params, policies: agent.policies, url, ...(challenge ? { challenge } : {}) }, (call) =>
      Object.assign(call, {
        agent,
        // Dev loopback callers and anonymous deployments see every session.
        wide: (host.dev && isLoopbackAddress(ip)) || call.auth.authenticator === "allowAll",
        host,
      }),
    );
  };
}
