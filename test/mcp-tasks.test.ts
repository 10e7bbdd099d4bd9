/**
 * MCP's Tasks extension (2026-07-28) backed by sessions (docs/design/mcp-and-discovery.md "Tasks"):
 * `ask` as a task, polled with `tasks/get`; a parked approval as `input_required` decided once by
 * `tasks/update`; `tasks/cancel` stopping the turn; a task read and finished by another host on the
 * same sqlite store after a restart. Every answer is checked against the extension's own schemas
 * (`@modelcontextprotocol/ext-tasks/core/v2`).
 */
import {
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  ServerTaskCapabilityEnvelopeV2Schema,
  UpdateTaskResultV2Schema,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import * as v from "valibot";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, helloOptions, project } from "./_harness.ts";

const refunds: number[] = [];
const tools = {
  refund: defineTool({
    description: "Refunds; always asks first",
    inputSchema: v.object({ amount: v.number() }),
    needsApproval: true,
    execute: (input) => {
      refunds.push(input.amount);
      return { refunded: input.amount };
    },
  }),
};

const open: Array<{ host: AgentHost; server: NodeServer }> = [];
async function serve(storage: StorageDriver = createMemoryStorage()): Promise<{ url: string; stop(): Promise<void> }> {
  const host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage }] }));
  const server = await serveNode(host, { port: 0, silent: true });
  const entry = { host, server };
  open.push(entry);
  return {
    url: `${server.url}/hello/v1/mcp`,
    async stop() {
      open.splice(open.indexOf(entry), 1);
      await host.close();
      await server.close(true);
    },
  };
}
afterEach(async () => {
  for (const { host, server } of open.splice(0)) {
    await host.close();
    await server.close(true);
  }
  refunds.splice(0);
});

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "tasks-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};
let nextId = 0;
async function rpc(url: string, method: string, params: Record<string, unknown> = {}): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++nextId, method, params: { ...params, _meta: meta } }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { result?: Record<string, unknown> };
}

async function startAsk(url: string, message: string): Promise<string> {
  const { result } = await rpc(url, "tools/call", { name: "ask", arguments: { message } });
  expect(CreateTaskResultV2Schema.safeParse(result).success, JSON.stringify(result)).toBe(true);
  return String(result!["taskId"]);
}

async function poll(url: string, taskId: string, status: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const { result } = await rpc(url, "tasks/get", { taskId });
    expect(GetTaskResultV2Schema.safeParse(result).success, JSON.stringify(result)).toBe(true);
    return result!["status"] === status ? result : undefined;
  }, 10_000, `task ${status}`);
}

describe("MCP Tasks backed by sessions", () => {
  it("advertises the extension and runs ask as a task polled to completion", async () => {
    const { url } = await serve();
    const { result: discovered } = await rpc(url, "server/discover");
    expect(ServerTaskCapabilityEnvelopeV2Schema.parse(discovered!["capabilities"]).extensions).toHaveProperty(["io.modelcontextprotocol/tasks"]);
    const taskId = await startAsk(url, "/reply as a task");
    const done = await poll(url, taskId, "completed");
    expect((done["result"] as { structuredContent: unknown }).structuredContent).toMatchObject({ status: "waiting", reply: "as a task" });
    expect((await rpc(url, "tasks/get", { taskId: "ses_nothing.0" })).error).toMatchObject({ code: -32602 });
  });

  it("parks an approval as input_required; tasks/update decides it exactly once", async () => {
    const { url } = await serve();
    const taskId = await startAsk(url, '/tool refund {"amount":9}\n/reply refunded');
    const waiting = await poll(url, taskId, "input_required");
    const [callId, request] = Object.entries(waiting["inputRequests"] as Record<string, { method: string }>)[0]!;
    expect(request.method).toBe("elicitation/create");
    const { result } = await rpc(url, "tasks/update", { taskId, inputResponses: { [callId]: { action: "accept" } } });
    expect(UpdateTaskResultV2Schema.safeParse(result).success).toBe(true);
    const done = await poll(url, taskId, "completed");
    expect((done["result"] as { structuredContent: unknown }).structuredContent).toMatchObject({ reply: "refunded" });
    expect(refunds).toEqual([9]);
    const again = await rpc(url, "tasks/update", { taskId, inputResponses: { [callId]: { action: "accept" } } });
    expect(again.error).toMatchObject({ code: -32602, data: { error: "approval_already_resolved" } });
    expect(refunds).toEqual([9]);
  });

  it("tasks/cancel stops the turn", async () => {
    const { url } = await serve();
    const taskId = await startAsk(url, "/sleep 5000\n/reply never");
    await poll(url, taskId, "working");
    const { result } = await rpc(url, "tasks/cancel", { taskId });
    expect(CancelTaskResultV2Schema.safeParse(result).success).toBe(true);
    await poll(url, taskId, "cancelled");
  });

  it("a task outlives its host: another host on the same store reads and finishes it", async () => {
    const root = mkdtempSync(join(tmpdir(), "mcp-tasks-"));
    try {
      const first = await serve(createSqliteStorage({ path: join(root, "state.db") }));
      const taskId = await startAsk(first.url, '/tool refund {"amount":4}\n/reply after restart');
      const waiting = await poll(first.url, taskId, "input_required");
      await first.stop();
      const second = await serve(createSqliteStorage({ path: join(root, "state.db") }));
      const [callId] = Object.keys((await poll(second.url, taskId, "input_required"))["inputRequests"] as object);
      expect(Object.keys(waiting["inputRequests"] as object)).toEqual([callId]);
      await rpc(second.url, "tasks/update", { taskId, inputResponses: { [callId!]: { action: "accept" } } });
      const done = await poll(second.url, taskId, "completed");
      expect((done["result"] as { structuredContent: unknown }).structuredContent).toMatchObject({ reply: "after restart" });
      expect(refunds).toEqual([4]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
