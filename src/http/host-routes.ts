/**
 * The routes the host answers itself, above the agents' route tables: one table that both the host
 * router dispatches through (./dispatch/host-router.ts) and the docs' route reference lists, so a
 * host route cannot be served without being documented, nor documented without being served. Each
 * is the route shape of ../base/route.ts; its handler comes from the host that serves it, which
 * knows its sites and agents (docs/design/routing.md "Host routes").
 * @module
 */
import { createError } from "../base/errors.ts";
import type { Route, RouteCall } from "../base/route.ts";
import type { AgentRuntime } from "./agent.ts";
import { SCM_WEBHOOKS_PATH } from "./scm-webhooks.ts";

/** What a host route's handler receives. */
export interface HostRouteContext extends RouteCall {
  /** The raw path in the route's scope (below the agent's base for agent scope). */
  path: string;
  /** The agent whose base the path is under (agent scope). */
  agent: AgentRuntime | undefined;
}

export interface HostRoute extends Omit<Route<HostRouteContext>, "handler" | "method"> {
  /** As the reference shows it; GET routes answer HEAD too. */
  method: "GET" | "POST";
  /**
   * `host`: matched against the whole path, before any agent. `agent`: matched against the path
   * below an agent's base (`/<slug>` in multi mode, the root in single mode), before its routes.
   * Exact paths either way; a method the route does not take falls through to the agents.
   */
  scope: "host" | "agent";
  /** The paths as the reference shows them (agent scope: below `<base>`). */
  paths: readonly string[];
  /** Route layouts that serve it. */
  modes: ReadonlyArray<"multi" | "single">;
  /** What turns it off, as the reference says. */
  absentWith?: string;
  /** What turns it on, as the reference says (a route absent by default). */
  presentWith?: string;
  /** Every method reaches the handler, which answers 405 to all but `method`: the path is the host's. */
  everyMethod?: boolean;
}

/** A host route this host serves: the table's entry with its handler. */
export type ServedHostRoute = HostRoute & Route<HostRouteContext>;

/** Every host-level route, in matching order within its scope. */
export const hostRoutes = {
  health: {
    method: "GET",
    scope: "host",
    path: "/v1/health",
    paths: ["/v1/health"],
    auth: "none",
    summary: "Host liveness: {ok, agents}. (Single mode: the agent's own `/v1/health` route.)",
    modes: ["multi"],
  },
  agentIndex: {
    method: "GET",
    scope: "host",
    path: "/v1/agents",
    paths: ["/v1/agents"],
    auth: "none",
    summary: "JSON index of the mounted agents: slug, name, description, URLs.",
    modes: ["multi"],
    absentWith: "--no-playground",
  },
  webIndex: {
    method: "GET",
    scope: "host",
    path: "/",
    paths: ["/"],
    auth: "none",
    summary: "Web index of the mounted agents, each linking to its playground.",
    modes: ["multi"],
    absentWith: "--no-playground",
  },
  docs: {
    method: "GET",
    scope: "host",
    path: "/docs/*",
    paths: ["/docs", "/docs/:page", "/docs/search?q="],
    auth: "none",
    summary: "This documentation site and its search.",
    modes: ["multi", "single"],
    absentWith: "--no-docs",
  },
  scmWebhooks: {
    method: "POST",
    scope: "host",
    path: SCM_WEBHOOKS_PATH,
    paths: [SCM_WEBHOOKS_PATH],
    auth: "none",
    summary:
      "One webhook URL for every GitHub channel pack of every agent: the delivery goes to the channel whose secret verifies it (405 for other methods).",
    modes: ["multi", "single"],
    everyMethod: true,
  },
  oauthProtectedResource: {
    method: "GET",
    scope: "host",
    path: "/.well-known/oauth-protected-resource/*",
    paths: ["/.well-known/oauth-protected-resource<base>/v1/mcp", "/.well-known/oauth-protected-resource<base>/v1/mcp/tools"],
    auth: "none",
    summary: "OAuth protected-resource metadata (RFC 9728) of an agent's MCP endpoints: the authorization servers whose tokens they accept.",
    modes: ["multi", "single"],
    presentWith: "an OAuth verifier (auth.oauth)",
  },
  agentPage: {
    method: "GET",
    scope: "agent",
    // The agent's base itself, with or without its slash: the router sees both as `/`.
    path: "/",
    paths: [""],
    auth: "none",
    summary: "The agent's own URL (the one the start-up banner prints): redirects to its playground.",
    modes: ["multi", "single"],
    absentWith: "--no-playground",
  },
  playground: {
    method: "GET",
    scope: "agent",
    path: "/playground/*",
    paths: ["/playground", "/playground/assets/:file"],
    auth: "none",
    summary: "The agent's playground page and its files.",
    modes: ["multi", "single"],
    absentWith: "--no-playground",
  },
} as const satisfies Record<string, HostRoute>;

export type HostRouteId = keyof typeof hostRoutes;

/** A handler per host route; `undefined` where this host does not serve it (mode, flags). */
export type HostRouteHandlers = { readonly [K in HostRouteId]: Route<HostRouteContext>["handler"] | undefined };

/**
 * The routes of one scope this host serves, in matching order, each with its handler. A handler
 * for a layout the table does not list throws: the reference would say the route is absent.
 */
export function servedHostRoutes(scope: HostRoute["scope"], mode: "multi" | "single", handlers: HostRouteHandlers): ServedHostRoute[] {
  const served: ServedHostRoute[] = [];
  for (const id of Object.keys(hostRoutes) as HostRouteId[]) {
    const route: HostRoute = hostRoutes[id];
    const handler = handlers[id];
    if (route.scope !== scope || handler === undefined) continue;
    if (!route.modes.includes(mode)) throw createError("host", `the host route ${id} is not documented for ${mode} mode`);
    served.push({ ...route, handler });
  }
  return served;
}
