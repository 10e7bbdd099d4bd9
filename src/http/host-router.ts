/**
 * The host's top-level dispatch: host routes plus one agent app per slug (multi mode), or the
 * single agent at the root (single mode), as docs/guide/http-api.md "Route layout" lays out.
 * @module
 */
import type { AgentRuntime } from "./agent.ts";
import { notFound } from "../base/errors.ts";
import type { DocsSite, PlaygroundSite } from "./site-types.ts";
import { type AgentApp, createAgentApp } from "./agent-app.ts";
import { AGENT_INDEX_HEADERS, agentIndexPage, describeAgent } from "./agent-index.ts";
import { createDocsHandler } from "./docs-site.ts";
import { type HostRouteHandlers, servedHostRoutes } from "./host-routes.ts";
import { type PlaygroundHandler, createPlaygroundHandler } from "./playground-site.ts";
import { html, json, rawJson } from "../base/responses.ts";
import type { HostServices, RouteDefinition } from "./route.ts";
import { agentRoutes } from "./routes/index.ts";
import { createScmWebhooks } from "./scm-webhooks.ts";
import { channelRouteDefinitions } from "../features/channels/routes.ts";

export type HostHandler = (request: Request, ip: string | undefined) => Promise<Response>;

export interface HostHandlerOptions {
  mode: "multi" | "single";
  /** false removes the index routes and the SPA; true keeps the index routes only (no files). */
  playground: boolean | PlaygroundSite;
  docs?: false | DocsSite;
}

interface Mount {
  app: AgentApp;
  playground: PlaygroundHandler | undefined;
}

/** A host route's handler; `path` is in the route's scope, `mount` is the agent's for agent scope. */
type HostRouteHandler = (request: Request, ip: string | undefined, path: string, mount: Mount | undefined) => Response | Promise<Response>;

/**
 * Dispatches through the host route table (./host-routes.ts), then to the agent apps: a route
 * the host answers itself has to be in that table, which the docs' route reference lists.
 */
export function createHostHandler(agents: readonly AgentRuntime[], services: HostServices, options: HostHandlerOptions): HostHandler {
  const { mode } = options;
  if (mode === "single" && agents.length !== 1) throw new Error("[agent-serve] [host] single mode serves exactly one agent");
  const docs = options.docs ? createDocsHandler(options.docs) : undefined;
  const site = typeof options.playground === "object" ? options.playground : undefined;
  const mounts = new Map<string, Mount>(
    agents.map((agent) => [
      agent.slug,
      { app: createAgentApp(agent, routesOf(agent, services), services), playground: site ? createPlaygroundHandler(site, agent.basePath) : undefined },
    ]),
  );
  const scm = createScmWebhooks(
    agents.flatMap((agent) => {
      const mount = mounts.get(agent.slug);
      return mount ? [{ agent, app: mount.app }] : [];
    }),
    services,
  );
  const health = JSON.stringify({ ok: true, agents: agents.length });
  const index = mode === "multi" && options.playground ? agentIndexPage(agents, { docs: docs !== undefined }) : undefined;
  const page: HostRouteHandler = (request, ip, rest, mount) => mount!.playground?.(rest) ?? mount!.app(request, ip);
  const handlers: HostRouteHandlers<HostRouteHandler> = {
    health: mode === "multi" ? () => rawJson(health) : undefined,
    agentIndex:
      index === undefined
        ? undefined
        : (request) => {
            const origin = new URL(request.url).origin;
            return json({ agents: agents.map((agent) => describeAgent(agent, origin)) });
          },
    webIndex: index === undefined ? undefined : () => html(index, AGENT_INDEX_HEADERS),
    docs: docs ? (request, _ip, path) => docs(path, request.url) : undefined,
    scmWebhooks: (request, ip) => scm(request, ip),
    agentPage: site ? page : undefined,
    playground: site ? page : undefined,
  };
  const hostScope = servedHostRoutes("host", mode, handlers);
  const agentScope = servedHostRoutes("agent", mode, handlers);
  const single = mode === "single" ? mounts.get(agents[0]!.slug) : undefined;

  return async (request, ip) => {
    const pathname = pathnameOf(request.url);
    const read = request.method === "GET" || request.method === "HEAD";
    for (const { route, handle } of hostScope) if (route.matches(pathname, read)) return handle(request, ip, pathname, undefined);
    let mount = single;
    let rest = pathname;
    if (!mount) {
      const end = pathname.indexOf("/", 1);
      mount = mounts.get(pathname.slice(1, end === -1 ? undefined : end));
      if (!mount) throw notFound("not_found", "no such route");
      rest = end === -1 ? "" : pathname.slice(end);
    }
    for (const { route, handle } of agentScope) if (route.matches(rest, read)) return handle(request, ip, rest, mount);
    return mount.app(request, ip);
  };
}

// --- internals ---

/** The built-in routes, then the agent's custom channel routes. */
const routesOf = (agent: AgentRuntime, services: HostServices): RouteDefinition[] => [
  ...agentRoutes,
  ...channelRouteDefinitions(agent.project.channels, services.hostPolicies),
];

/**
 * The path of an absolute URL without a full URL parse: this runs on every request. Percent
 * escapes stay encoded, so a slug can only match as written.
 */
function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  let end = url.length;
  for (const mark of ["?", "#"]) {
    const at = url.indexOf(mark, start);
    if (at !== -1 && at < end) end = at;
  }
  return url.slice(start, end);
}
