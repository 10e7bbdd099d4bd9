/**
 * `agent-serve mcp`: the agent as an MCP server over stdio, driven by the MCP SDK's own `Client`
 * and `StdioClientTransport` spawning the real bin (docs/guide/mcp.md "Over stdio"). The local
 * form shares the store of `serve` (a conversation started over stdio is listed by `sessions` and
 * continued); `--url` bridges to a running server; `--help` shows the client configuration.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { BIN, killAfterEach, runCli, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { run, scratchDir, toolsProject } from "./_cli-io.ts";

const { dir: scratch, env } = scratchDir("cli-mcp");
const project = toolsProject(join(scratch, "toolbox"));
const running: CliProcess[] = killAfterEach();
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
});

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", ...args], env: env as Record<string, string>, stderr: "pipe" });
  const client = new Client({ name: "cli-mcp-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

interface Report {
  status: string;
  sessionId: string;
  continuationToken: string;
  reply?: string;
}

const report = (result: Awaited<ReturnType<Client["callTool"]>>): Report => JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Report;

describe("agent-serve mcp", () => {
  test("serves ask, check and call_tool over stdio on the project's own store", async () => {
    const client = await connect([project]);
    expect(client.getServerVersion()?.name).toBe("Toolbox");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["ask", "call_tool", "check"]);

    const asked = report(await client.callTool({ name: "ask", arguments: { message: "/reply over stdio" } }));
    expect(asked).toMatchObject({ status: "waiting", reply: "over stdio" });
    const again = report(await client.callTool({ name: "ask", arguments: { message: "/reply still here", sessionId: asked.sessionId, continuationToken: asked.continuationToken } }));
    expect(again).toMatchObject({ status: "waiting", reply: "still here", sessionId: asked.sessionId });
    expect(report(await client.callTool({ name: "check", arguments: { sessionId: asked.sessionId } }))).toMatchObject({ status: "waiting", reply: "still here" });
    const added = await client.callTool({ name: "call_tool", arguments: { name: "add", input: { a: 2, b: 3 } } });
    expect(JSON.parse((added.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ ok: true, result: { sum: 5 } });
    // A bad call is a tool error the client can read, not a broken pipe.
    const bad = await client.callTool({ name: "ask", arguments: {} });
    expect(bad.isError).toBe(true);
    await client.close();

    // The same store as serve: the conversation is there for every other command.
    const listed = await run(["sessions", project, "--json"], { env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(asked.sessionId);
    // ... and `serve` continues it over HTTP.
    const server = await startServe([project, "--port", "0"], env);
    running.push(server);
    const followed = await fetch(`${server.url}/toolbox/v1/session/${asked.sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "/reply over http", continuationToken: again.continuationToken }),
    });
    expect(followed.status).toBe(200);
  });

  test("--url bridges stdio to a running server", async () => {
    const server = await startServe([project, "--port", "0", "--state-root", join(scratch, "served")], env);
    running.push(server);
    const client = await connect(["--url", `${server.url}/toolbox`]);
    const asked = report(await client.callTool({ name: "ask", arguments: { message: "/reply bridged" } }));
    expect(asked).toMatchObject({ status: "waiting", reply: "bridged" });
    // The session lives in the server's own store.
    const events = await fetch(`${server.url}/toolbox/v1/session/${asked.sessionId}/events`).then((r) => r.text());
    expect(events).toContain('"text":"bridged"');
  });

  test("speaks MCP 2026-07-28 over stdio too, with the Tasks extension advertised", async () => {
    // SAFETY: versionNegotiation is the v2 client's documented option for the 2026-07-28 revision.
    const client = new ClientV2({ name: "cli-mcp-2026", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } } as ConstructorParameters<typeof ClientV2>[1]);
    await client.connect(new StdioClientTransportV2({ command: process.execPath, args: [BIN, "mcp", project], env: env as Record<string, string>, stderr: "pipe" }));
    expect(client.getServerCapabilities()).toMatchObject({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("ask");
    const asked = await client.callTool({ name: "ask", arguments: { message: "/reply modern stdio" } });
    expect(asked.structuredContent).toMatchObject({ status: "waiting", reply: "modern stdio" });
    await client.close();
  });

  test("--help shows the client configuration", async () => {
    const help = await runCli(["mcp", "--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('"mcpServers"');
    expect(help.stdout).toContain('"args": ["agent-serve", "mcp", "/path/to/my-agent"]');
    expect(help.stdout).toContain("--url");
  });
});
