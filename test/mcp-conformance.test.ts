/**
 * The official MCP conformance scenarios (`@modelcontextprotocol/conformance`) that apply to a
 * server whose tools are the agent's own, run against both endpoints over loopback
 * (docs/guide/mcp.md "Conformance" lists which apply and why the others do not).
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { helloOptions, project } from "./_harness.ts";

const run = promisify(execFile);
const CONFORMANCE = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url));
const APPLICABLE = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

let host: AgentHost;
let server: NodeServer;
beforeAll(async () => {
  const tools = { greet: defineTool({ description: "Greets", execute: () => "hello" }) };
  host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage: createMemoryStorage() }] }));
  server = await serveNode(host, { port: 0, silent: true });
});
afterAll(async () => {
  await host.close();
  await server.close(true);
});

describe("MCP conformance scenarios", () => {
  for (const path of ["/hello/v1/mcp", "/hello/v1/mcp/tools"]) {
    for (const scenario of APPLICABLE) {
      it(`${scenario} on ${path}`, async () => {
        // Exits non-zero when a check fails; stdout lists the checks.
        const { stdout } = await run(process.execPath, [CONFORMANCE, "server", "--url", `${server.url}${path}`, "--scenario", scenario], { timeout: 60_000 });
        expect(stdout).toMatch(/0 failed/);
      }, 70_000);
    }
  }
});
