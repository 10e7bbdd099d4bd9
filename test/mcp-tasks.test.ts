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
  ServerTaskCapabilityEnvelopeV2Schema,
  UpdateTaskResultV2Schema,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import * as v from "valibot";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import { extensionRequester, serveHelloWith, tasksClient } from "./_mcp-tasks.ts";

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

const serveHello = serveHelloWith(tools, () => refunds.splice(0));
async function serve(storage?: StorageDriver): Promise<{ url: string; stop(): Promise<void> }> {
  const served = await serveHello(storage);
  return { url: `${served.base}/v1/mcp`, stop: served.stop };
}
const { rpc, poll } = tasksClient("tasks-test");

async function startAsk(url: string, message: string): Promise<string> {
  const { result } = await rpc(url, "tools/call", { name: "ask", arguments: { message } });
  expect(CreateTaskResultV2Schema.safeParse(result).success, JSON.stringify(result)).toBe(true);
  return String(result!["taskId"]);
}

describe("MCP Tasks backed by sessions", () => {
  it("settles ask to its reply through the Tasks extension's own requester", async () => {
    const { url } = await serve();
    const requester = await extensionRequester(url, "tasks-test");
    try {
      const execution = await requester.session.callTool("ask", { message: "/reply through the requester" }, { task: { preference: "require" } });
      const { outcome } = await execution.settle();
      expect(resultFromTaskOutcome(outcome)).toMatchObject({ structuredContent: { reply: "through the requester" } });
    } finally {
      await requester.close();
    }
  });

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
