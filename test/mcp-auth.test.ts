/**
 * MCP authorization's discovery (docs/guide/mcp.md "Authorization"): with an OAuth verifier the
 * MCP endpoints publish protected-resource metadata (RFC 9728) and their 401s point at it, read
 * here by the MCP SDK's own discovery helpers; a token the verifier accepts opens the endpoint to
 * the SDK client. Without a verifier nothing is published.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { discoverOAuthProtectedResourceMetadata, extractResourceMetadataUrl } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { helloOptions, project } from "./_harness.ts";

const ISSUER = "https://auth.example.com";
const tools = { greet: defineTool({ description: "Greets", execute: () => "hi" }) };
let running: Array<{ host: AgentHost; server: NodeServer }> = [];
afterEach(async () => {
  for (const { host, server } of running) {
    await host.close();
    await server.close(true);
  }
  running = [];
});

async function serve(overrides: Partial<AgentHostOptions>): Promise<string> {
  const host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage: createMemoryStorage() }], ...overrides }));
  const server = await serveNode(host, { port: 0, silent: true });
  running.push({ host, server });
  return server.url;
}

const oauth = {
  verifier: (token: string) => (token === "issued-token" ? { authenticator: "oauth", principalId: "user-1", principalType: "user" as const } : null),
  authorizationServers: [ISSUER],
  scopesSupported: ["agent"],
  resourceName: "Hello agent",
};

const post = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });

describe("MCP authorization", () => {
  it("publishes protected-resource metadata and points 401s at it", async () => {
    const base = await serve({ auth: { oauth } });
    for (const path of ["/hello/v1/mcp", "/hello/v1/mcp/tools"]) {
      const refused = await post(`${base}${path}`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource${path}", scope="agent"`);
      expect(extractResourceMetadataUrl(refused)?.href).toBe(`${base}/.well-known/oauth-protected-resource${path}`);
      // The SDK's own discovery, as a client does after the 401.
      const metadata = await discoverOAuthProtectedResourceMetadata(`${base}${path}`);
      expect(metadata).toMatchObject({ resource: `${base}${path}`, authorization_servers: [ISSUER], bearer_methods_supported: ["header"], scopes_supported: ["agent"], resource_name: "Hello agent" });
    }
    // A token the verifier refuses is refused the same way.
    expect((await post(`${base}/hello/v1/mcp`, { authorization: "Bearer forged" })).status).toBe(401);
    // Only the MCP endpoints of mounted agents are resources.
    expect((await fetch(`${base}/.well-known/oauth-protected-resource/nobody/v1/mcp`)).status).toBe(404);
    expect((await fetch(`${base}/.well-known/oauth-protected-resource/hello/v1/sessions`)).status).toBe(404);
    // Other routes keep the plain challenge.
    expect((await fetch(`${base}/hello/v1/sessions`)).headers.get("www-authenticate")).toBe('Bearer realm="agent-serve"');
  });

  it("admits the SDK client with a token the verifier accepts", async () => {
    const base = await serve({ auth: { oauth } });
    const client = new Client({ name: "auth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/hello/v1/mcp`), { requestInit: { headers: { authorization: "Bearer issued-token" } } }));
    const { tools: listed } = await client.listTools();
    expect(listed.map((tool) => tool.name)).toContain("ask");
    await client.close();
  });

  it("serves the single layout's resources at the root", async () => {
    const base = await serve({ mode: "single", auth: { oauth } });
    expect((await post(`${base}/v1/mcp`)).headers.get("www-authenticate")).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/v1/mcp"`);
    expect(await (await fetch(`${base}/.well-known/oauth-protected-resource/v1/mcp`)).json()).toMatchObject({ resource: `${base}/v1/mcp` });
  });

  it("publishes nothing without a verifier", async () => {
    const base = await serve({ auth: { bearerToken: "static-secret" } });
    const refused = await post(`${base}/hello/v1/mcp`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="agent-serve"');
    expect((await fetch(`${base}/.well-known/oauth-protected-resource/hello/v1/mcp`)).status).toBe(404);
  });
});
