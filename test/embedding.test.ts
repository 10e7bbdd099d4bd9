/**
 * The embedding examples of docs/guide/embedding.md run for real: the Hono app mounting the host
 * under a prefix, served by srvx on a loopback port, and the plain `node:http` server through
 * srvx's `toNodeHandler`.
 */
import type { AddressInfo } from "node:net";
import { serve } from "srvx/node";
import { afterEach, describe, expect, test } from "vitest";
import { createApp } from "../examples/embedding/hono-app.ts";
import { createNodeServer } from "../examples/embedding/node-http.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { helloOptions, postJson, readEvents } from "./_harness.ts";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function startHost(): AgentHost {
  const host = createHost(helloOptions());
  cleanups.push(() => host.close());
  return host;
}

/** One turn over HTTP under `base`; resolves with the reply. */
async function reply(base: string, message: string): Promise<unknown> {
  const created = await fetch(`${base}/v1/session`, postJson({ message }));
  expect(created.status).toBe(200);
  const { sessionId } = (await created.json()) as { sessionId: string };
  const events = await readEvents(await fetch(`${base}/v1/session/${sessionId}/stream`), (event) => event.type === "session.waiting");
  return events.filter((event) => event.type === "message.completed").at(-1)?.data.text;
}

describe("a Hono app mounting host.fetch under /agents", () => {
  test("keeps its own routes and serves the agent under the prefix, over a real port", async () => {
    const app = createApp(startHost());
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1", silent: true, gracefulShutdown: false });
    await server.ready();
    cleanups.push(() => server.close(true));
    const url = server.url!.replace(/\/$/, "");
    expect(await (await fetch(`${url}/`)).text()).toBe("my app");
    expect((await fetch(`${url}/agents/hello/v1/health`)).status).toBe(200);
    // The session routes need the loopback peer: it came through Hono to the host.
    expect((await fetch(`${url}/agents/hello/v1/sessions`)).status).toBe(200);
    expect(await reply(`${url}/agents/hello`, "/reply mounted")).toBe("mounted");
    // Outside the prefix the host is not reached.
    expect((await fetch(`${url}/hello/v1/health`)).status).toBe(404);
  });

  test("answers in-process through app.request, without a peer address (so not as loopback)", async () => {
    const app = createApp(startHost());
    expect((await app.request("/agents/hello/v1/health")).status).toBe(200);
    expect((await app.request("/agents/hello/v1/sessions")).status).toBe(401);
  });
});

describe("a node:http server handing paths to the host through srvx", () => {
  test("answers its own route and serves the agent on the rest", async () => {
    const server = createNodeServer(startHost());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    cleanups.push(async () => server.closeAllConnections());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await (await fetch(`${url}/healthz`)).text()).toBe("ok");
    expect((await fetch(`${url}/hello/v1/sessions`)).status).toBe(200);
    expect(await reply(`${url}/hello`, "/reply through node:http")).toBe("through node:http");
  });
});
