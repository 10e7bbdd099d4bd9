/**
 * An existing Hono app that mounts the agent host under `/agents`: the app keeps its own routes,
 * and `/agents/<slug>/v1/...` reaches the host as `/<slug>/v1/...`. Serve it with srvx (or any
 * runtime's `fetch` server); see docs/guide/embedding.md.
 */
import { Hono } from "hono";
import { mount } from "hono/mount";
import type { AgentHost, RequestContext } from "agent-serve";

export function createApp(host: AgentHost): Hono {
  const app = new Hono();
  app.get("/", (c) => c.text("my app"));
  // `mount` strips the prefix; the second argument of `host.fetch` carries the TCP peer that srvx
  // put on the request, which the host's default loopback-only policy judges.
  app.all(
    "/agents/*",
    mount(host.fetch, (c): [RequestContext] => [{ ip: (c.req.raw as Request & { ip?: string }).ip }]),
  );
  return app;
}
