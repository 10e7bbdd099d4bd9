/**
 * Code the built worker imports on first use rather than at start-up (docs/design/cloudflare-build.md
 * "Start-up CPU"): the AI SDK and the model providers, the price catalog, the MCP SDK, the project
 * loader. No static import path from the entry reaches them (esbuild's metafile), so workerd does
 * not evaluate them when the worker starts. The build writes exactly one module, and workerd
 * configured only from the generated `wrangler.jsonc` (`main` alone, as wrangler uploads it with
 * no_bundle) runs each of those paths: a turn on an `openai-compatible` model against a local
 * Chat Completions server, the session's cost report, and an MCP request.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { serve } from "srvx";
import type { Server } from "srvx";
import { afterAll, beforeAll, expect, test } from "vitest";
import { buildCloudflare } from "../cli/build.ts";
import { bundleWorker } from "../cli/cloudflare/bundle.ts";
import { miniflareOptions } from "./_cloudflare.ts";
import { type TestEvent, readEvents } from "./_harness.ts";
import { tempProjects } from "./_temp-projects.ts";

const BEARER = "cf-first-use-token";
const scratch = mkdtempSync(join(tmpdir(), "agent-serve-cf-first-use-"));
const project = tempProjects("cf-first-use");
const outDir = join(scratch, "out");
let mf: Miniflare;
let models: Server;
const modelRequests: Array<{ path: string; model: string }> = [];

/** Streams one Chat Completions answer, then the usage, as OpenAI-compatible servers do. */
function chatCompletion(request: Request): Promise<Response> {
  return request.json().then((body: { model: string }) => {
    modelRequests.push({ path: new URL(request.url).pathname, model: body.model });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({ id: "c1", object: "chat.completion.chunk", created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] });
    const usage = { id: "c1", object: "chat.completion.chunk", created: 1, model: body.model, choices: [], usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } };
    const lines = [chunk({ role: "assistant", content: "" }), chunk({ content: "from the" }), chunk({ content: " provider" }), chunk({}, "stop"), usage];
    const text = `${lines.map((line) => `data: ${JSON.stringify(line)}\n\n`).join("")}data: [DONE]\n\n`;
    return new Response(text, { headers: { "content-type": "text/event-stream" } });
  });
}

beforeAll(async () => {
  models = serve({ fetch: chatCompletion, port: 0, hostname: "127.0.0.1", silent: true, gracefulShutdown: false });
  await models.ready();
  const dir = project({ "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ model: "openai-compatible/fake-1" });\n` });
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: process.env, cwd: scratch };
  await buildCloudflare({ target: "cloudflare", dir, out: outDir, mode: "single", docs: false, playground: false }, io);
  mf = new Miniflare({
    ...miniflareOptions(outDir, join(scratch, "state")),
    bindings: { AGENT_SERVE_BEARER_TOKEN: BEARER, AGENT_SERVE_OPENAI_BASE_URL: new URL("/v1", models.url).toString() },
  });
  await mf.ready;
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  await models?.close(true);
  rmSync(scratch, { recursive: true, force: true });
});

async function call(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const response = await mf.dispatchFetch(`http://localhost${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${BEARER}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response as unknown as Response;
}

test("the build writes one module: the worker uploads nothing but main", () => {
  expect(readdirSync(outDir).sort()).toEqual(["entry.mjs", "worker.mjs", "wrangler.jsonc"]);
});

test("the start-up evaluates none of it: only dynamic imports lead from the entry to those packages", async () => {
  const { metafile } = await bundleWorker({ entry: join(outDir, "entry.mjs"), outfile: join(scratch, "check", "worker.mjs") });
  const entry = Object.keys(metafile.inputs).find((path) => path.endsWith("entry.mjs"))!;
  // What evaluating the entry evaluates: static imports and the require calls of what it reaches.
  const atStartup = new Set([entry]);
  for (const path of atStartup) {
    for (const imported of metafile.inputs[path]?.imports ?? []) {
      if (!imported.external && (imported.kind === "import-statement" || imported.kind === "require-call")) atStartup.add(imported.path);
    }
  }
  const firstUse = /node_modules\/(ai|@ai-sdk\/[^/]+|@modelcontextprotocol\/sdk|@pydantic\/genai-prices|zod|yaml)\/|(^|\/)loader\/load-snapshot\.ts$/;
  const bundled = Object.keys(metafile.inputs).filter((path) => firstUse.test(path));
  expect(bundled.filter((path) => path.endsWith("load-snapshot.ts"))).toHaveLength(1);
  for (const name of ["ai", "@ai-sdk/openai-compatible", "@ai-sdk/openai", "@modelcontextprotocol/sdk", "@pydantic/genai-prices", "zod", "yaml"]) {
    expect(bundled.some((path) => path.includes(`node_modules/${name}/`)), `${name} is in the bundle`).toBe(true);
  }
  expect([...atStartup].filter((path) => firstUse.test(path))).toEqual([]);
});

test("a turn on a provider model loads the AI SDK in workerd, and the cost report loads the price catalog", async () => {
  const created = await call("/v1/session", { message: "hello" });
  expect(created.status).toBe(200);
  const { sessionId } = (await created.json()) as { sessionId: string };
  const stream = await call(`/v1/session/${sessionId}/stream`);
  const events = await readEvents(stream, (event: TestEvent) => event.type === "session.waiting", 15_000);
  const completed = events.find((event) => event.type === "turn.completed") as unknown as { data: { model?: string; usage?: { inputTokens: number } } } | undefined;
  expect(events.map((event) => event.type)).not.toContain("turn.failed");
  expect(completed?.data).toMatchObject({ model: "openai-compatible/fake-1", usage: { inputTokens: 12 } });
  expect(modelRequests).toEqual([{ path: "/v1/chat/completions", model: "fake-1" }]);
  const reply = events.filter((event) => event.type === "message.delta" || event.type === "message.completed");
  expect(JSON.stringify(reply)).toContain("from the provider");

  const cost = await call(`/v1/session/${sessionId}/cost`);
  expect(cost.status).toBe(200);
  expect(await cost.json()).toMatchObject({ sessionId, turns: [{ model: "openai-compatible/fake-1", usage: { inputTokens: 12, outputTokens: 4 } }] });
});

test("an MCP request loads the MCP SDK in workerd", async () => {
  const response = await call(
    "/v1/mcp",
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "first-use-test", version: "1.0.0" } } },
    { accept: "application/json, text/event-stream" },
  );
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: expect.any(String) }, capabilities: { tools: {} } } });
});
