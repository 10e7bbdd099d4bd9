/**
 * What the MCP Tasks tests (test/mcp-tasks.test.ts, test/mcp-tool-tasks.test.ts) share: the
 * `hello` agent with their tools on a real Node server, and a 2026-07-28 client that declares the
 * Tasks extension and polls `tasks/get`, each answer checked against the extension's schema.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type RawClientDispatch, type TaskEnabledSession } from "@modelcontextprotocol/ext-tasks/client";
import { GetTaskResultV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import { afterEach, expect } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, helloOptions, project } from "./_harness.ts";

export interface ServedHello {
  /** `<origin>/hello`. */
  base: string;
  stop(): Promise<void>;
}

/** Serves the `hello` agent with `tools` once a call; what is still open is closed after each test, then `reset` runs. */
export function serveHelloWith(tools: ProjectDefinition["tools"], reset: () => void): (storage?: StorageDriver) => Promise<ServedHello> {
  const open: Array<{ host: AgentHost; server: NodeServer }> = [];
  afterEach(async () => {
    for (const { host, server } of open.splice(0)) {
      await host.close();
      await server.close(true);
    }
    reset();
  });
  return async (storage = createMemoryStorage()) => {
    const host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage }] }));
    const server = await serveNode(host, { port: 0, silent: true });
    const entry = { host, server };
    open.push(entry);
    return {
      base: `${server.url}/hello`,
      async stop() {
        open.splice(open.indexOf(entry), 1);
        await host.close();
        await server.close(true);
      },
    };
  };
}

export type RpcAnswer = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };

export interface TasksClient {
  /** One JSON-RPC call; `withTasks: false` declares no extension. */
  rpc(url: string, method: string, params?: Record<string, unknown>, withTasks?: boolean): Promise<RpcAnswer>;
  /** Polls `tasks/get` until the task has `status`. */
  poll(url: string, taskId: string, status: string): Promise<Record<string, unknown>>;
}

export function tasksClient(clientName: string): TasksClient {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: clientName, version: "1" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  let nextId = 0;
  const rpc: TasksClient["rpc"] = async (url, method, params = {}, withTasks = true) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++nextId, method, params: { ...params, _meta: withTasks ? meta : { ...meta, "io.modelcontextprotocol/clientCapabilities": {} } } }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as RpcAnswer;
  };
  const poll: TasksClient["poll"] = (url, taskId, status) =>
    eventually(async () => {
      const { result } = await rpc(url, "tasks/get", { taskId });
      expect(GetTaskResultV2Schema.safeParse(result).success, JSON.stringify(result)).toBe(true);
      return result!["status"] === status ? result : undefined;
    }, 10_000, `task ${status}`);
  return { rpc, poll };
}

const TASKS = "io.modelcontextprotocol/tasks";

/**
 * The Tasks extension's requester over the MCP SDK's client, pinned to 2026-07-28. The SDK's codec
 * refuses a `tools/call` answered with a task, so the extension posts its own requests (its
 * documented `rawDispatch`) to `url`.
 */
export async function extensionRequester(url: string, clientName: string): Promise<{ session: TaskEnabledSession; close(): Promise<void> }> {
  // SAFETY: versionNegotiation and capabilities.extensions are the v2 client's options for the
  // 2026-07-28 revision and its extensions.
  const client = new Client({ name: clientName, version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { extensions: { [TASKS]: {} } } } as ConstructorParameters<typeof Client>[1]);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const framing = { protocolVersion: "2026-07-28", clientInfo: { name: clientName, version: "1" }, clientCapabilities: { extensions: { [TASKS]: {} } } };
  let id = 0;
  const rawDispatch: RawClientDispatch = async (request, options) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, ...(request as Record<string, unknown>) }),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const answer = (await response.json()) as { result?: never; error?: never };
    return answer.error !== undefined ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result! };
  };
  const session = createTaskSessionFromClient(client, { endpointId: url, rawDispatch, v2RequestFraming: framing });
  return {
    session,
    async close() {
      await session.close();
      await client.close();
    },
  };
}

