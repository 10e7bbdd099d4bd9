/**
 * Channel files in real projects served by the real CLI: an Agent SDK style A2A JSON-RPC channel
 * importing `@cursor/bdk/channels` (both layouts), the schema diagnostics of `validate` and
 * `serve`, and durable delivery across a SIGKILL between an event and its delivery.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { loadProject } from "../loader/load-project.ts";
import { serveNode } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { REPO, cliEnv, finished, killAfterEach, runCli, startServe } from "./_cli.ts";
import { eventually, postJson, quietLogger } from "./_harness.ts";
import { summarizeDiagnostics, tempProjects } from "./_temp-projects.ts";

const write = tempProjects("channels");
/** These tests spawn the CLI several times; on a loaded two-core runner that takes a while. */
const CLI_TIMEOUT = 90_000;
const running = killAfterEach();
const env = cliEnv(join(write({}), "config"));

const A2A = `
import { defineChannel, GET, POST, localDevStrict } from "@cursor/bdk/channels";
import { z } from "zod";

const rpc = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number()]),
  method: z.string(),
  params: z.record(z.string(), z.unknown()).default({}),
});

export default defineChannel({
  auth: [localDevStrict()],
  routes: [
    GET("/.well-known/agent-card.json", {
      description: "A2A agent card",
      querySchema: z.object({}),
      handler: async (request) => ({ name: "helper", url: new URL("..", request.url).href, capabilities: { streaming: false } }),
    }),
    POST("/", {
      description: "A2A JSON-RPC endpoint",
      bodySchema: rpc,
      handler: async (_request, { body, send, getSession }) => {
        if (body.method === "message/send") {
          const message = body.params.message as { parts: Array<{ text: string }>; contextId?: string };
          const text = message.parts.map((part) => part.text).join("\\n");
          const session = await send(text, { continuationToken: message.contextId, title: "a2a" });
          const done = await session.waitForCompletion();
          return {
            jsonrpc: "2.0",
            id: body.id,
            result: { kind: "task", id: session.id, contextId: session.continuationToken, status: { state: done.status === "finished" ? "completed" : "failed" }, artifacts: [{ parts: [{ kind: "text", text: done.result ?? "" }] }] },
          };
        }
        if (body.method === "tasks/get") {
          const session = await getSession(String(body.params.id));
          if (!session) return { jsonrpc: "2.0", id: body.id, error: { code: -32001, message: "Task not found" } };
          return { jsonrpc: "2.0", id: body.id, result: { kind: "task", id: session.id, contextId: session.continuationToken, status: { state: session.status } } };
        }
        return { jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } };
      },
    }),
  ],
});
`;

async function a2aRoundTrip(channelBase: string): Promise<void> {
  const card = await fetch(`${channelBase}/.well-known/agent-card.json`);
  expect(card.status).toBe(200);
  expect(await card.json()).toMatchObject({ name: "helper", capabilities: { streaming: false } });
  const send = (params: unknown, id: number) => fetch(`${channelBase}/`, postJson({ jsonrpc: "2.0", id, method: "message/send", params }));
  const first = (await (await send({ message: { parts: [{ text: "hello over a2a" }], contextId: "ctx-1" } }, 1)).json()) as {
    result: { id: string; contextId: string; status: { state: string }; artifacts: Array<{ parts: Array<{ text: string }> }> };
  };
  expect(first.result.status.state).toBe("completed");
  expect(first.result.contextId).toBe("ctx-1");
  expect(first.result.artifacts[0]?.parts[0]?.text).toBe("echo: hello over a2a");
  const second = (await (await send({ message: { parts: [{ text: "and again" }], contextId: "ctx-1" } }, 2)).json()) as { result: { id: string } };
  expect(second.result.id).toBe(first.result.id);
  const task = await fetch(`${channelBase}/`, postJson({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { id: first.result.id } }));
  expect(await task.json()).toEqual({ jsonrpc: "2.0", id: 3, result: { kind: "task", id: first.result.id, contextId: "ctx-1", status: { state: "idle" } } });
  const bad = await fetch(`${channelBase}/`, postJson({ jsonrpc: "1.0", id: 4, method: "message/send" }));
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ ok: false, error: "invalid_request" });
  const forwarded = await fetch(`${channelBase}/.well-known/agent-card.json`, { headers: { "x-forwarded-for": "198.51.100.4" } });
  expect(forwarded.status).toBe(401);
}

test("info shows an Agent SDK channel's routes and schemas without starting a server", async () => {
  const dir = write({ "bot/channels/a2a.ts": A2A });
  const info = JSON.parse((await runCli(["info", dir, "--json"], env)).stdout) as {
    projects: Array<{ channels: Array<{ id: string; routes: Array<{ method: string; path: string; bodySchema?: { properties?: Record<string, unknown> } }> }> }>;
  };
  const a2a = info.projects[0]?.channels.find((channel) => channel.id === "a2a");
  expect(a2a?.routes.map((route) => route.method)).toEqual(["GET", "POST"]);
  expect(Object.keys(a2a?.routes[1]?.bodySchema?.properties ?? {})).toEqual(["jsonrpc", "id", "method", "params"]);
  const text = (await runCli(["info", dir], env)).stdout;
  expect(text).toMatch(/a2a\s+\[own auth\]/);
  expect(text).toContain("body {jsonrpc, id, method, params?}  A2A JSON-RPC endpoint");
}, CLI_TIMEOUT);

test("an Agent SDK channel file runs unchanged, in multi and single layouts", async () => {
  const dir = write({ "bot/channels/a2a.ts": A2A });
  const multi = await startServe([dir, "--port", "0", "--state-root", join(dir, "state-multi"), "--allow-anonymous", "--accept-unsandboxed-shell"], env);
  running.push(multi);
  const slug = dir.split("/").at(-1);
  await a2aRoundTrip(`${multi.url}/${slug}/v1/channels/a2a`);
  const single = await startServe([dir, "--port", "0", "--mode", "single", "--state-root", join(dir, "state-single")], env);
  running.push(single);
  await a2aRoundTrip(`${single.url}/v1/channels/a2a`);
}, CLI_TIMEOUT);

test("examples/a2a: the writer asks the researcher over A2A through its ask_researcher tool", async () => {
  const researcher = await loadProject(join(REPO, "examples/a2a/researcher"));
  expect(researcher.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  const peerHost = createHost({ agents: [{ slug: "researcher", project: researcher, storage: createMemoryStorage() }], logger: quietLogger, drainTimeoutMs: 50 });
  const peer = await serveNode(peerHost, { port: 0, silent: true });
  // The tool reads its peer's URL when the writer's project loads.
  process.env["RESEARCHER_URL"] = `${peer.url}/researcher`;
  try {
    const writer = await loadProject(join(REPO, "examples/a2a/writer"));
    expect(writer.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(Object.keys(writer.tools ?? {})).toEqual(["ask_researcher"]);
    const host = createHost({ agents: [{ slug: "writer", project: writer, storage: createMemoryStorage() }], logger: quietLogger, drainTimeoutMs: 50 });
    const server = await serveNode(host, { port: 0, silent: true });
    try {
      const message = `/tool ask_researcher ${JSON.stringify({ message: "/reply water boils at 100 °C at sea level" })}`;
      const { sessionId } = (await (await fetch(`${server.url}/writer/v1/session`, postJson({ message }))).json()) as { sessionId: string };
      const result = await eventually(async () => {
        const events = (await (await fetch(`${server.url}/writer/v1/session/${sessionId}/events`)).text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
        return events.find((event) => event.type === "action.result")?.data;
      });
      expect(result).toMatchObject({ isError: false, output: { state: "completed", reply: "water boils at 100 °C at sea level" } });
    } finally {
      await host.close();
      await server.close(true);
    }
  } finally {
    delete process.env["RESEARCHER_URL"];
    await peerHost.close();
    await peer.close(true);
  }
});

test("schema rules: missing schemas, plain JSON Schema and broken files are errors naming file and route", async () => {
  const dir = write({
    "bot/channels/hooks.ts": `
import { defineChannel, GET, POST, DELETE } from "agent-serve/channels";
import * as v from "valibot";
export default defineChannel({
  routes: [
    GET("/status", { handler: () => ({}) }),
    POST("/ingest", { bodySchema: { type: "object", properties: {} }, handler: () => undefined }),
    DELETE("/items/:id", { handler: () => undefined }),
    POST("/ok", { bodySchema: v.object({}), handler: () => undefined }),
  ],
});
`,
    "bot/channels/broken.ts": `import { nothing } from "agent-serve/channels";\nexport default nothing;\n`,
    "bot/channels/Bad Name.ts": `export default {};\n`,
  });
  const loaded = await loadProject(dir);
  expect(summarizeDiagnostics(loaded.diagnostics)).toEqual([
    "error:channel_import_failed:bot/channels/broken.ts",
    "error:invalid_channel_id:bot/channels/Bad Name.ts",
    "error:invalid_route_schema:bot/channels/hooks.ts",
    "error:missing_route_schema:bot/channels/hooks.ts",
  ]);
  const messages = loaded.diagnostics.map((d) => d.message).join("\n");
  expect(messages).toContain("channel hooks: route GET /status: GET routes need a querySchema");
  expect(messages).toContain("channel hooks: route POST /ingest: bodySchema must be a schema-validator object");
  expect(loaded.channels).toEqual({});

  const validate = await runCli(["validate", dir], env);
  expect(validate.code).not.toBe(0);
  const report = JSON.parse((await runCli(["validate", dir, "--json"], env)).stdout) as { ok: boolean; projects: Array<{ channels: unknown[] }> };
  expect(report.ok).toBe(false);
  // Only valid channels are mounted, so none is listed.
  expect(report.projects[0]?.channels).toEqual([]);
  expect(validate.stdout + validate.stderr).toContain("bot/channels/hooks.ts");
  expect(validate.stdout + validate.stderr).toContain("route GET /status");
  const serve = await runCli([ "serve", dir, "--port", "0"], env);
  expect(serve.code).not.toBe(0);
  expect(serve.stdout + serve.stderr).toContain("route POST /ingest");
}, CLI_TIMEOUT);

// --- delivery across a crash ---

interface Delivery {
  index: number;
  type: string;
  text: string;
}

const received: Delivery[] = [];
let hang = true;
const held: ServerResponse[] = [];
const receiver = createServer((request: IncomingMessage, response: ServerResponse) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString()));
  request.on("end", () => {
    received.push(JSON.parse(body) as Delivery);
    // The first process never hears back: it is killed while the delivery is in flight.
    if (hang) held.push(response);
    else response.end("ok");
  });
});
afterAll(() => {
  for (const response of held) response.destroy();
  receiver.close();
});

const POSTER = `
import { defineChannel, POST } from "agent-serve/channels";
import * as v from "valibot";
export default defineChannel({
  routes: [
    POST("/messages", {
      bodySchema: v.object({ text: v.string() }),
      handler: async (_request, { body, send }) => {
        const session = await send(body.text, { continuationToken: "thread-1" });
        return { sessionId: session.sessionId };
      },
    }),
  ],
  events: {
    async "message.completed"(event) {
      const response = await fetch(process.env.RECEIVER_URL, {
        method: "POST",
        body: JSON.stringify({ index: event.index, type: event.type, text: event.data.text }),
      });
      if (!response.ok) throw new Error("receiver refused");
    },
  },
});
`;

test("SIGKILL between an event and its delivery: delivered after restart, in order, from the durable cursor", async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  const dir = write({ "bot/channels/poster.ts": POSTER });
  const serveEnv = { ...env, RECEIVER_URL: receiverUrl };
  const args = [dir, "--port", "0", "--mode", "single", "--state-root", join(dir, "state")];

  const first = await startServe(args, serveEnv);
  running.push(first);
  const created = await fetch(`${first.url}/v1/channels/poster/messages`, postJson({ text: "before the crash" }));
  expect(created.status).toBe(200);
  const { sessionId } = (await created.json()) as { sessionId: string };
  // The reply event is durable and its delivery is in flight (the receiver holds the request).
  await eventually(async () => (received.length === 1 ? true : undefined), 10_000, "the first delivery attempt");
  const events = (await (await fetch(`${first.url}/v1/session/${sessionId}/events`)).text()).split("\n").filter(Boolean);
  const reply = events.map((line) => JSON.parse(line) as { index: number; type: string }).find((e) => e.type === "message.completed")!;
  expect(received[0]).toEqual({ index: reply.index, type: "message.completed", text: "echo: before the crash" });

  first.child.kill("SIGKILL");
  expect((await finished(first)).signal).toBe("SIGKILL");
  hang = false;

  const second = await startServe(args, serveEnv);
  running.push(second);
  await eventually(async () => (received.length === 2 ? true : undefined), 10_000, "redelivery after restart");
  expect(received[1]).toEqual(received[0]);
  // New events follow from the cursor; the redelivered one is not delivered a third time.
  const follow = await fetch(`${second.url}/v1/channels/poster/messages`, postJson({ text: "after the restart" }));
  expect(((await follow.json()) as { sessionId: string }).sessionId).toBe(sessionId);
  await eventually(async () => (received.length === 3 ? true : undefined), 10_000, "the next reply");
  expect(received[2]?.text).toBe("echo: after the restart");
  expect(received[2]!.index).toBeGreaterThan(reply.index);
  second.child.kill("SIGTERM");
  expect((await finished(second)).code).toBe(0);
  expect(received).toHaveLength(3);
}, CLI_TIMEOUT);
