/**
 * The host's top-level dispatch: host routes plus one agent app per slug (multi mode), or the
 * single agent at the root (single mode), as SPEC "Route layout" lays out.
 * @module
 */
import type { AgentRuntime } from "../agent-runtime.ts";
import { notFound } from "../errors.ts";
import type { DocsSite } from "../types.ts";
import { type AgentApp, createAgentApp } from "./agent-app.ts";
import { createDocsHandler, isDocsPath } from "./docs-site.ts";
import { html, json, rawJson } from "./responses.ts";
import type { HostServices } from "./route.ts";
import { agentRoutes } from "./routes/index.ts";

export type HostHandler = (request: Request, ip: string | undefined) => Promise<Response>;

export function createHostHandler(
  agents: readonly AgentRuntime[],
  services: HostServices,
  options: { mode: "multi" | "single"; playground: boolean; docs?: false | DocsSite },
): HostHandler {
  const docs = options.docs ? createDocsHandler(options.docs) : undefined;
  if (options.mode === "single") {
    const [agent] = agents;
    if (!agent || agents.length > 1) throw new Error("[agent-serve] [host] single mode serves exactly one agent");
    const app = createAgentApp(agent, agentRoutes, services);
    if (!docs) return (request, ip) => app(request, ip);
    return async (request, ip) => {
      if (request.method === "GET" || request.method === "HEAD") {
        const pathname = pathnameOf(request.url);
        if (isDocsPath(pathname)) return docs(pathname);
      }
      return app(request, ip);
    };
  }

  const apps = new Map<string, AgentApp>(agents.map((agent) => [agent.slug, createAgentApp(agent, agentRoutes, services)]));
  const health = JSON.stringify({ ok: true, agents: agents.length });
  return async (request, ip) => {
    const pathname = pathnameOf(request.url);
    if (request.method === "GET" || request.method === "HEAD") {
      if (pathname === "/v1/health") return rawJson(health);
      if (options.playground && pathname === "/v1/agents") return json({ agents: agents.map((agent) => describe(agent, request)) });
      if (options.playground && pathname === "/") return html(indexPage(agents));
      if (docs && isDocsPath(pathname)) return docs(pathname);
    }
    const end = pathname.indexOf("/", 1);
    const slug = pathname.slice(1, end === -1 ? undefined : end);
    const app = apps.get(slug);
    if (!app) throw notFound("not_found", "no such route");
    return app(request, ip);
  };
}

// --- internals ---

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

function describe(agent: AgentRuntime, request: Request) {
  const origin = new URL(request.url).origin;
  return {
    slug: agent.slug,
    name: agent.project.name,
    description: agent.project.description ?? null,
    basePath: agent.basePath,
    playgroundUrl: `${origin}${agent.basePath}/playground`,
  };
}

function indexPage(agents: readonly AgentRuntime[]): string {
  const items = agents
    .map((agent) => `<li><a href="${escapeHtml(agent.basePath)}/playground">${escapeHtml(agent.project.name)}</a> <code>${escapeHtml(agent.basePath)}</code></li>`)
    .join("\n");
  return `<!doctype html><html><head><meta charset="utf-8"><title>agent-serve</title></head><body><h1>Agents</h1><ul>${items}</ul></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
