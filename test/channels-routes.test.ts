/**
 * Custom channel routes (docs/guide/channels.md "Routes"): mounting, schema validation
 * before the handler, return values, the handler context, send/waitForCompletion and /v1/info.
 */
import * as v from "valibot";
import { z } from "zod";
import { expect, test } from "vitest";
import { DELETE, GET, PATCH, POST, PUT, defineChannel } from "../src/entries/channels.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { type HostUnderTest, describeHost, helloOptions, postJson, project } from "./_harness.ts";

const seen: Array<{ rawBody: string; body: unknown; requestText: string }> = [];

const tickets = defineChannel({
  state: { stage: "new", notes: 0 },
  routes: [
    POST("/tickets", {
      description: "Open a ticket and wait for the agent's reply",
      bodySchema: v.object({ title: v.pipe(v.string(), v.minLength(1)), priority: v.optional(v.picklist(["low", "high"]), "low") }),
      handler: async (_request, { body, send }) => {
        const session = await send(body.title, { continuationToken: `ticket:${body.title}`, state: { stage: body.priority }, title: body.title });
        const done = await session.waitForCompletion({ timeoutMs: 5000 });
        return { sessionId: session.sessionId, continuationToken: session.continuationToken, traceUrl: session.traceUrl, ...done };
      },
    }),
    POST("/echo", {
      bodySchema: v.object({ note: v.optional(v.string()) }),
      handler: async (request, { body, rawBody }) => {
        seen.push({ rawBody, body, requestText: await request.text() });
        return undefined;
      },
    }),
    GET("/tickets/:id", {
      querySchema: z.object({ verbose: z.enum(["yes", "no"]).optional() }),
      handler: async (_request, { params, query, getSession }) => {
        const session = await getSession(params.id ?? "");
        if (!session) return new Response(JSON.stringify({ ok: false, error: "ticket_not_found" }), { status: 404 });
        return { id: session.id, state: session.state, status: session.status, verbose: query.verbose ?? "no" };
      },
    }),
    PUT("/tickets/:id", { bodySchema: v.object({ stage: v.string() }), handler: (_r, { params, body }) => ({ put: params.id, stage: body.stage }) }),
    PATCH("/tickets/:id", { bodySchema: v.record(v.string(), v.unknown()), handler: (_r, { body }) => ({ patched: Object.keys(body) }) }),
    DELETE("/tickets/:id", { handler: () => new Response(null, { status: 204 }) }),
  ],
});

function options() {
  return helloOptions({
    agents: [{ slug: "hello", project: project({ channels: { tickets } }), storage: createMemoryStorage() }],
  });
}

const base = "/hello/v1/channels/tickets";

async function sessionCount(target: HostUnderTest): Promise<number> {
  const response = await target.fetch("/hello/v1/sessions");
  return ((await response.json()) as { sessions: unknown[] }).sessions.length;
}

describeHost("channel routes", options, (get) => {
  test("a POST handler sends, waits for the turn and returns JSON; getSession reads the merged state", async () => {
    const response = await get().fetch(`${base}/tickets`, postJson({ title: "printer jam", priority: "high" }));
    expect(response.status).toBe(200);
    const reply = (await response.json()) as Record<string, string>;
    expect(reply).toMatchObject({ status: "finished", result: "echo: printer jam", continuationToken: "ticket:printer jam" });
    expect(reply.traceUrl).toMatch(new RegExp(`/hello/v1/session/${reply.sessionId}/events$`));
    const read = await get().fetch(`${base}/tickets/${reply.sessionId}?verbose=yes`);
    expect(await read.json()).toEqual({ id: reply.sessionId, state: { stage: "high", notes: 0 }, status: "idle", verbose: "yes" });
    // The same continuation token reaches the same session.
    const again = await get().fetch(`${base}/tickets`, postJson({ title: "printer jam" }));
    expect(((await again.json()) as Record<string, string>).sessionId).toBe(reply.sessionId);
    const summary = ((await (await get().fetch("/hello/v1/sessions")).json()) as { sessions: Array<{ channel: string }> }).sessions;
    expect(summary.map((s) => s.channel)).toEqual(["tickets"]);
    // A follow-up over the session routes works, and keeps the channel's key: the channel still reaches the session.
    const followUp = await get().fetch(`/hello/v1/session/${reply.sessionId}`, postJson({ continuationToken: "ticket:printer jam", message: "over http" }));
    expect(await followUp.json()).toEqual({ ok: true, sessionId: reply.sessionId, continuationToken: "ticket:printer jam" });
    const third = await get().fetch(`${base}/tickets`, postJson({ title: "printer jam" }));
    expect(((await third.json()) as Record<string, string>).sessionId).toBe(reply.sessionId);
  });

  test("schema violations are 400 invalid_request with issues, before the handler; nothing changes", async () => {
    for (const body of [{ title: "" }, { title: 3 }, { title: "x", priority: "urgent" }]) {
      const response = await get().fetch(`${base}/tickets`, postJson(body));
      expect(response.status).toBe(400);
      const error = (await response.json()) as { ok: boolean; error: string; issues: Array<{ path: string; message: string }> };
      expect(error).toMatchObject({ ok: false, error: "invalid_request" });
      expect(error.issues.length).toBeGreaterThan(0);
    }
    const notJson = await get().fetch(`${base}/tickets`, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ ok: false, error: "invalid_request" });
    const badQuery = await get().fetch(`${base}/tickets/ses_x?verbose=maybe`);
    expect(badQuery.status).toBe(400);
    expect(await badQuery.json()).toMatchObject({ ok: false, error: "invalid_request", issues: [{ path: "verbose" }] });
    expect(await sessionCount(get())).toBe(0);
  });

  test("an empty POST body is validated as {}; the raw body is kept and the request body can be read again", async () => {
    seen.length = 0;
    const empty = await get().fetch(`${base}/echo`, { method: "POST" });
    expect(empty.status).toBe(202);
    expect(await empty.text()).toBe("");
    const text = '{ "note" :  "spaced"}';
    const sent = await get().fetch(`${base}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: text });
    expect(sent.status).toBe(202);
    expect(seen).toEqual([
      { rawBody: "", body: {}, requestText: "" },
      { rawBody: text, body: { note: "spaced" }, requestText: text },
    ]);
  });

  test("PUT, PATCH and DELETE routes; a Response is sent as is; other methods are 405; unknown paths 404", async () => {
    const put = await get().fetch(`${base}/tickets/t1`, { ...postJson({ stage: "done" }), method: "PUT" });
    expect(await put.json()).toEqual({ put: "t1", stage: "done" });
    const patch = await get().fetch(`${base}/tickets/t1`, { ...postJson({ a: 1, b: 2 }), method: "PATCH" });
    expect(await patch.json()).toEqual({ patched: ["a", "b"] });
    const del = await get().fetch(`${base}/tickets/t1`, { method: "DELETE" });
    expect(del.status).toBe(204);
    const missing = await get().fetch(`${base}/tickets/ses_unknown`);
    expect(missing.status).toBe(404);
    const wrong = await get().fetch(`${base}/echo`, { method: "GET" });
    expect(wrong.status).toBe(405);
    expect(await wrong.json()).toMatchObject({ ok: false, error: "method_not_allowed" });
    const unknown = await get().fetch(`${base}/nowhere`, postJson({}));
    expect(unknown.status).toBe(404);
  });

  test("/v1/info lists the channel, its routes and their schemas as JSON Schema", async () => {
    const info = (await (await get().fetch("/hello/v1/info")).json()) as { channels: Array<Record<string, unknown>> };
    const channel = info.channels.find((c) => c.id === "tickets") as { routes: Array<Record<string, unknown>>; events: string[] };
    expect(channel.routes.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /hello/v1/channels/tickets/tickets",
      "POST /hello/v1/channels/tickets/echo",
      "GET /hello/v1/channels/tickets/tickets/:id",
      "PUT /hello/v1/channels/tickets/tickets/:id",
      "PATCH /hello/v1/channels/tickets/tickets/:id",
      "DELETE /hello/v1/channels/tickets/tickets/:id",
    ]);
    expect(channel.routes[0]).toMatchObject({
      description: "Open a ticket and wait for the agent's reply",
      bodySchema: { type: "object", properties: { title: { type: "string", minLength: 1 }, priority: { enum: ["low", "high"] } }, required: ["title"] },
    });
    expect(channel.routes[2]?.querySchema).toMatchObject({ type: "object", properties: { verbose: { enum: ["yes", "no"] } } });
    // The built-in routes come from the same table, with their declared schemas.
    const http = info.channels[0] as { id: string; routes: Array<Record<string, unknown>> };
    expect(http.id).toBe("http");
    const create = http.routes.find((r) => r.method === "POST" && r.path === "/hello/v1/session");
    expect(create?.bodySchema).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
  });
});

test("single mode mounts channel routes at /v1/channels/<id>", async () => {
  const { createHost } = await import("../src/host/host.ts");
  const host = createHost({ ...options(), mode: "single" });
  try {
    const response = await host.request("/v1/channels/tickets/echo", { method: "POST" });
    expect(response.status).toBe(202);
  } finally {
    await host.close();
  }
});

test("each agent of a multi-agent host mounts its own channels under its slug", async () => {
  const { createHost } = await import("../src/host/host.ts");
  const { serveNode } = await import("../adapters/node.ts");
  const named = (name: string) =>
    defineChannel({ routes: [POST("/who", { bodySchema: v.object({}), handler: async (_request, { send }) => ({ agent: name, sessionId: (await send(`hi from ${name}`)).sessionId }) })] });
  const host = createHost({
    ...helloOptions(),
    agents: [
      { slug: "alpha", project: project({ name: "Alpha", channels: { desk: named("alpha") } }), storage: createMemoryStorage() },
      { slug: "beta", project: project({ name: "Beta", channels: { desk: named("beta"), extra: named("beta-extra") } }), storage: createMemoryStorage() },
    ],
  });
  const server = await serveNode(host, { port: 0, silent: true });
  try {
    const call = async (path: string) => {
      const response = await fetch(`${server.url}${path}`, postJson({}));
      return { status: response.status, body: (await response.json()) as Record<string, string> };
    };
    const alpha = await call("/alpha/v1/channels/desk/who");
    const beta = await call("/beta/v1/channels/desk/who");
    expect([alpha.body.agent, beta.body.agent]).toEqual(["alpha", "beta"]);
    expect((await call("/alpha/v1/channels/extra/who")).status).toBe(404);
    expect((await call("/beta/v1/channels/extra/who")).body.agent).toBe("beta-extra");
    // Sessions live with their agent.
    expect((await fetch(`${server.url}/alpha/v1/session/${beta.body.sessionId}/events`)).status).toBe(404);
    expect((await fetch(`${server.url}/beta/v1/session/${beta.body.sessionId}/events`)).status).toBe(200);
  } finally {
    await host.close();
    await server.close(true);
  }
});
