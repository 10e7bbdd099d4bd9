/**
 * The host's one dispatcher: the host-scope routes, then the agent whose base the path is under
 * (one per slug in multi mode, the single agent at the root in single mode), its agent-scope host
 * routes, then its route table (docs/guide/http-api.md "Route layout", docs/design/routing.md). Every
 * table is matched by the same router and run by the same ../run-route.ts.
 * @module
 */
import type { AgentRuntime } from "../agent.ts";
import { notFound } from "../../base/errors.ts";
import type { DocsSite, PlaygroundSite } from "../site-types.ts";
import { type AgentApp, createAgentApp } from "../agent-app.ts";
import { AGENT_INDEX_HEADERS, agentIndexPage, describeAgent } from "../agent-index.ts";
import { createDocsHandler } from "../docs-site.ts";
import { type HostRouteContext, type HostRouteHandlers, type ServedHostRoute, servedHostRoutes } from "../host-routes.ts";
import { type PlaygroundHandler, createPlaygroundHandler } from "../playground-site.ts";
import { html, json, rawJson } from "../../base/responses.ts";
import type { HostServices, RouteDefinition } from "../route.ts";
import { type Router, createRouter } from "../router.ts";
import { runRoute } from "../run-route.ts";
import { METADATA_PREFIX, isMcpResource, resourceMetadata } from "../oauth-resource.ts";
import type { ProtectedResource } from "../../base/auth.ts";
import { agentRoutes } from "../routes/index.ts";
import { createScmWebhooks } from "../scm-webhooks.ts";
import { channelRouteDefinitions } from "../../features/channels/routes.ts";

export type HostHandler = (request: Request, ip: string | undefined) => Promise<Response>;

export interface HostHandlerOptions {
  mode: "multi" | "single";
  /** false removes the index routes and the SPA; true keeps the index routes only (no files). */
  playground: boolean | PlaygroundSite;
  docs?: false | DocsSite;
}

interface Mount {
  agent: AgentRuntime;
  app: AgentApp;
  playground: PlaygroundHandler | undefined;
}

/**
 * Dispatches through the host route table (../host-routes.ts), then to the agent apps: a route
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
      { agent, app: createAgentApp(agent, routesOf(agent, services), services), playground: site ? createPlaygroundHandler(site, agent.basePath) : undefined },
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
  const page = ({ path, agent }: HostRouteContext): Response => {
    // Agent-scope routes run with their agent, and these only where the playground is served.
    const answer = agent === undefined ? undefined : mounts.get(agent.slug)?.playground?.(path);
    if (!answer) throw notFound("not_found", "no such route");
    return answer;
  };
  const handlers: HostRouteHandlers = {
    health: mode === "multi" ? () => rawJson(health) : undefined,
    agentIndex: index === undefined ? undefined : ({ url }) => json({ agents: agents.map((agent) => describeAgent(agent, url.origin)) }),
    webIndex: index === undefined ? undefined : () => html(index, AGENT_INDEX_HEADERS),
    docs: docs ? ({ request, path }) => docs(path, request.url) : undefined,
    scmWebhooks: ({ request, ip }) => scm(request, ip),
    oauthProtectedResource: services.oauth ? oauthMetadataHandler(services.oauth, mode, mounts) : undefined,
    agentPage: site ? page : undefined,
    playground: site ? page : undefined,
  };
  const hostScope = createRouter(servedHostRoutes("host", mode, handlers), { strict: true });
  const agentScope = createRouter(servedHostRoutes("agent", mode, handlers), { strict: true });
  const single = mode === "single" ? mounts.get(agents[0]!.slug) : undefined;
  const serve = (table: Router<ServedHostRoute>, request: Request, ip: string | undefined, path: string, agent: AgentRuntime | undefined): Promise<Response> | undefined => {
    // A method the route does not take falls through: host routes answer no 405 of their own.
    const found = table.match(request.method, path);
    if (!found?.route) return undefined;
    return runRoute(found.route, { request, ip, params: found.params, policies: services.hostPolicies }, (call) => Object.assign(call, { path, agent }));
  };

  return async (request, ip) => {
    const pathname = pathnameOf(request.url);
    const hostAnswer = serve(hostScope, request, ip, pathname, undefined);
    if (hostAnswer) return hostAnswer;
    let mount = single;
    let rest = pathname;
    if (!mount) {
      const end = pathname.indexOf("/", 1);
      mount = mounts.get(pathname.slice(1, end === -1 ? undefined : end));
      if (!mount) throw notFound("not_found", "no such route");
      rest = end === -1 ? "" : pathname.slice(end);
    }
    // The agent's base with and without its slash are one path to its host routes (`/`).
    return serve(agentScope, request, ip, rest === "" ? "/" : rest, mount.agent) ?? mount.app(request, ip);
  };
}

// --- internals ---

/** The metadata of `<base>/v1/mcp` and `<base>/v1/mcp/tools` for a mounted agent; 404 for any other path. */
function oauthMetadataHandler(oauth: ProtectedResource, mode: "multi" | "single", mounts: ReadonlyMap<string, Mount>): (context: HostRouteContext) => Response {
  return ({ path, url }) => {
    const resource = path.slice(METADATA_PREFIX.length);
    const slash = resource.indexOf("/", 1);
    const mounted = mode === "single" || (slash > 0 && mounts.has(resource.slice(1, slash)));
    const below = mode === "single" ? resource : resource.slice(slash);
    if (!mounted || !isMcpResource(below)) throw notFound("not_found", "no protected resource at that path");
    return json(resourceMetadata(url.origin, resource.replace(/\/+$/, ""), oauth));
  };
}

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
