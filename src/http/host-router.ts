/**
 * The host's top-level dispatch: host routes plus one agent app per slug (multi mode), or the
 * single agent at the root (single mode), as docs/guide/http-api.md "Route layout" lays out.
 * @module
 */
import type { AgentRuntime } from "../agent-runtime.ts";
import { notFound } from "../errors.ts";
import type { DocsSite, PlaygroundSite } from "../types.ts";
import { type AgentApp, createAgentApp } from "./agent-app.ts";
import { AGENT_INDEX_HEADERS, agentIndexPage, describeAgent } from "./agent-index.ts";
import { createDocsHandler, isDocsPath } from "./docs-site.ts";
import { type PlaygroundHandler, createPlaygroundHandler } from "./playground-site.ts";
import { html, json, rawJson } from "./responses.ts";
import type { HostServices, RouteDefinition } from "./route.ts";
import { agentRoutes } from "./routes/index.ts";
import { SCM_WEBHOOKS_PATH, createScmWebhooks } from "./scm-webhooks.ts";
import { channelRouteDefinitions } from "../channels/routes.ts";

export type HostHandler = (request: Request, ip: string | undefined) => Promise<Response>;

export interface HostHandlerOptions {
  mode: "multi" | "single";
  /** false removes the index routes and the SPA; true keeps the index routes only (no files). */
  playground: boolean | PlaygroundSite;
  docs?: false | DocsSite;
}

export function createHostHandler(agents: readonly AgentRuntime[], services: HostServices, options: HostHandlerOptions): HostHandler {
  const docs = options.docs ? createDocsHandler(options.docs) : undefined;
  const site = typeof options.playground === "object" ? options.playground : undefined;
  const playgroundOf = (agent: AgentRuntime) => (site ? createPlaygroundHandler(site, agent.basePath) : undefined);

  if (options.mode === "single") {
    const [agent] = agents;
    if (!agent || agents.length > 1) throw new Error("[agent-serve] [host] single mode serves exactly one agent");
    const app = createAgentApp(agent, routesOf(agent, services), services);
    const playground = playgroundOf(agent);
    const scm = createScmWebhooks([{ agent, app }], services);
    if (!docs && !playground) return (request, ip) => (pathnameOf(request.url) === SCM_WEBHOOKS_PATH ? scm(request, ip) : app(request, ip));
    return async (request, ip) => {
      if (pathnameOf(request.url) === SCM_WEBHOOKS_PATH) return scm(request, ip);
      if (request.method === "GET" || request.method === "HEAD") {
        const pathname = pathnameOf(request.url);
        if (docs && isDocsPath(pathname)) return docs(pathname, request.url);
        const page = playground?.(pathname);
        if (page) return page;
      }
      return app(request, ip);
    };
  }

  const mounts = new Map<string, { app: AgentApp; playground: PlaygroundHandler | undefined }>(
    agents.map((agent) => [agent.slug, { app: createAgentApp(agent, routesOf(agent, services), services), playground: playgroundOf(agent) }]),
  );
  const scm = createScmWebhooks(
    agents.flatMap((agent) => {
      const mount = mounts.get(agent.slug);
      return mount ? [{ agent, app: mount.app }] : [];
    }),
    services,
  );
  const health = JSON.stringify({ ok: true, agents: agents.length });
  const index = options.playground ? agentIndexPage(agents, { docs: docs !== undefined }) : undefined;
  return async (request, ip) => {
    const pathname = pathnameOf(request.url);
    const read = request.method === "GET" || request.method === "HEAD";
    if (read) {
      if (pathname === "/v1/health") return rawJson(health);
      if (index !== undefined && pathname === "/v1/agents") {
        const origin = new URL(request.url).origin;
        return json({ agents: agents.map((agent) => describeAgent(agent, origin)) });
      }
      if (index !== undefined && pathname === "/") return html(index, AGENT_INDEX_HEADERS);
      if (docs && isDocsPath(pathname)) return docs(pathname, request.url);
    }
    if (pathname === SCM_WEBHOOKS_PATH) return scm(request, ip);
    const end = pathname.indexOf("/", 1);
    const slug = pathname.slice(1, end === -1 ? undefined : end);
    const mount = mounts.get(slug);
    if (!mount) throw notFound("not_found", "no such route");
    if (read && mount.playground) {
      const page = mount.playground(end === -1 ? "" : pathname.slice(end));
      if (page) return page;
    }
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
