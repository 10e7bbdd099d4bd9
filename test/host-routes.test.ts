/**
 * The routes reference lists exactly what the router serves: the agent routes of the route table
 * and the host-level routes of the host router's own table, which the router dispatches through.
 * Each host route is requested from a real server in every layout the table names (and is absent
 * in the others); paths outside both tables answer 404.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { routeReference } from "../loader/docs-reference.ts";
import { type HostRouteId, hostRoutes } from "../src/http/host-routes.ts";
import { agentRoutes } from "../src/http/routes/index.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost } from "../src/host/types.ts";
import { helloOptions, project } from "./_harness.ts";

const reference = routeReference(agentRoutes, Object.values(hostRoutes));
const section = (title: string): string[] => {
  const start = reference.indexOf(title);
  const end = reference.indexOf("\n## ", start + 1);
  return reference
    .slice(start, end === -1 ? undefined : end)
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Method") && !line.startsWith("|---"));
};

describe("the routes reference", () => {
  it("has one row per agent route and per host route, and nothing else", () => {
    const agentRows = section("# Routes");
    expect(agentRows).toHaveLength(agentRoutes.length);
    agentRoutes.forEach((route, i) => expect(agentRows[i]).toContain(`| ${route.method} | \`${route.path}\` |`));
    const hostRows = section("## Host-level routes");
    const table = Object.values(hostRoutes);
    expect(hostRows).toHaveLength(table.length);
    table.forEach((route, i) => {
      for (const path of route.paths) expect(hostRows[i]).toContain(`\`${route.scope === "agent" ? `<base>${path}` : path}\``);
      expect(hostRows[i]).toContain(route.summary.slice(0, 40));
    });
    // The ones that once were missing from a hand-kept list.
    for (const path of ["/v1/webhooks/scm", "/v1/chat", "/v1/dev/evals/runs", "/v1/internal/reminders/:reminderId/fire"]) expect(reference).toContain(`\`${path}\``);
  });
});

describe("every host route in the table is served, in the layouts it names", () => {
  const servers: Array<{ host: AgentHost; server: NodeServer }> = [];
  afterAll(async () => {
    for (const { host, server } of servers) {
      await host.close();
      await server.close(true);
    }
  });
  const start = async (mode: "multi" | "single"): Promise<string> => {
    const host = createHost(
      helloOptions({
        mode,
        agents: [{ slug: "hello", project: project(), storage: createMemoryStorage() }],
        playground: { index: "<!doctype html><title>playground</title>", assets: { "app.js": { body: "1", type: "text/javascript" } } },
        docs: { pages: { "": { title: "Docs", html: "<!doctype html><title>docs</title>" } } },
        auth: { oauth: { verifier: () => null, authorizationServers: ["https://auth.example.com"] } },
      }),
    );
    const server = await serveNode(host, { port: 0, silent: true });
    servers.push({ host, server });
    return server.url;
  };
  /** A concrete request path for each documented path pattern. */
  const concrete = (path: string, base: string): string => path.replace("<base>", base).replace(":file", "app.js").replace(":page", "").replace(/\/$/, "").replace("?q=", "?q=docs");

  /** What each route answers, so the check sees the route itself, not any non-404. */
  const answers: Record<HostRouteId, (response: Response, body: string, base: string) => void> = {
    health: (response, body) => expect(JSON.parse(body)).toEqual({ ok: true, agents: 1 }),
    agentIndex: (response, body) => expect((JSON.parse(body) as { agents: Array<{ slug: string }> }).agents.map((a) => a.slug)).toEqual(["hello"]),
    webIndex: (response, body) => expect(body).toContain("hello"),
    docs: (response, body) => expect(body).toContain("<title>docs</title>"),
    // Answered by the webhook route, which takes POST only.
    scmWebhooks: (response) => expect(response.status).toBe(405),
    agentPage: (response, _body, base) => expect([response.status, response.headers.get("location")]).toEqual([302, `${base}/playground`]),
    playground: (response, body) => expect(body).toContain("<title>playground</title>"),
    oauthProtectedResource: (response, body) => expect(JSON.parse(body)).toMatchObject({ authorization_servers: ["https://auth.example.com"] }),
  };

  for (const mode of ["multi", "single"] as const) {
    it(`${mode} mode`, async () => {
      const url = await start(mode);
      const base = mode === "multi" ? "/hello" : "";
      for (const id of Object.keys(hostRoutes) as HostRouteId[]) {
        const route = hostRoutes[id];
        if (!(route.modes as readonly string[]).includes(mode)) continue;
        const path = concrete(route.paths[0]!, base);
        const full = route.scope === "agent" ? `${base}${path}` || "/" : path;
        const response = await fetch(`${url}${full}`, { redirect: "manual" });
        const body = await response.text();
        expect({ id, status: response.status }).not.toEqual({ id, status: 404 });
        answers[id](response, body, base);
      }
      // Nothing the tables do not name: an unknown top-level path is 404.
      expect((await fetch(`${url}/favicon.ico`)).status).toBe(404);
      expect((await fetch(`${url}/v1/nothing-here`)).status).toBe(404);
    });
  }
});
