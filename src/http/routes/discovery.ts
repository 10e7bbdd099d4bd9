/**
 * Discovery and meta routes (docs/design/mcp-and-discovery.md "Discovery and meta"): the
 * project-info object, the bootstrap data the playground reads before it authenticates, and recent
 * server log lines.
 * @module
 */
import type { AgentMeta, LogsPage } from "../response-types.ts";
import { projectInfo } from "../../features/discovery/project-info.ts";
import { badRequest } from "../../base/errors.ts";
import { EVENT_FORMAT_VERSION } from "../../base/events/vocabulary.ts";
import { json } from "../../base/responses.ts";
import { assertLogReader } from "../log-reader.ts";
import { type RouteDefinition, defineRoute } from "../route.ts";

/**
 * `GET /v1/info`. Takes the route table lazily because it lists itself: the table is built from
 * this route, so it cannot be imported here without a cycle.
 */
export function infoRoute(routes: () => readonly RouteDefinition[]): RouteDefinition {
  return defineRoute({
    method: "GET",
    path: "/v1/info",
    auth: "agent",
    summary: "Project info: model, tools with schemas, channels and routes, hooks, artifacts, diagnostics, agent version",
    async handler({ agent }) {
      const info = projectInfo(agent, routes());
      const agentVersion = await agent.agentVersion;
      return json(agentVersion === undefined ? info : { ...info, agentVersion });
    },
  });
}

export const meta = defineRoute({
  method: "GET",
  path: "/v1/meta",
  auth: "none",
  summary: "Bootstrap data: agent name, slug, dev flag, base path, version, event format version",
  handler: ({ agent, host }) =>
    json({ name: agent.project.name, slug: agent.slug, dev: host.dev, basePath: agent.basePath, version: host.version, eventFormat: EVENT_FORMAT_VERSION } satisfies AgentMeta),
});

export const logs = defineRoute({
  method: "GET",
  path: "/v1/logs",
  auth: "agent",
  summary: "Recent server log lines after a cursor (poll with ?after=<next>)",
  handler({ url, host, auth, wide }) {
    assertLogReader({ auth, wide });
    const raw = url.searchParams.get("after");
    if (raw !== null && !/^\d{1,15}$/.test(raw)) throw badRequest("after must be a non-negative integer");
    const after = raw === null ? 0 : Number(raw);
    const all = host.logs.lines(0);
    const newest = all.at(-1)?.seq ?? 0;
    // A cursor past the newest line was issued by an earlier process (sequence numbers restart
    // with the host), so the caller gets everything the buffer holds rather than silence.
    const lines = after > newest ? all : all.filter((line) => line.seq > after);
    return json({ lines, next: lines.at(-1)?.seq ?? Math.min(after, newest) } satisfies LogsPage);
  },
});
