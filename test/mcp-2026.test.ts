/**
 * MCP's 2026-07-28 revision on `/v1/mcp` and `/v1/mcp/tools`, next to the 2025 ones
 * (docs/design/mcp-and-discovery.md "Protocol revisions"): the MCP SDK's v2 `Client` pinned to the
 * revision and in auto negotiation, with no `initialize`; the per-request envelope checked; the
 * 2025-11-25 handshake still answered for clients that speak it.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { helloOptions, project } from "./_harness.ts";

const tools = { greet: defineTool({ description: "Greets", inputSchema: { type: "object", properties: { name: { type: "string" } } }, execute: (input: { name?: string }) => ({ greeting: `hello ${input.name ?? "you"}` }) }) };
let host: AgentHost;
let server: NodeServer;
let base = "";
beforeEach(async () => {
  host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage: createMemoryStorage() }] }));
  server = await serveNode(host, { port: 0, silent: true });
  base = `${server.url}/hello`;
});
afterEach(async () => {
  await host.close();
  await server.close(true);
});

type Negotiation = "auto" | "legacy" | { pin: string };
async function connect(path: string, mode: Negotiation): Promise<{ client: Client; methods: string[] }> {
  const methods: string[] = [];
  const spy = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    if (typeof init?.body === "string") methods.push((JSON.parse(init.body) as { method?: string }).method ?? "(response)");
    return fetch(url, init);
  };
  // SAFETY: versionNegotiation is the v2 client's documented option for the 2026-07-28 revision.
  const client = new Client({ name: "mcp-2026-test", version: "1.0.0" }, { versionNegotiation: { mode } } as ConstructorParameters<typeof Client>[1]);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { fetch: spy }));
  return { client, methods };
}

const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
const raw = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", ...headers },
    body: JSON.stringify(body),
  });

describe("MCP 2026-07-28", () => {
  it("serves a client pinned to the revision with no initialize: discover, cacheable tools/list, ask", async () => {
    const { client, methods } = await connect("/v1/mcp", { pin: "2026-07-28" });
    expect(client.getServerVersion()).toMatchObject({ name: "Hello" });
    const { tools: listed } = await client.listTools();
    expect(listed.map((tool) => tool.name).sort()).toEqual(["ask", "call_tool", "check"]);
    const asked = await client.callTool({ name: "ask", arguments: { message: "/reply modern" } });
    expect(asked.structuredContent).toMatchObject({ status: "waiting", reply: "modern" });
    const bad = await client.callTool({ name: "call_tool", arguments: { name: "nope", input: {} } });
    expect(bad.isError).toBe(true);
    expect(methods).not.toContain("initialize");
    expect(methods[0]).toBe("server/discover");
    await client.close();
  });

  it("negotiates the revision in auto mode, on /v1/mcp/tools too", async () => {
    const { client, methods } = await connect("/v1/mcp/tools", "auto");
    const greeted = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
    expect(JSON.stringify(greeted.structuredContent ?? greeted.content)).toContain("hello Ada");
    expect(methods).not.toContain("initialize");
    await client.close();
  });

  it("keeps the 2025-11-25 handshake for clients that speak it", async () => {
    const { client, methods } = await connect("/v1/mcp", "legacy");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(methods).toContain("initialize");
    await client.close();
  });

  it("checks the per-request envelope and answers what it does not serve clearly", async () => {
    const list = await (await raw("/v1/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } })).json();
    expect(list).toMatchObject({ result: { resultType: "complete", ttlMs: 60_000, cacheScope: "private" } });
    const wrongVersion = await raw("/v1/mcp", { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } });
    expect(wrongVersion.status).toBe(400);
    expect(await wrongVersion.json()).toMatchObject({ error: { code: -32602, data: { supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] } } });
    expect((await raw("/v1/mcp", { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: meta } }, { "mcp-method": "tools/call" })).status).toBe(400);
    expect(await (await raw("/v1/mcp", { jsonrpc: "2.0", id: 4, method: "resources/list", params: { _meta: meta } })).json()).toMatchObject({ error: { code: -32601 } });
    expect((await raw("/v1/mcp", { jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: meta, requestId: 1 } })).status).toBe(202);
  });
});
