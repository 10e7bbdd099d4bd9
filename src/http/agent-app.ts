/**
 * One agent's HTTP surface: the route table mounted on an itty router under the agent's base
 * path, with the auth chain applied per route.
 * @module
 */
import { Router, type IRequest } from "itty-router";
import type { AgentRuntime } from "./agent.ts";
import { HTTPError, notFound } from "../base/errors.ts";
import { authenticate } from "./auth-chain.ts";
import { isLoopbackAddress } from "../base/auth-policies.ts";
import type { HostServices, RouteDefinition } from "./route.ts";

export type AgentApp = (request: Request, ip: string | undefined) => Promise<Response>;

export function createAgentApp(agent: AgentRuntime, routes: readonly RouteDefinition[], host: HostServices): AgentApp {
  const router = Router({ base: agent.basePath });
  for (const route of routes) {
    const register = REGISTER[route.method](router);
    register(route.path, (request: IRequest, ip: string | undefined) => dispatch(route, request, ip));
    // HEAD answers as GET; the host drops the body (docs/guide/http-api.md).
    if (route.method === "GET") router.head(route.path, (request: IRequest, ip: string | undefined) => dispatch(route, request, ip));
  }
  for (const [path, methods] of methodsByPath(routes)) {
    router.all(path, () => {
      throw new HTTPError({
        status: 405,
        code: "method_not_allowed",
        message: `use ${methods.join(" or ")} for this route`,
        headers: { allow: methods.join(", ") },
      });
    });
  }
  router.all("*", () => {
    throw notFound("not_found", "no such route");
  });

  async function dispatch(route: RouteDefinition, request: IRequest, ip: string | undefined): Promise<Response> {
    const params = decodeParams(request.params);
    const auth =
      route.auth === "agent"
        ? await authenticate(route.policies ?? agent.policies, request, ip === undefined ? {} : { ip })
        : { authenticator: "none", principalId: "anonymous", principalType: "anonymous" as const };
    const wide = (host.dev && isLoopbackAddress(ip)) || auth.authenticator === "allowAll";
    return route.handler({ request, url: new URL(request.url), params, agent, auth, ip, wide, host });
  }

  return async (request, ip) => (await router.fetch(request, ip)) as Response;
}

// --- internals ---

type Registrar = ReturnType<typeof Router>["get"];
const REGISTER: Record<RouteDefinition["method"], (router: ReturnType<typeof Router>) => Registrar> = {
  GET: (router) => router.get,
  POST: (router) => router.post,
  PUT: (router) => router.put,
  PATCH: (router) => router.patch,
  DELETE: (router) => router.delete,
};

function decodeParams(raw: Record<string, string> | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw ?? {})) {
    try {
      params[key] = decodeURIComponent(value);
    } catch {
      // Left encoded: no route accepts a `%`, so the parameter reads as unknown to its handler.
      params[key] = value;
    }
  }
  return params;
}

function methodsByPath(routes: readonly RouteDefinition[]): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const route of routes) {
    const methods = route.method === "GET" ? ["GET", "HEAD"] : [route.method];
    byPath.set(route.path, [...(byPath.get(route.path) ?? []), ...methods]);
  }
  return byPath;
}
