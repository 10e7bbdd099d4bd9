/**
 * MCP tool tasks expire (docs/design/mcp-task-expiry.md): a task keeps the ttl its request asks
 * for (`params.task.ttl`, within the host's bounds), the host's timer sweeps it from the store when
 * that has passed whether or not anyone reads it again, `tasks/get` then answers the spec's
 * `-32602`, and a host started on a store holding expired tasks sweeps them. Driven by the MCP
 * SDK's own client, pinned to the 2026-07-28 revision and declaring the Tasks extension.
 */
import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import { CreateTaskResultV2Schema, GetTaskResultV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { serveNode } from "../adapters/node.ts";
import type { TimerPort } from "../src/base/ports/timers.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { mcpToolTaskKey } from "../src/base/storage/keys.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import { MAX_TOOL_TASK_TTL_MS, MIN_TOOL_TASK_TTL_MS, TOOL_TASK_TTL_MS } from "../src/features/mcp/tool-task-lifetime.ts";
import { createHost } from "../src/host/host.ts";
import { eventually, helloOptions, project } from "./_harness.ts";
import { extensionRequester, serveHelloWith, tasksClient } from "./_mcp-tasks.ts";

const tools = {
  echo: defineTool({ description: "Echoes its input", inputSchema: v.object({ text: v.string() }), execute: (input) => ({ echoed: input.text }) }),
};
const serve = serveHelloWith(tools, () => {});


/**
 * The extension's requester asks for no ttl under 2026-07-28; a client that does sends the 2025-11-25
 * `params.task.ttl` (docs/design/mcp-task-expiry.md). These calls go as JSON-RPC over fetch, each
 * answer checked against the extension's schemas.
 */
const { rpc } = tasksClient("task-expiry-test");
async function start(base: string, task: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { result, error } = await rpc(`${base}/v1/mcp/tools`, "tools/call", { name: "echo", arguments: { text: "hi" }, task });
  if (error) throw error;
  expect(CreateTaskResultV2Schema.safeParse(result).success, JSON.stringify(result)).toBe(true);
  return result!;
}
async function get(base: string, taskId: string): Promise<Record<string, unknown>> {
  const { result, error } = await rpc(`${base}/v1/mcp/tools`, "tasks/get", { taskId });
  if (error) throw error;
  expect(GetTaskResultV2Schema.safeParse(result).success, JSON.stringify(result)).toBe(true);
  return result!;
}

describe("MCP tool task expiry", () => {
  it("gives a task the host's default ttl when its client asks for none, as the extension's requester sees it", async () => {
    const { base } = await serve();
    const requester = await extensionRequester(`${base}/v1/mcp/tools`, "task-expiry-test");
    try {
      const execution = await requester.session.callTool("echo", { text: "hi" }, { task: { preference: "require" } });
      const { outcome } = await execution.settle();
      expect(JSON.stringify(resultFromTaskOutcome(outcome))).toContain("hi");
      expect(outcome).toMatchObject({ task: { retentionMs: TOOL_TASK_TTL_MS } });
    } finally {
      await requester.close();
    }
  });

  it("keeps the requested ttl, sweeps the task when it passes without a read, then tasks/get answers -32602", async () => {
    const storage = createMemoryStorage();
    const { base } = await serve(storage);
    const created = await start(base, { ttl: 1500 });
    expect(created).toMatchObject({ status: "working", ttlMs: 1500 });
    const taskId = String(created["taskId"]);
    const done = await eventually(async () => {
      const task = await get(base, taskId);
      return task["status"] === "completed" ? task : undefined;
    }, 10_000, "the task's end");
    expect(done).toMatchObject({ ttlMs: 1500 });
    expect(await storage.get(mcpToolTaskKey(taskId))).toBeDefined();
    // Nobody reads it again: the host's own timer deletes it.
    await eventually(async () => ((await storage.get(mcpToolTaskKey(taskId))) === undefined ? true : undefined), 10_000, "the sweep");
    const answer = await get(base, taskId).then(() => undefined, (error: unknown) => error);
    expect(answer).toMatchObject({ code: -32602, data: { error: "task_not_found" } });
    expect(String((answer as { message: string }).message)).toMatch(/unknown, or expired/);
  });

  it("bounds the ttl a request asks for, refuses a malformed one, and gives the default when none is asked", async () => {
    const { base } = await serve();
    expect(await start(base, {})).toMatchObject({ ttlMs: TOOL_TASK_TTL_MS });
    expect(await start(base, { ttl: 10 * MAX_TOOL_TASK_TTL_MS })).toMatchObject({ ttlMs: MAX_TOOL_TASK_TTL_MS });
    expect(await start(base, { ttl: 0 })).toMatchObject({ ttlMs: MIN_TOOL_TASK_TTL_MS });
    const refused = await start(base, { ttl: "soon" }).then(() => undefined, (error: unknown) => error);
    expect(refused).toMatchObject({ code: -32602 });
    expect(String((refused as { message: string }).message)).toMatch(/params\.task\.ttl/);
  });

  it("answers an expired task not yet swept with -32602 task_expired and deletes it", async () => {
    const storage = createMemoryStorage();
    const { base } = await serve(storage);
    const taskId = String((await start(base, { ttl: 60_000 }))["taskId"]);
    await eventually(async () => ((await get(base, taskId))["status"] === "completed" ? true : undefined), 10_000, "the task's end");
    // Its expiry moves into the past behind this host's back: its timer is still a minute off.
    await backdate(storage, taskId);
    const answer = await get(base, taskId).then(() => undefined, (error: unknown) => error);
    expect(answer).toMatchObject({ code: -32602, data: { error: "task_expired" } });
    expect(await storage.get(mcpToolTaskKey(taskId))).toBeUndefined();
  });

  it("arms no timer while no task is stored, one at the earliest expiry when there is, and none once it is swept", async () => {
    const armed = new Map<string, number>();
    const timers: TimerPort = { arm: (key, at) => void armed.set(key, at), disarm: (key) => void armed.delete(key), close: () => armed.clear() };
    const storage = createMemoryStorage();
    const host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage }], timers }));
    const server = await serveNode(host, { port: 0, silent: true });
    try {
      const base = `${server.url}/hello`;
      await host.ready();
      // An idle host: nothing to wake it for.
      expect([...armed.keys()].filter((key) => key.endsWith("/mcp-tasks"))).toEqual([]);
      const taskId = String((await start(base, { ttl: 5_000 }))["taskId"]);
      const done = await eventually(async () => {
        const task = await get(base, taskId);
        return task["status"] === "completed" ? task : undefined;
      }, 10_000, "the task's end");
      const expiry = Date.parse(String(done["createdAt"])) + 5_000;
      expect(armed.get("hello/mcp-tasks")).toBe(expiry);
      // The clock fires (here by hand): the task goes, and nothing stays armed.
      await host.tick(expiry);
      expect(await storage.get(mcpToolTaskKey(taskId))).toBeUndefined();
      expect(armed.has("hello/mcp-tasks")).toBe(false);
    } finally {
      await host.close();
      await server.close(true);
    }
  });

  it("sweeps, at start, the expired tasks a stopped host left in the store", async () => {
    const storage = createMemoryStorage();
    const first = await serve(storage);
    const taskId = String((await start(first.base, { ttl: 60_000 }))["taskId"]);
    await eventually(async () => ((await get(first.base, taskId))["status"] === "completed" ? true : undefined), 10_000, "the task's end");
    await first.stop();
    await backdate(storage, taskId);
    await serve(storage);
    await eventually(async () => ((await storage.get(mcpToolTaskKey(taskId))) === undefined ? true : undefined), 10_000, "the sweep at start");
  });
});

/** Moves a stored task's expiry into the past, as if the host had been down past it. */
async function backdate(storage: StorageDriver, taskId: string): Promise<void> {
  const record = JSON.parse((await storage.get(mcpToolTaskKey(taskId)))!) as Record<string, unknown>;
  await storage.set(mcpToolTaskKey(taskId), JSON.stringify({ ...record, expiresAt: new Date(Date.now() - 1000).toISOString() }));
}
