/**
 * `POST /v1/mcp` and `POST /v1/mcp/tools` through the MCP SDK's own client over a real loopback
 * server: ask, check and call_tool, the per-tool endpoint, auth and the 405s.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as v from "valibot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import type { AuthPolicy } from "../src/base/auth.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import { allEvents, project, quietLogger } from "./_harness.ts";

const greet = defineTool({
  description: "Greets someone by name",
  inputSchema: v.object({ name: v.pipe(v.string(), v.minLength(1)) }),
  execute: ({ name }) => ({ greeting: `hello ${name}` }),
});
const boom = defineTool({
  description: "Always fails",
  execute: () => {
    throw new Error("kaboom");
  },
});
const shout = defineTool({ description: "Runs where the agent runs", execution: "agent", script: "echo HI" });

/** `x-user` names the principal, so two callers can be told apart over loopback. */
const byHeader: AuthPolicy = (request) => {
  const user = request.headers.get("x-user");
  return user ? { authenticator: "test", principalId: user, principalType: "user" } : null;
};

function options(overrides: Partial<AgentHostOptions> = {}): AgentHostOptions {
  return {
    agents: [
      { slug: "hello", project: project({ tools: { greet, boom, shout } }), storage: createMemoryStorage() },
      { slug: "plain", project: project({ name: "Plain" }), storage: createMemoryStorage() },
    ],
    logger: quietLogger,
    drainTimeoutMs: 50,
    ...overrides,
  };
}

interface Running {
  host: AgentHost;
  server: NodeServer;
  clients: Client[];
  connect(path: string, headers?: Record<string, string>): Promise<Client>;
  close(): Promise<void>;
}

async function start(hostOptions: AgentHostOptions): Promise<Running> {
  const host = createHost(hostOptions);
  const server = await serveNode(host, { port: 0, silent: true });
  const clients: Client[] = [];
  return {
    host,
    server,
    clients,
    async connect(path, headers) {
      const client = new Client({ name: "mcp-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), { requestInit: { headers: headers ?? {} } }));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.splice(0).map((client) => client.close()));
      await host.close();
      await server.close(true);
    },
  };
}

type ToolResult = Awaited<ReturnType<Client["callTool"]>>;

/** The structured content, after checking the text part carries the same JSON. */
function structured(result: ToolResult): Record<string, unknown> {
  const content = result.content as Array<{ type: string; text?: string }>;
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe("text");
  expect(JSON.parse(content[0]?.text ?? "null")).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

const ask = (client: Client, args: Record<string, unknown>) => client.callTool({ name: "ask", arguments: args });

describe("POST /v1/mcp", () => {
  let running: Running;
  beforeAll(async () => {
    running = await start(options({ auth: { policies: [byHeader] } }));
  });
  afterAll(() => running.close());
  afterEach(async () => {
    await Promise.all(running.clients.splice(0).map((client) => client.close()));
  });
  const alice = () => running.connect("/hello/v1/mcp", { "x-user": "alice" });

  it("initializes and lists ask, check and call_tool (call_tool only with server tools)", async () => {
    const client = await alice();
    expect(client.getServerVersion()?.name).toBe("Hello");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["ask", "check", "call_tool"]);
    const ask = tools.find((tool) => tool.name === "ask");
    expect(ask?.inputSchema.required).toEqual(["message"]);
    expect(Object.keys(ask?.inputSchema.properties ?? {}).sort()).toEqual(["continuationToken", "message", "sessionId", "waitSeconds"]);
    expect(tools.find((tool) => tool.name === "call_tool")?.description).toContain("boom, greet");

    const plain = await running.connect("/plain/v1/mcp", { "x-user": "alice" });
    expect((await plain.listTools()).tools.map((tool) => tool.name)).toEqual(["ask", "check"]);
  });

  it("ask starts a session, answers, and continues it with the rotated token", async () => {
    const client = await alice();
    const first = structured(await ask(client, { message: "hi there" }));
    expect(first).toMatchObject({ status: "waiting", reply: "echo: hi there" });
    expect(first.sessionId).toMatch(/^ses_/);
    expect(typeof first.continuationToken).toBe("string");

    const second = structured(await ask(client, { message: "again", sessionId: first.sessionId, continuationToken: first.continuationToken }));
    expect(second).toMatchObject({ status: "waiting", reply: "echo: again", sessionId: first.sessionId });
    expect(second.continuationToken).not.toBe(first.continuationToken);

    // The session was recorded on the MCP channel as the caller's principal.
    const [summary] = (await (await running.host.request("/hello/v1/sessions", { headers: { "x-user": "alice" } })).json()).sessions;
    expect(summary).toMatchObject({ sessionId: first.sessionId, channel: "mcp", turnCount: 2 });
  });

  it("ask reports the final reply of a turn that called tools", async () => {
    const client = await alice();
    const result = structured(await ask(client, { message: '/tool greet {"name":"Ada"}\n/reply greeted' }));
    expect(result).toMatchObject({ status: "waiting", reply: "greeted" });
  });

  it("ask errors are tool errors: stale token, unknown session, another principal, bad arguments", async () => {
    const client = await alice();
    const first = structured(await ask(client, { message: "one" }));
    await ask(client, { message: "two", sessionId: first.sessionId, continuationToken: first.continuationToken });

    const stale = await ask(client, { message: "three", sessionId: first.sessionId, continuationToken: first.continuationToken });
    expect(stale.isError).toBe(true);
    expect(structured(stale)).toMatchObject({ ok: false, error: "stale_continuation_token" });

    const unknown = await ask(client, { message: "x", sessionId: "ses_doesnotexist0000000", continuationToken: "t" });
    expect(unknown.isError).toBe(true);
    expect(structured(unknown).error).toBe("session_not_found");

    const bob = await running.connect("/hello/v1/mcp", { "x-user": "bob" });
    const other = await ask(bob, { message: "mine now", sessionId: first.sessionId, continuationToken: "whatever" });
    expect(structured(other)).toMatchObject({ ok: false, error: "forbidden" });
    const peek = await bob.callTool({ name: "check", arguments: { sessionId: first.sessionId } });
    expect(structured(peek)).toMatchObject({ ok: false, error: "forbidden" });

    const missingToken = await ask(client, { message: "x", sessionId: first.sessionId });
    expect(structured(missingToken)).toMatchObject({ ok: false, error: "invalid_request" });
    const badArgs = await ask(client, { message: "" });
    expect(structured(badArgs)).toMatchObject({ ok: false, error: "invalid_request" });
    expect(structured(badArgs).issues).toEqual([expect.objectContaining({ path: "message" })]);
  });

  it("a reply not ready within waitSeconds reports running; check waits for it", async () => {
    const client = await alice();
    // A second turn: what the first one ended with must not count for the one still running.
    const first = structured(await ask(client, { message: "warm up" }));
    const started = Date.now();
    const running = structured(
      await ask(client, {
        message: "/sleep 1500\n/reply rested",
        sessionId: first.sessionId,
        continuationToken: first.continuationToken,
        waitSeconds: 0.3,
      }),
    );
    const askMs = Date.now() - started;
    expect(running).toMatchObject({ status: "running" });
    expect(running).not.toHaveProperty("reply");
    expect(askMs).toBeGreaterThanOrEqual(250);

    const immediate = structured(await client.callTool({ name: "check", arguments: { sessionId: running.sessionId } }));
    expect(immediate.status).toBe("running");

    const settled = structured(await client.callTool({ name: "check", arguments: { sessionId: running.sessionId, waitSeconds: 10 } }));
    expect(settled).toEqual({ status: "waiting", sessionId: running.sessionId, continuationToken: running.continuationToken, reply: "rested" });
  });

  it("check reports a failed turn's error", async () => {
    const client = await alice();
    const failed = structured(await ask(client, { message: "/fail model exploded" }));
    expect(failed).toMatchObject({ status: "waiting", error: "model exploded" });
    expect(failed).not.toHaveProperty("reply");
  });

  it("call_tool runs a server tool and returns the direct-call outcome", async () => {
    const client = await alice();
    const ok = await client.callTool({ name: "call_tool", arguments: { name: "greet", input: { name: "Ada" } } });
    expect(ok.isError).toBeFalsy();
    expect(structured(ok)).toMatchObject({ ok: true, toolName: "greet", isError: false, result: { greeting: "hello Ada" } });
    expect(structured(ok).callId).toMatch(/^tool_greet_/);

    const thrown = await client.callTool({ name: "call_tool", arguments: { name: "boom" } });
    expect(thrown.isError).toBe(true);
    expect(structured(thrown)).toMatchObject({ ok: true, toolName: "boom", isError: true, result: { content: [{ type: "text", text: "kaboom" }] } });

    const missing = structured(await client.callTool({ name: "call_tool", arguments: { name: "nope" } }));
    expect(missing).toMatchObject({ ok: false, error: "tool_not_found", tools: ["boom", "greet", "shout"] });
    const agentTool = structured(await client.callTool({ name: "call_tool", arguments: { name: "shout" } }));
    expect(agentTool.error).toBe("agent_tool_not_callable");
    const invalid = structured(await client.callTool({ name: "call_tool", arguments: { name: "greet", input: { name: "" } } }));
    expect(invalid.error).toBe("invalid_request");
  });

  it("call_tool with sessionId runs inside the session and is recorded on its stream", async () => {
    const client = await alice();
    const session = structured(await ask(client, { message: "hello" }));
    const outcome = structured(
      await client.callTool({ name: "call_tool", arguments: { name: "greet", input: { name: "Bo" }, sessionId: session.sessionId } }),
    );
    expect(outcome).toMatchObject({ ok: true, isError: false });
    const events = await allEvents(
      { kind: "in-process", host: running.host, fetch: (path) => running.host.request(path, { headers: { "x-user": "alice" } }) },
      "/hello",
      String(session.sessionId),
    );
    const result = events.find((event) => event.type === "action.result");
    expect(result?.data).toMatchObject({ toolCallId: outcome.callId, toolName: "greet", output: { greeting: "hello Bo" } });
  });

  it("an unknown MCP tool is a protocol error", async () => {
    const client = await alice();
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/unknown tool/);
  });

  it("GET and DELETE answer 405 with Allow: POST; a POST must accept JSON and SSE", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${running.server.url}/hello/v1/mcp`, { method, headers: { accept: "text/event-stream", "x-user": "alice" } });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      await response.body?.cancel();
    }
    const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    const jsonOnly = await fetch(`${running.server.url}/hello/v1/mcp`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", "x-user": "alice" },
      body: JSON.stringify(listTools),
    });
    expect(jsonOnly.status).toBe(406);
    await jsonOnly.body?.cancel();
    const both = await fetch(`${running.server.url}/hello/v1/mcp`, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json", "x-user": "alice" },
      body: JSON.stringify(listTools),
    });
    expect(both.status).toBe(200);
    expect(both.headers.get("content-type")).toContain("application/json");
    expect((await both.json()).result.tools).toHaveLength(3);
  });

  it("runs the agent's auth chain: no principal, 401", async () => {
    const response = await fetch(`${running.server.url}/hello/v1/mcp`, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(401);
    expect((await response.json()).error).toBe("unauthorized");
  });
});

describe("POST /v1/mcp/tools", () => {
  let running: Running;
  beforeAll(async () => {
    running = await start(options());
  });
  afterAll(() => running.close());

  it("lists each server tool under its own name with its JSON Schema, and calls it", async () => {
    const client = await running.connect("/hello/v1/mcp/tools");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["boom", "greet"]);
    const schema = tools.find((tool) => tool.name === "greet")?.inputSchema;
    expect(schema).toMatchObject({ type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"] });
    expect(tools.find((tool) => tool.name === "greet")?.description).toBe("Greets someone by name");

    const greeted = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
    expect(greeted.isError).toBeFalsy();
    expect(structured(greeted)).toEqual({ greeting: "hello Ada" });

    const failed = await client.callTool({ name: "boom", arguments: {} });
    expect(failed).toMatchObject({ isError: true, content: [{ type: "text", text: "kaboom" }] });

    const invalid = await client.callTool({ name: "greet", arguments: { name: "" } });
    expect(invalid.isError).toBe(true);
    expect(structured(invalid).error).toBe("invalid_request");

    await expect(client.callTool({ name: "shout", arguments: {} })).rejects.toThrow(/unknown tool/);
  });

  it("an agent without server tools lists none", async () => {
    const client = await running.connect("/plain/v1/mcp/tools");
    expect((await client.listTools()).tools).toEqual([]);
  });
});

describe("MCP under --bearer-token", () => {
  let running: Running;
  beforeAll(async () => {
    running = await start(options({ auth: { bearerToken: "s3cret" } }));
  });
  afterAll(() => running.close());

  for (const path of ["/hello/v1/mcp", "/hello/v1/mcp/tools"]) {
    it(`${path}: 401 without the bearer, tools with it`, async () => {
      await expect(running.connect(path)).rejects.toMatchObject({ code: 401, message: expect.stringContaining("unauthorized") });
      const client = await running.connect(path, { authorization: "Bearer s3cret" });
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    });
  }

  it("ask works as the bearer principal", async () => {
    const client = await running.connect("/hello/v1/mcp", { authorization: "Bearer s3cret" });
    expect(structured(await ask(client, { message: "/reply ok" }))).toMatchObject({ status: "waiting", reply: "ok" });
  });
});
