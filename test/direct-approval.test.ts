/**
 * Approval-gated tools called directly (docs/design/faults.md): the HTTP tool route, MCP
 * `call_tool`, `/v1/mcp/tools` and `agent-serve call` refuse a call the gate holds with 403
 * `approval_required` and never run it; and over MCP a call parked in a turn shows as
 * `awaiting_approval` with the pending calls, not `running`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as v from "valibot";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { AgentHost } from "../src/host/types.ts";
import { run, scratchDir, toolsProject } from "./_cli-io.ts";
import { eventually, postJson, project, quietLogger } from "./_harness.ts";

const runs: string[] = [];
const tools = {
  danger: defineTool({
    description: "Deletes things",
    inputSchema: v.object({ what: v.string() }),
    needsApproval: true,
    execute: ({ what }) => {
      runs.push(`danger:${what}`);
      return `deleted ${what}`;
    },
  }),
  pay: defineTool({
    description: "Pays; large amounts need a human",
    inputSchema: v.object({ amount: v.number() }),
    needsApproval: ({ amount }) => amount > 100,
    execute: ({ amount }) => {
      runs.push(`pay:${amount}`);
      return { paid: amount };
    },
  }),
};

let host: AgentHost;
let server: NodeServer;
let url: string;
const clients: Client[] = [];
beforeAll(async () => {
  host = createHost({ agents: [{ slug: "hello", project: project({ tools }), storage: createMemoryStorage() }], logger: quietLogger, drainTimeoutMs: 50 });
  server = await serveNode(host, { port: 0, silent: true });
  url = server.url.replace(/\/$/, "");
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await host.close();
  await server.close(true);
});

async function mcp(path: string): Promise<Client> {
  const client = new Client({ name: "approval-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}${path}`)));
  clients.push(client);
  return client;
}

const structured = (result: Awaited<ReturnType<Client["callTool"]>>): Record<string, unknown> => result.structuredContent as Record<string, unknown>;

test("POST /v1/tools/:name refuses a gated call with 403 approval_required and runs an ungated one", async () => {
  runs.length = 0;
  const refused = await fetch(`${url}/hello/v1/tools/danger`, postJson({ input: { what: "prod" } }));
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ ok: false, error: "approval_required", toolName: "danger" });
  const large = await fetch(`${url}/hello/v1/tools/pay`, postJson({ input: { amount: 500 } }));
  expect(large.status).toBe(403);
  const small = await fetch(`${url}/hello/v1/tools/pay`, postJson({ input: { amount: 5 } }));
  expect(small.status).toBe(200);
  expect(await small.json()).toMatchObject({ ok: true, isError: false, result: { paid: 5 } });
  // Inside a session too: nothing runs, nothing is recorded.
  const created = await fetch(`${url}/hello/v1/session`, postJson({ message: "/reply hi" }));
  const { sessionId } = (await created.json()) as { sessionId: string };
  const before = await eventually(async () => {
    const text = await (await fetch(`${url}/hello/v1/session/${sessionId}/events`)).text();
    return text.includes("session.waiting") ? text : undefined;
  });
  const inSession = await fetch(`${url}/hello/v1/tools/danger`, postJson({ input: { what: "prod" }, sessionId }));
  expect(inSession.status).toBe(403);
  expect(await (await fetch(`${url}/hello/v1/session/${sessionId}/events`)).text()).toBe(before);
  expect(runs).toEqual(["pay:5"]);
});

test("MCP call_tool and /v1/mcp/tools refuse a gated call the same way", async () => {
  runs.length = 0;
  const agent = await mcp("/hello/v1/mcp");
  const viaCallTool = await agent.callTool({ name: "call_tool", arguments: { name: "danger", input: { what: "prod" } } });
  expect(viaCallTool.isError).toBe(true);
  expect(structured(viaCallTool)).toMatchObject({ ok: false, error: "approval_required" });
  const perTool = await mcp("/hello/v1/mcp/tools");
  const direct = await perTool.callTool({ name: "danger", arguments: { what: "prod" } });
  expect(direct.isError).toBe(true);
  expect(JSON.stringify(direct.content)).toContain("approval_required");
  expect(runs).toEqual([]);
});

test("MCP ask and check report awaiting_approval with the pending calls, then the reply once approved", async () => {
  const agent = await mcp("/hello/v1/mcp");
  const started = Date.now();
  const asked = structured(await agent.callTool({ name: "ask", arguments: { message: '/tool danger {"what":"prod"}\n/reply cleaned up', waitSeconds: 20 } }));
  // Reported at once, not after waitSeconds: a parked call waits for a human, not for time.
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(asked).toMatchObject({ status: "awaiting_approval", approvals: [{ toolName: "danger", input: { what: "prod" }, callId: expect.any(String) }] });
  const sessionId = String(asked.sessionId);
  const checked = structured(await agent.callTool({ name: "check", arguments: { sessionId } }));
  expect(checked).toMatchObject({ status: "awaiting_approval", approvals: asked.approvals });
  const [pending] = asked.approvals as Array<{ callId: string }>;
  const resolved = await fetch(`${url}/hello/v1/session/${sessionId}/approvals/${pending!.callId}`, postJson({ decision: "approve" }));
  expect(resolved.status).toBe(200);
  const after = structured(await agent.callTool({ name: "check", arguments: { sessionId, waitSeconds: 10 } }));
  expect(after).toMatchObject({ status: "waiting", reply: "cleaned up" });
  expect(after.approvals).toBeUndefined();
});

test("agent-serve call exits non-zero on an approval-gated tool and says why", async () => {
  const { dir, env } = scratchDir("direct-approval");
  const projectDir = toolsProject(`${dir}/tools`);
  const result = await run(["call", "danger", "--input", "{}", "--dir", projectDir], { env });
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(/approval/);
}, 30_000);
