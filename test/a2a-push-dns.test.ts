/**
 * Push targets named by a host name are judged by what the name resolves to (docs/design/a2a-push.md
 * "Targets"): with the local runtime's resolver, a name resolving to a loopback or private address
 * (this machine's own host name) is refused outside `--dev`, inline on `SendMessage` and through
 * `CreateTaskPushNotificationConfig` alike, before anything is sent; a name that does not resolve
 * is refused; `--dev` takes both; an address literal needs no resolving.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLocalRuntime } from "../loader/runtime.ts";
import { isPrivateHost } from "../src/base/private-host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { helloOptions, project } from "./_harness.ts";
import { rpc, serve } from "./_a2a.ts";

const root = mkdtempSync(join(tmpdir(), "a2a-push-dns-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function served(dev: boolean): Promise<{ endpoint: string; close(): Promise<void>; sessions(): Promise<number> }> {
  const runtime = createLocalRuntime({ stateRoot: join(root, dev ? "dev" : "prod") });
  const host = await serve(helloOptions({ dev, agents: [{ slug: "hello", project: project(), storage: createMemoryStorage(), runtime }] }));
  return {
    endpoint: `${host.url}/hello/v1/a2a`,
    close: () => host.close(),
    sessions: async () => ((await (await fetch(`${host.url}/hello/v1/sessions`)).json()) as { sessions: unknown[] }).sessions.length,
  };
}

const send = (endpoint: string, push?: Record<string, unknown>) =>
  rpc(endpoint, {
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "/reply x" }] }, ...(push ? { configuration: { taskPushNotificationConfig: push, returnImmediately: true } } : {}) },
  });

describe("push targets resolved", () => {
  it("refuses a name that resolves to a private address, and one that does not resolve, outside --dev", async () => {
    const own = hostname();
    // The premise: this machine's own name resolves inside it (loopback, or a private address).
    const addresses = await createLocalRuntime({ stateRoot: root }).resolveHost!(own);
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.every((address) => isPrivateHost(address)), addresses.join(", ")).toBe(true);
    expect(isPrivateHost(own)).toBe(false);

    const server = await served(false);
    try {
      const inline = await send(server.endpoint, { url: `http://${own}:9/hook` });
      expect(inline.body["error"]).toMatchObject({ code: -32602 });
      expect(String((inline.body["error"] as { message: string }).message)).toContain("resolves to");
      // Refused before anything was sent.
      expect(await server.sessions()).toBe(0);

      const unresolved = await send(server.endpoint, { url: "https://no-such-host.invalid/hook" });
      expect(String((unresolved.body["error"] as { message: string }).message)).toContain("does not resolve");

      const sent = await send(server.endpoint);
      const taskId = (sent.body["result"] as { task: { id: string } }).task.id;
      const created = await rpc(server.endpoint, { jsonrpc: "2.0", id: 2, method: "CreateTaskPushNotificationConfig", params: { taskId, url: `https://${own}/hook` } });
      expect(created.body["error"]).toMatchObject({ code: -32602 });
      // An address literal is judged as written, with no lookup.
      const literal = await rpc(server.endpoint, { jsonrpc: "2.0", id: 3, method: "CreateTaskPushNotificationConfig", params: { taskId, url: "https://93.184.216.34/hook", id: "literal" } });
      expect(literal.body["result"]).toMatchObject({ id: "literal" });
    } finally {
      await server.close();
    }

    const dev = await served(true);
    try {
      const sent = await send(dev.endpoint, { url: `http://${own}:9/hook`, id: "own" });
      expect(sent.body["result"]).toBeDefined();
    } finally {
      await dev.close();
    }
  });
});
