/**
 * An outside MCP client: the MCP Inspector's CLI mode (a separate program with its own SDK copy)
 * lists and calls the tools of both MCP endpoints on a real loopback server.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { AgentHost } from "../src/host/types.ts";
import { project, quietLogger } from "./_harness.ts";

const run = promisify(execFile);
const packageDir = new URL("../node_modules/@modelcontextprotocol/inspector/", import.meta.url);

async function inspector(url: string, ...args: string[]): Promise<Record<string, unknown>> {
  const pkg = JSON.parse(await readFile(new URL("package.json", packageDir), "utf8")) as { bin: Record<string, string> };
  const bin = fileURLToPath(new URL(pkg.bin["mcp-inspector"] ?? "", packageDir));
  const { stdout } = await run(process.execPath, [bin, "--cli", url, "--transport", "http", ...args], { timeout: 30_000 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const greet = defineTool({
  description: "Greets someone by name",
  inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  execute: (input: { name: string }) => ({ greeting: `hello ${input.name}` }),
});

describe("MCP Inspector CLI against the MCP endpoints", () => {
  let host: AgentHost;
  let server: NodeServer;
  beforeAll(async () => {
    host = createHost({
      agents: [{ slug: "hello", project: project({ tools: { greet } }), storage: createMemoryStorage() }],
      logger: quietLogger,
      drainTimeoutMs: 50,
    });
    server = await serveNode(host, { port: 0, silent: true });
  });
  afterAll(async () => {
    await host.close();
    await server.close(true);
  });

  it("lists ask, check and call_tool and asks the agent", async () => {
    const listed = (await inspector(`${server.url}/hello/v1/mcp`, "--method", "tools/list")) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((tool) => tool.name)).toEqual(["ask", "check", "call_tool"]);

    const asked = await inspector(`${server.url}/hello/v1/mcp`, "--method", "tools/call", "--tool-name", "ask", "--tool-arg", "message=hi there");
    expect(asked.structuredContent).toMatchObject({ status: "waiting", reply: "echo: hi there" });
  }, 60_000);

  it("calls a server tool by its own name on /v1/mcp/tools", async () => {
    const called = await inspector(`${server.url}/hello/v1/mcp/tools`, "--method", "tools/call", "--tool-name", "greet", "--tool-arg", "name=Ada");
    expect(called).toEqual({
      content: [{ type: "text", text: JSON.stringify({ greeting: "hello Ada" }) }],
      structuredContent: { greeting: "hello Ada" },
    });
  }, 60_000);
});
