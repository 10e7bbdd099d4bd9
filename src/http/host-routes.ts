/**
 * The routes the host router answers itself, above the agents' route tables: one table that both
 * the router dispatches through (./host-router.ts) and the docs' route reference lists, so a host
 * route cannot be served without being documented, nor documented without being served.
 * @module
 */
import { createError } from "../base/errors.ts";
import { isDocsPath } from "./docs-site.ts";
import { SCM_WEBHOOKS_PATH } from "./scm-webhooks.ts";

export interface HostRoute {
  /** As the reference shows it; GET routes answer HEAD too. */
  method: "GET" | "POST";
  /**
   * `host`: matched against the whole path, before any agent. `agent`: matched against the path
   * below an agent's base (`/<slug>` in multi mode, the root in single mode), before its routes.
   */
  scope: "host" | "agent";
  /** The paths as the reference shows them (agent scope: below `<base>`). */
  paths: readonly string[];
  summary: string;
  /** Route layouts that serve it. */
  modes: ReadonlyArray<"multi" | "single">;
  /** What turns it off, as the reference says. */
  absentWith?: string;
  /** Whether this route takes the request; `path` is in the route's scope. */
  matches(path: string, read: boolean): boolean;
}

/** Every host-level route, in matching order within its scope. */
export const hostRoutes = {
  health: {
    method: "GET",
    scope: "host",
    paths: ["/v1/health"],
    summary: "Host liveness: {ok, agents}. (Single mode: the agent's own `/v1/health` route.)",
    modes: ["multi"],
    matches: (path, read) => read && path === "/v1/health",
  },
  agentIndex: {
    method: "GET",
    scope: "host",
    paths: ["/v1/agents"],
    summary: "JSON index of the mounted agents: slug, name, description, URLs.",
    modes: ["multi"],
    absentWith: "--no-playground",
    matches: (path, read) => read && path === "/v1/agents",
  },
  webIndex: {
    method: "GET",
    scope: "host",
    paths: ["/"],
    summary: "Web index of the mounted agents, each linking to its playground.",
    modes: ["multi"],
    absentWith: "--no-playground",
    matches: (path, read) => read && path === "/",
  },
  docs: {
    method: "GET",
    scope: "host",
    paths: ["/docs", "/docs/:page", "/docs/search?q="],
    summary: "This documentation site and its search.",
    modes: ["multi", "single"],
    absentWith: "--no-docs",
    matches: (path, read) => read && isDocsPath(path),
  },
  scmWebhooks: {
    method: "POST",
    scope: "host",
    paths: [SCM_WEBHOOKS_PATH],
    summary:
      "One webhook URL for every GitHub channel pack of every agent: the delivery goes to the channel whose secret verifies it (405 for other methods).",
    modes: ["multi", "single"],
    matches: (path) => path === SCM_WEBHOOKS_PATH,
  },
  agentPage: {
    method: "GET",
    scope: "agent",
    paths: [""],
    summary: "The agent's own URL (the one the start-up banner prints): redirects to its playground.",
    modes: ["multi", "single"],
    absentWith: "--no-playground",
    matches: (path, read) => read && (path === "" || path === "/"),
  },
  playground: {
    method: "GET",
    scope: "agent",
    paths: ["/playground", "/playground/assets/:file"],
    summary: "The agent's playground page and its files.",
    modes: ["multi", "single"],
    absentWith: "--no-playground",
    matches: (path, read) => read && (path === "/playground" || path.startsWith("/playground/")),
  },
} as const satisfies Record<string, HostRoute>;

export type HostRouteId = keyof typeof hostRoutes;

/** A handler per host route; `undefined` where this host does not serve it (mode, flags). */
export type HostRouteHandlers<H> = { readonly [K in HostRouteId]: H | undefined };

/**
 * The routes of one scope this host serves, in matching order, each with its handler. A handler
 * for a layout the table does not list throws: the reference would say the route is absent.
 */
export function servedHostRoutes<H>(
  scope: HostRoute["scope"],
  mode: "multi" | "single",
  handlers: HostRouteHandlers<H>,
): Array<{ id: HostRouteId; route: HostRoute; handle: H }> {
  const served: Array<{ id: HostRouteId; route: HostRoute; handle: H }> = [];
  for (const id of Object.keys(hostRoutes) as HostRouteId[]) {
    const route: HostRoute = hostRoutes[id];
    const handle = handlers[id];
    if (route.scope !== scope || handle === undefined) continue;
    if (!route.modes.includes(mode)) throw createError("host", `the host route ${id} is not documented for ${mode} mode`);
    served.push({ id, route, handle });
  }
  return served;
}
