/**
 * Every MCP tool call may run as a task (docs/design/mcp-tool-tasks.md): the server tools of
 * `/v1/mcp/tools` and `call_tool` of `/v1/mcp`, asked for as tasks by a 2026-07-28 client that
 * declares the extension, start at once and are polled with `tasks/get`; `tasks/cancel` aborts the
 * running call; the record outlives its host (another host on the same sqlite store reads it) and
 * a task whose runner died is reported failed, never left working. Every answer is checked
 * against the extension's own schemas (`@modelcontextprotocol/ext-tasks/core/v2`).
 */
import {
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { toolTasks } from "../src/features/mcp/tool-tasks.ts";
import { eventually, quietLogger } from "./_harness.ts";
import { serveHelloWith, tasksClient } from "./_mcp-tasks.ts";

/** Gates the `slow` tool: it ends when released, or when its call is aborted. */
let release: (value: string) => void = () => {};
const seen: { aborted: number; calls: number } = { aborted: 0, calls: 0 };
const tools = {
  slow: defineTool({
    description: "Waits until the test releases it",
    inputSchema: v.object({ label: v.string() }),
    execute: (input, ctx) =>
      new Promise<{ label: string; answer: string }>((resolve, reject) => {
        seen.calls++;
        release = (answer) => resolve({ label: input.label, answer });
        ctx.signal.addEventListener("abort", () => {
          seen.aborted++;
          reject(new Error("aborted"));
        });
      }),
  }),
};

const serve = serveHelloWith(tools, () => {
  seen.aborted = 0;
  seen.calls = 0;
});
const { rpc, poll } = tasksClient("tool-tasks-test");

async function startTask(url: string, name: string, args: Record<string, unknown>): Promise<string> {
  const { result, error } = await rpc(url, "tools/call", { name, arguments: args });
  expect(error).toBeUndefined();
  expect(CreateTaskResultV2Schema.safeParse(result).success, JSON.stringify(result)).toBe(true);
  expect(result).toMatchObject({ resultType: "task", status: "working" });
  return String(result!["taskId"]);
}

describe("MCP tool calls as tasks", () => {
  it("runs a server tool of /v1/mcp/tools as a task polled to its result", async () => {
    const { base } = await serve();
    const url = `${base}/v1/mcp/tools`;
    const { result: discovered } = await rpc(url, "server/discover");
    expect(discovered!["capabilities"]).toMatchObject({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    const taskId = await startTask(url, "slow", { label: "first" });
    expect((await rpc(url, "tasks/get", { taskId })).result).toMatchObject({ status: "working", pollIntervalMs: 1000 });
    release("done");
    const done = await poll(url, taskId, "completed");
    expect((done["result"] as { structuredContent: unknown }).structuredContent).toEqual({ label: "first", answer: "done" });
    // A client without the extension still gets the answer inline.
    const inline = rpc(url, "tools/call", { name: "slow", arguments: { label: "inline" } }, false);
    await eventually(async () => (seen.calls === 2 ? true : undefined), 5000, "second call started");
    release("now");
    expect((await inline).result).toMatchObject({ resultType: "complete", structuredContent: { label: "inline", answer: "now" } });
  });

  it("runs call_tool of /v1/mcp as a task, and tasks/cancel aborts the running call", async () => {
    const { base } = await serve();
    const url = `${base}/v1/mcp`;
    const taskId = await startTask(url, "call_tool", { name: "slow", input: { label: "to cancel" } });
    await eventually(async () => (seen.calls === 1 ? true : undefined), 5000, "call started");
    const { result } = await rpc(url, "tasks/cancel", { taskId });
    expect(CancelTaskResultV2Schema.safeParse(result).success, JSON.stringify(result)).toBe(true);
    await poll(url, taskId, "cancelled");
    await eventually(async () => (seen.aborted === 1 ? true : undefined), 5000, "call aborted");
    expect((await rpc(url, "tasks/cancel", { taskId })).error).toMatchObject({ code: -32602, data: { error: "task_finished" } });
    expect((await rpc(url, "tasks/update", { taskId, inputResponses: {} })).error).toMatchObject({ code: -32602, data: { error: "task_input_not_requested" } });
    expect((await rpc(url, "tasks/get", { taskId: "mcptask_nothing_here_at_all_0" })).error).toMatchObject({ code: -32602, data: { error: "task_not_found" } });

    const second = await startTask(url, "call_tool", { name: "slow", input: { label: "kept" } });
    await eventually(async () => (seen.calls === 2 ? true : undefined), 5000, "second call started");
    release("fine");
    const done = await poll(url, second, "completed");
    expect((done["result"] as { structuredContent: unknown }).structuredContent).toMatchObject({ ok: true, toolName: "slow", result: { label: "kept", answer: "fine" } });
  });

  it("keeps the task in the store: another host on the same sqlite store reads how it ended", async () => {
    const root = mkdtempSync(join(tmpdir(), "mcp-tool-tasks-"));
    try {
      const first = await serve(createSqliteStorage({ path: join(root, "state.db") }));
      const finished = await startTask(`${first.base}/v1/mcp/tools`, "slow", { label: "before" });
      release("kept");
      await poll(`${first.base}/v1/mcp/tools`, finished, "completed");
      const cut = await startTask(`${first.base}/v1/mcp/tools`, "slow", { label: "cut" });
      await eventually(async () => (seen.calls === 2 ? true : undefined), 5000, "second call started");
      // Closing cuts the call; its end is written, or (the store closing first) the lapsed
      // runner's lease reports it failed within 10 s.
      await first.stop();

      const second = await serve(createSqliteStorage({ path: join(root, "state.db") }));
      const url = `${second.base}/v1/mcp/tools`;
      expect(((await poll(url, finished, "completed"))["result"] as { structuredContent: unknown }).structuredContent).toEqual({ label: "before", answer: "kept" });
      expect((await poll(url, cut, "failed"))["error"]).toMatchObject({ code: -32603 });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("reports a task whose runner stopped renewing its lease as failed, not working forever", async () => {
    const storage = createMemoryStorage();
    const closing = { subscribe: () => () => {} };
    const hung = { name: "hung", description: "never ends", inputSchema: { type: "object" as const }, call: () => new Promise<never>(() => {}) };
    // A heartbeat that never comes stands in for a runner in a process that died.
    const tasks = toolTasks({ storage, auth: { principalId: "alice" } as never, closing, logger: quietLogger, heartbeatMs: 60_000, leaseMs: 200 }, [hung]);
    const started = await tasks.start("hung", {});
    const taskId = String(started!["taskId"]);
    expect((await tasks.get(taskId, new AbortController().signal))["status"]).toBe("working");
    const failed = await eventually(async () => {
      const task = await tasks.get(taskId, new AbortController().signal);
      return task["status"] === "failed" ? task : undefined;
    }, 5000, "failed");
    expect(GetTaskResultV2Schema.safeParse({ ...failed, resultType: "complete" }).success, JSON.stringify(failed)).toBe(true);
    expect(failed["error"]).toMatchObject({ message: "the process running the call stopped before it finished" });
    // Another principal sees no such task.
    const theirs = toolTasks({ storage, auth: { principalId: "mallory" } as never, closing, logger: quietLogger }, [hung]);
    await expect(theirs.get(taskId, new AbortController().signal)).rejects.toMatchObject({ code: "task_not_found" });
  });
});
