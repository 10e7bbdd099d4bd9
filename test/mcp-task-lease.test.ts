/**
 * An MCP tool task's runner lease follows the host's `leaseTtlMs` (docs/design/mcp-tool-tasks.md
 * "Crash and restart"): with a 1 s host lease, a task whose runner lost its store (the process
 * as good as dead: no renewal, no end written) is reported `failed` by another host on the same
 * store within a few seconds, where the tasks' own 10 s lease would still read `working`; and a
 * live runner's call that outlasts several leases still completes (its heartbeat keeps up).
 */
import { afterEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, helloOptions, project } from "./_harness.ts";
import { tasksClient } from "./_mcp-tasks.ts";

const LEASE_MS = 1000;

let release: () => void = () => {};
const tools = {
  // Ignores aborts, as a call in a dead process would: only `release` ends it.
  wait: {
    description: "Waits until the test releases it",
    execute: () => new Promise<string>((resolve) => (release = () => resolve("released"))),
  },
};

/** A store that, once cut, fails every operation: what a process that died sees of it (nothing more reaches it). */
function cuttable(inner: StorageDriver): { driver: StorageDriver; cut(): void } {
  let cut = false;
  const driver = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (cut) throw new Error("the store is gone");
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { driver, cut: () => (cut = true) };
}

const open: Array<{ host: AgentHost; server: NodeServer }> = [];
afterEach(async () => {
  release();
  for (const { host, server } of open.splice(0)) {
    await host.close().catch(() => {});
    await server.close(true);
  }
});

async function serve(storage: StorageDriver): Promise<string> {
  const host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools } as never), storage }], leaseTtlMs: LEASE_MS }));
  const server = await serveNode(host, { port: 0, silent: true });
  open.push({ host, server });
  return `${server.url}/hello/v1/mcp/tools`;
}

const { rpc, poll } = tasksClient("task-lease-test");

describe("MCP tool tasks under the host's lease", () => {
  it("reports a task whose runner lost its store failed within the host's lease, not the tasks' 10 s", async () => {
    const inner = createMemoryStorage();
    const store = cuttable(inner);
    const first = await serve(store.driver);
    const { result } = await rpc(first, "tools/call", { name: "wait", arguments: {} });
    const taskId = String(result!["taskId"]);
    store.cut();
    const cutAt = Date.now();
    const second = await serve(inner);
    const failed = await eventually(async () => {
      const { result: task } = await rpc(second, "tasks/get", { taskId });
      return task!["status"] === "failed" ? task : undefined;
    }, 5000, "the cut task reported failed");
    expect(failed["error"]).toMatchObject({ message: "the process running the call stopped before it finished" });
    // Well inside the tasks' own 10 s: the host's 1 s lease decided it.
    expect(Date.now() - cutAt).toBeLessThan(8000);
  });

  it("keeps a live runner's task working past several host leases, then completes it", async () => {
    const url = await serve(createMemoryStorage());
    const { result } = await rpc(url, "tools/call", { name: "wait", arguments: {} });
    const taskId = String(result!["taskId"]);
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 3));
    const { result: still } = await rpc(url, "tasks/get", { taskId });
    expect(still!["status"]).toBe("working");
    release();
    expect((await poll(url, taskId, "completed"))["result"]).toMatchObject({ resultType: "complete" });
  });
});
